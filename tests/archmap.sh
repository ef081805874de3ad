#!/bin/bash
# archmap.sh - the map of sim/ (docs/architecture.md) is true, and so are the sources' comments.
#
# Fails on: docs/architecture.md differing from what tools/archmap.sh makes of sim/ now (a module
# missing, gone, or its purpose or includes changed), with the diff and the command that
# regenerates it; a header (or a source without one) whose first line is not its one-line purpose,
# "/* FILE.h - purpose"; a comment in sim/ naming a source file (`name.c` or `name.h`, sim/'s
# lowercase naming) that exists nowhere in the repository: a stale design note. A name with a
# folder is a path of this repository when its first folder is one of the repository's (or a layer
# of sim/), and is then checked as that path; else it names another project's file (NCCL's
# src/include/device.h) and is left alone, as is a system header written <name.h>.
# usage: archmap.sh [SIM_DIR]  (the repository is SIM_DIR/..)
set -uo pipefail
export LC_ALL=C
sim=${1:-sim}
sim=${sim%/}
repo=$(dirname "$sim")
tool=$(dirname "$0")/../tools/archmap.sh
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# (a) The map against the sources.
if ! bash "$tool" "$sim" "$tmp/architecture.md" >/dev/null; then
    echo "archmap: $tool failed"; bad=1
elif ! diff -u "$repo/docs/architecture.md" "$tmp/architecture.md" >"$tmp/diff" 2>&1; then
    echo "archmap: docs/architecture.md is not what the sources say now; regenerate it with"
    echo "archmap:   tools/archmap.sh    (from the repository root), and commit it"
    cat "$tmp/diff"
    bad=1
fi

# (b) Every header, and every source without one, opens with its one-line purpose.
find "$sim" -type f \( -name '*.h' -o -name '*.c' -o -name '*.cpp' \) | sort >"$tmp/sources"
# shellcheck disable=SC2046
awk 'FILENAME == ARGV[1] { if ($0 ~ /\.h$/) header[$0] = 1; next }
     FNR == 1 {
        b = FILENAME; sub(/.*\//, "", b); h = FILENAME; sub(/\.[^.\/]*$/, ".h", h)
        if (FILENAME !~ /\.h$/ && (h in header)) nextfile
        p = "/* " b " - "
        s = substr($0, length(p) + 1); sub(/\*\/[ \t]*$/, "", s)
        if (substr($0, 1, length(p)) != p || s !~ /[^ \t]/) {
            printf "archmap: %s:1: no one-line purpose (\"/* %s - what it is\"): %s\n", FILENAME, b, $0
            bad = 1
        }
        nextfile
     }
     END { exit bad }' "$tmp/sources" $(cat "$tmp/sources") || bad=1

# (c) File names in comments exist: this repository's files (tracked, or new and not ignored)
# that are on disk, and the folders of sim/.
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$repo" ls-files --cached --others --exclude-standard
else
    (cd "$repo" && find . -name .git -prune -o -type f -print | sed 's|^\./||')
fi | while read -r p; do [ -e "$repo/$p" ] && printf '%s\n' "$p"; done >"$tmp/files"
(cd "$sim" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||') >"$tmp/layers"
# shellcheck disable=SC2046
awk -v simrel="$(basename "$sim")" '
    FILENAME == ARGV[1] { file[$0] = 1; b = $0; sub(/.*\//, "", b); name[b] = 1
                          t = $0; if (sub(/\/.*/, "", t)) top[t] = 1; next }
    FILENAME == ARGV[2] { layer[$0] = 1; next }
    FNR == 1 { incom = 0 }
    function check(nm, line,    path, t, b) {
        b = nm; sub(/.*\//, "", b)
        if (b !~ /^[a-z][a-z0-9_]*\.[ch]$/) return
        path = nm; sub(/^(\.\/)+/, "", path)
        if (path ~ /^\.\.\//) path = b
        if (path ~ /\//) {
            t = path; sub(/\/.*/, "", t)
            if (t in layer) { if ((simrel "/" path) in file) return }
            else if (t in top) { if (path in file) return }
            else return
        } else if (b in name) return
        printf "archmap: %s:%d: names %s, which is not in the repository\n", FILENAME, FNR, nm
        bad = 1
    }
    {   # the comment text of this line, strings and character literals skipped
        out = ""; i = 1; n = length($0); instr = 0
        while (i <= n) {
            c = substr($0, i, 1); c2 = substr($0, i, 2)
            if (incom) { if (c2 == "*/") { incom = 0; out = out " "; i += 2 } else { out = out c; i++ }; continue }
            if (instr) { if (c == "\\") i++; else if (c == q) instr = 0; i++; continue }
            if (c2 == "/*") { incom = 1; i += 2; continue }
            if (c2 == "//") { out = out substr($0, i + 2); break }
            if (c == "\"" || c == "'"'"'") { instr = 1; q = c }
            i++
        }
        while (match(out, /[A-Za-z0-9_.\/~-]*[a-z0-9_]\.[ch]/)) {
            nm = substr(out, RSTART, RLENGTH); before = substr(out, RSTART - 1, 1)
            out = substr(out, RSTART + RLENGTH)
            if (out !~ /^[A-Za-z0-9_]/ && out !~ /^\.[A-Za-z0-9]/ && before != "<") check(nm, FNR)
        }
    }
    END { exit bad }
' "$tmp/files" "$tmp/layers" $(cat "$tmp/sources") || bad=1

[ $bad = 0 ] && echo "archmap: docs/architecture.md matches $(grep -c '^| `' "$repo/docs/architecture.md") modules; every header has its purpose line; every file name in sim/'s comments exists"
exit $bad
