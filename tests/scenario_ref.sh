#!/bin/bash
# scenario_ref.sh - the scenario reference (dmlsim-scenario(5), docs/scenario-reference.md) is
# complete and current (issue 35, item 3):
#   1. `dmlsim manpage 5` and `dmlsim manpage 5 markdown` succeed with nothing on stderr: the
#      attribute table (sim/core/attr_spec.c) has a row for every attribute the DTD admits and
#      no row the DTD does not admit (dmlsim refuses, naming the row to add or remove);
#   2. every attribute of every <!ATTLIST> of scenarios/scenario.dtd, read here with Python's re
#      (not dmlsim's parser), has a row under its element's heading in the Markdown with a type,
#      and a default or "required" as the DTD says;
#   3. every preset of the catalog tables is listed under Presets: the GPU models and link classes
#      `dmlsim catalog` prints, the model presets model.c and model_recsys.c dispatch on (read from
#      their sources), the datasets, transports and algorithms the loader's messages list for an
#      unknown name, and the failure mixes the DTD enumerates;
#   4. the committed docs/scenario-reference.md is byte for byte what `dmlsim manpage 5 markdown`
#      prints (regenerate: build/dmlsim manpage 5 markdown > docs/scenario-reference.md).
# Usage: tests/scenario_ref.sh PATH/TO/dmlsim   (from the repository root)
set -u
dmlsim=${1:?usage: scenario_ref.sh DMLSIM}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { :; }
ko() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# 1. the table against the DTD, as dmlsim checks it
"$dmlsim" manpage 5 >"$tmp/man" 2>"$tmp/man.err" && [ ! -s "$tmp/man.err" ] && ok ||
    ko "dmlsim manpage 5 refused: $(cat "$tmp/man.err")"
"$dmlsim" manpage 5 markdown >"$tmp/ref.md" 2>"$tmp/md.err" && [ ! -s "$tmp/md.err" ] && ok ||
    ko "dmlsim manpage 5 markdown refused: $(cat "$tmp/md.err")"
[ "$fails" = 0 ] || exit 1 # the rest reads the reference

# 2. every DTD attribute in the reference, with a type and a default
python3 - scenarios/scenario.dtd "$tmp/ref.md" >"$tmp/attrs.out" <<'PY'
import re, sys
dtd = re.sub(r'<!--.*?-->', '', open(sys.argv[1]).read(), flags=re.S)
md = open(sys.argv[2]).read()
rows, elem = {}, None
for line in md.splitlines():
    m = re.match(r'### `<([a-z-]+)>`', line)
    if m:
        elem = m.group(1)
        continue
    m = re.match(r'\| `([a-z0-9-]+)` \| (.*?) \| (.*?) \| (.*?) \| (.*?) \|$', line)
    if m and elem:
        rows[(elem, m.group(1))] = m.groups()[1:]
n = 0
for m in re.finditer(r'<!ATTLIST\s+(\S+)(.*?)>', dtd, re.S):
    for a in re.finditer(r'(\S+)\s+(\([^)]*\)|CDATA)\s+(#\w+)', m.group(2)):
        n += 1
        key = (m.group(1), a.group(1))
        if key not in rows:
            print("<%s %s>: no row under its heading in the reference; expected a row in sim/core/attr_spec.c, which dmlsim manpage 5 prints" % key)
            continue
        typ, rng, default, meaning = rows[key]
        if not typ.strip() or not meaning.strip():
            print("<%s %s>: no type or meaning" % key)
        if (a.group(3) == '#REQUIRED') != (default == 'required') or not default.strip():
            print("<%s %s>: default %r, the DTD says %s" % (key + (default, a.group(3))))
        if a.group(2).startswith('(') and not typ.startswith('one of:'):
            print("<%s %s>: an enumeration, typed %r" % (key + (typ,)))
print("attributes", n, "rows", len(rows))
PY
grep -v '^attributes' "$tmp/attrs.out" | sed 's/^/FAIL: /'
grep -q '^attributes' "$tmp/attrs.out" && [ "$(grep -vc '^attributes' "$tmp/attrs.out")" = 0 ] && ok ||
    ko "the DTD's attributes against the reference (above)"
read -r _ nattr _ nrows < <(grep '^attributes' "$tmp/attrs.out")
[ "${nattr:-0}" -gt 200 ] && [ "$nattr" = "$nrows" ] && ok ||
    ko "the DTD has ${nattr:-?} attributes, the reference ${nrows:-?} rows; expected equal, over 200"

# 3. every preset under Presets
sed -n '/^## Presets/,$p' "$tmp/ref.md" >"$tmp/presets"
listed() { grep -q "^| \`$1\` |" "$tmp/presets"; }
names=()
while read -r name _; do names+=("$name"); done < <("$dmlsim" catalog | grep -v '^#' | grep . | awk '{print $1}' | sort -u)
# dmlsim catalog stores: the storage presets (<storage preset>)
n0=${#names[@]}
while read -r name _; do names+=("$name"); done < <("$dmlsim" catalog stores | grep -v '^#' | grep . | awk '{print $1}')
[ $((${#names[@]} - n0)) -ge 5 ] || ko "dmlsim catalog stores listed $((${#names[@]} - n0)) presets; expected at least 5"
[ "${#names[@]}" -gt 20 ] || ko "dmlsim catalog listed ${#names[@]} GPU models and link classes"
# model.c's model_preset and its large-transformer table, model_recsys.c's model_recsys_is
while read -r name; do names+=("$name"); done < <(
    sed -n '/^int model_preset(/,/^}/p' sim/core/model.c | grep -o 'strcmp(name, "[a-z0-9-]*")' |
        sed 's/.*"\(.*\)")/\1/'
    grep -o '^        {"[a-z0-9-]*", {\.layers' sim/core/model.c | sed 's/.*{"\([^"]*\)".*/\1/'
    sed -n '/^bool model_recsys_is(/,/^}/p' sim/core/model_recsys.c |
        grep -o 'strcmp(name, "[a-z0-9-]*")' | sed 's/.*"\(.*\)")/\1/')
[ "${#names[@]}" -gt 30 ] || ko "found ${#names[@]} catalog and model names; expected over 30"
# the loader's own lists for an unknown name
for probe in "data.preset:scenarios/input.xml" "ps.transport:scenarios/ps-vs-ring.xml" \
    "training.algo:scenarios/input.xml"; do
    "$dmlsim" run "${probe#*:}" --set "${probe%%:*}=no-such-name" 2>&1 >/dev/null |
        sed -n 's/.*expected one of: //p' | tr ',' '\n' | tr -d ' ' >"$tmp/list"
    [ -s "$tmp/list" ] || ko "no list of names for an unknown ${probe%%:*}"
    while read -r name; do names+=("$name"); done <"$tmp/list"
done
for name in $(sed -n 's/.*failures *(\([^)]*\)).*/\1/p' scenarios/scenario.dtd | tr -d '|'); do
    names+=("$name")
done
missing=0
for name in "${names[@]}"; do
    listed "$name" || { echo "FAIL: preset $name is not under Presets"; missing=$((missing + 1)); }
done
[ "$missing" = 0 ] && ok || ko "$missing presets missing from the reference"

# 4. the committed Markdown is the command's output
cmp -s "$tmp/ref.md" docs/scenario-reference.md && ok ||
    ko "docs/scenario-reference.md differs from \`dmlsim manpage 5 markdown\`; regenerate it: \
build/dmlsim manpage 5 markdown > docs/scenario-reference.md"

echo "scenario_ref: ${nattr:-?} attributes, ${#names[@]} preset names checked, $fails failures"
[ "$fails" = 0 ]
