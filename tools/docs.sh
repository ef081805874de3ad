#!/bin/bash
# docs.sh - the figures of README.md and docs/ from the commands that print them, and their links.
#
# Every block of program output quoted in README.md, docs/*.md and docs/design/*.md is wrapped as
#
#   <!-- fig NAME: COMMAND -->            a cheap figure (seconds): COMMAND is rerun
#   ```text
#   ...what COMMAND prints...
#   ```
#   <!-- /fig -->
#
# `<!-- fig NAME md: COMMAND -->` quotes COMMAND's output as it is (a markdown table, no fence);
# `<!-- fig NAME long COMMIT: COMMAND -->` is a figure too slow to rerun here (minutes to hours):
# it was produced by COMMAND at COMMIT, and only that COMMIT is checked to name a commit;
# `<!-- fig NAME md long COMMIT: COMMAND -->` a table written from what COMMAND printed at COMMIT.
# Rerun a long figure by hand (its COMMAND), paste what it prints, and give it the new commit.
# COMMAND runs with bash from the repository root with `dmlsim` on PATH (the binary given, or
# build/dmlsim) and $DMLSIM set to it; it must print the same bytes every run (dmlsim's stdout
# carries no wall time), so a figure is an excerpt of a deterministic output (`| sed -n`, `| grep`).
#
#   tools/docs.sh --update [DMLSIM]   rerun every cheap figure and rewrite its block
#   tools/docs.sh --check  [DMLSIM]   rerun them and fail (FILE:LINE: NAME and a diff) on a change;
#                                     also fail on: a relative link to a missing file or heading, a
#                                     ```text or bare ``` block outside a figure (output must say
#                                     its command; give other blocks a language: sh, xml, none), a
#                                     long figure whose COMMIT is not a commit, a committed plot
#                                     not in plots/MANIFEST or a MANIFEST line whose script is gone
# Options after the mode: --only NAME (one figure, for --update or --check).
set -u
mode=${1:-}
case "$mode" in --check | --update) shift ;; *)
    echo "usage: tools/docs.sh --check|--update [DMLSIM] [--only NAME]" >&2
    exit 1
    ;;
esac
dmlsim=build/dmlsim
only=
while [ $# -gt 0 ]; do
    case "$1" in
    --only) only=${2:?--only needs a NAME}; shift 2 ;;
    *) dmlsim=$1; shift ;;
    esac
done
cd "$(dirname "$0")/.." || exit 1
[ -x "$dmlsim" ] || { echo "docs.sh: no program at $dmlsim (build first)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
DMLSIM=$(cd "$(dirname "$dmlsim")" && pwd)/$(basename "$dmlsim")
ln -s "$DMLSIM" "$tmp/bin/dmlsim"
export DMLSIM PATH="$tmp/bin:$PATH"
fail=0
ko() { echo "docs.sh: $*"; fail=1; }
files=$(ls README.md docs/*.md docs/design/*.md 2>/dev/null)

# The figures of one file, one a line: START END NAME KIND COMMIT COMMAND (tab-separated; KIND is
# text, md or long; END is the line of <!-- /fig -->). An unclosed or nested figure is an error.
figs() {
    awk -v f="$1" '
        function bad(m) { print f ":" NR ": " m > "/dev/stderr"; err = 1 }
        /^<!-- fig / {
            if (open) bad("a figure inside the figure of line " start)
            line = $0; sub(/^<!-- fig /, "", line); sub(/ -->$/, "", line)
            c = index(line, ": ")
            if (c == 0 || $0 !~ / -->$/) { bad("expected <!-- fig NAME [md] [long COMMIT]: COMMAND -->"); next }
            head = substr(line, 1, c - 1); cmd = substr(line, c + 2)
            n = split(head, w, " "); kind = "text"; commit = "-"; k = 2
            if (k <= n && w[k] == "md") { kind = "md"; k++ }
            if (k < n && w[k] == "long") { kind = "long"; commit = w[k + 1]; k += 2 }
            if (k <= n) { bad("expected <!-- fig NAME [md] [long COMMIT]: COMMAND -->"); next }
            name = w[1]; start = NR; open = 1; next
        }
        /^<!-- \/fig -->$/ {
            if (!open) { bad("<!-- /fig --> without a figure"); next }
            printf "%d\t%d\t%s\t%s\t%s\t%s\n", start, NR, name, kind, commit, cmd; open = 0
        }
        END { if (open) bad("the figure of line " start " is not closed by <!-- /fig -->"); exit err }
    ' "$1"
}

# What a figure's block holds, from its output: a text fence around it, or the markdown as it is.
render() { # KIND OUTFILE
    if [ "$1" = md ]; then cat "$2"; else
        echo '```text'
        cat "$2"
        echo '```'
    fi
}

for f in $files; do
    figs "$f" >"$tmp/figs" || fail=1
    : >"$tmp/blocks"
    i=0
    while IFS=$'\t' read -r start end name kind commit cmd; do
        i=$((i + 1))
        if [ "$kind" = long ]; then
            git cat-file -e "$commit^{commit}" 2>/dev/null ||
                ko "$f:$start: figure $name: '$commit' is not a commit of this repository"
            continue
        fi
        [ -n "$only" ] && [ "$name" != "$only" ] && continue
        bash -c "$cmd" </dev/null >"$tmp/out" 2>"$tmp/err"
        rc=$?
        # A pipeline that excerpts (sed -n, grep) hides the program's status: an empty output is one.
        if [ ! -s "$tmp/out" ]; then
            ko "$f:$start: figure $name: '$cmd' printed nothing (exit $rc):"
            sed 's/^/    /' "$tmp/err" | head -5
            continue
        fi
        render "$kind" "$tmp/out" >"$tmp/new.$i"
        sed -n "$((start + 1)),$((end - 1))p" "$f" >"$tmp/old.$i"
        if ! cmp -s "$tmp/old.$i" "$tmp/new.$i"; then
            if [ "$mode" = --check ]; then
                ko "$f:$start: figure $name differs from what '$cmd' prints now (tools/docs.sh --update):"
                diff "$tmp/old.$i" "$tmp/new.$i" | head -40 | sed 's/^/    /'
            else
                printf '%s\t%s\n' "$start" "$tmp/new.$i" >>"$tmp/blocks"
                echo "docs.sh: $f:$start: rewrote figure $name"
            fi
        fi
    done <"$tmp/figs"
    if [ "$mode" = --update ] && [ -s "$tmp/blocks" ]; then
        # Each rewritten block's lines between its markers replaced by its new text.
        awk -v list="$tmp/blocks" '
            BEGIN { while ((getline l < list) > 0) { split(l, p, "\t"); nf[p[1]] = p[2] } }
            skip && /^<!-- \/fig -->$/ { skip = 0 }
            skip { next }
            { print }
            (NR in nf) { while ((getline l < nf[NR]) > 0) print l; close(nf[NR]); skip = 1 }
        ' "$f" >"$tmp/rewritten" && cp "$tmp/rewritten" "$f"
    fi
done
[ "$mode" = --update ] && exit $fail

# Output blocks outside figures: a ```text or bare ``` opening fence not between fig markers.
for f in $files; do
    awk -v f="$f" '
        /^<!-- (fig |metrics:begin)/ { infig = 1 } /^<!-- (\/fig|metrics:end) -->$/ { infig = 0 }
        /^```/ { if (!fence && !infig && ($0 == "```" || $0 == "```text"))
                     print f ":" NR ": an output block outside <!-- fig -->; wrap it with its command, or give the fence a language (sh, xml, none)"
                 fence = !fence }
    ' "$f"
done >"$tmp/unwrapped"
[ -s "$tmp/unwrapped" ] && { sed 's/^/docs.sh: /' "$tmp/unwrapped"; fail=1; }

# Relative links: [text](PATH) and [text](PATH#HEADING) name a file that exists, and a heading
# that the file has (GitHub's anchors: lower case, punctuation dropped, spaces as dashes).
slugs() {
    awk '/^```/ { fence = !fence } !fence && /^#+ / {
        s = tolower($0); sub(/^#+ /, "", s); gsub(/[^a-z0-9_ -]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
for f in $files; do
    dir=$(dirname "$f")
    awk '/^```/ { fence = !fence; next } !fence' "$f" | grep -o '\]([^) ]*)' | sed 's/^](//; s/)$//' |
        while read -r link; do
            case "$link" in http:* | https:* | mailto:*) continue ;; esac
            path=${link%%#*}
            anchor=
            [ "$path" != "$link" ] && anchor=${link#*#}
            if [ -z "$path" ]; then target=$f; else target=$dir/$path; fi
            if [ ! -e "$target" ]; then
                echo "$f: link ($link): no file $target"
            elif [ -n "$anchor" ] && [ "${target##*.}" = md ] && ! slugs "$target" | grep -qx -- "$anchor"; then
                echo "$f: link ($link): $target has no heading #$anchor"
            fi
        done
done >"$tmp/links"
[ -s "$tmp/links" ] && { sed 's/^/docs.sh: /' "$tmp/links"; fail=1; }

# Committed plots: each in plots/MANIFEST (FILE SCRIPT cheap|long), each MANIFEST script there.
if [ ! -f plots/MANIFEST ]; then
    ko "plots/MANIFEST: missing"
else
    for p in $(git ls-files 'plots/*.png'); do
        grep -q "^$p[[:space:]]" plots/MANIFEST || ko "$p: a committed plot not in plots/MANIFEST"
    done
    grep -v '^#' plots/MANIFEST | while read -r png script cost gp rest; do
        [ -z "$png" ] && continue
        [ -e "$png" ] || echo "plots/MANIFEST: $png: no such plot"
        [ -e "$script" ] || echo "plots/MANIFEST: $png: its script $script is missing"
        [ -z "$gp" ] || [ -e "$gp" ] || echo "plots/MANIFEST: $png: its gnuplot file $gp is missing"
        case "$cost" in cheap | long) ;; *) echo "plots/MANIFEST: $png: expected cheap or long, not '$cost'" ;; esac
    done >"$tmp/manifest"
    [ -s "$tmp/manifest" ] && { sed 's/^/docs.sh: /' "$tmp/manifest"; fail=1; }
fi
[ $fail = 0 ] && echo "docs.sh: figures, links and plots up to date"
exit $fail
