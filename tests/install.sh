#!/usr/bin/env bash
# install.sh - `cmake --install` into a temporary prefix, then the main job's steps from there,
# in a folder outside the source tree (issue 17):
#   PREFIX/bin/dmlsim runs the default scenario and a sweep of the installed example scenarios,
#     and gnuplot draws the installed scaling plot from it;
#   --calib NAME finds the installed profile (PREFIX/share/dmlsim/platforms/calib/NAME.calib);
#   the manual pages exist: dmlsim(1) names every command, dmlsim-scenario(5) every element and
#     attribute of the installed DTD (read here with awk, not with dmlsim's own parser), and
#     `man -l` renders both where man is installed; the bash completion completes commands.
#   tests/install.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: install.sh BUILD_DIR}" && pwd)
. "$(dirname "$0")/lib.sh"
p=$tmp/prefix
cmake --install "$build" --prefix "$p" >"$tmp/log" 2>&1 && ok || ko "cmake --install: $(tail -3 "$tmp/log")"
d=$p/bin/dmlsim
share=$p/share/dmlsim
cd "$tmp" || exit 1

# ---- the main job's steps, from the prefix ----------------------------------------------------
"$d" run "$share/scenarios/resnet50-ring.xml" >run.txt 2>&1 && grep -q "accounting       both identities hold" run.txt &&
    ok || ko "installed run: $(tail -2 run.txt)"
"$d" sweep "$share/scenarios/scaling.xml" --set training.gpus=8,16 --set training.steps=1 \
    -o scaling.txt --csv scaling.csv >/dev/null 2>&1 && [ "$(grep -vc '^#' scaling.txt)" -eq 2 ] &&
    [ "$(wc -l <scaling.csv)" -eq 3 ] && ok ||
    ko "installed sweep: $(cat scaling.txt 2>/dev/null | head -3)"
if command -v gnuplot >/dev/null; then
    gnuplot -e "in='scaling.csv'; out='scaling.png'; name='installed'" "$share/plots/scaling.gp" \
        >gp.log 2>&1 && [ -s scaling.png ] && ok || ko "installed scaling.gp: $(head -3 gp.log)"
else
    ko "gnuplot is not installed (tools/setup.sh installs gnuplot-nox)"
fi
"$d" run "$share/scenarios/resnet50-ring.xml" --calib spec-h100 >calib.txt 2>&1 &&
    grep -q "^# calibration   $share/platforms/calib/spec-h100.calib" calib.txt && ok ||
    ko "--calib spec-h100 from the prefix: $(grep calibration calib.txt)"

# ---- manual pages and completion ---------------------------------------------------------------
man1=$p/share/man/man1/dmlsim.1
man5=$p/share/man/man5/dmlsim-scenario.5
sed 's/\\-/-/g' "$man5" >man5.txt # roff's escaped dashes, as a reader types them
for c in $("$d" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'); do
    grep -q "^\.SS \"dmlsim $c" "$man1" && ok || ko "dmlsim(1) lacks the command $c"
done
for e in $(grep -o '<!ELEMENT [a-z-]*' "$share/scenario.dtd" | awk '{print $2}'); do
    grep -q "^\.SS \"<$e>\"" man5.txt && ok || ko "dmlsim-scenario(5) lacks <$e>"
done
# each ATTLIST's attribute names: the first word of its lines up to the closing ">"
awk '/<!ATTLIST/ {el = $2; on = 1; sub(/.*<!ATTLIST [a-z-]*/, ""); }
     on && NF > 0 && $1 !~ /^</ {print el, $1}
     on && />/ {on = 0}' "$share/scenario.dtd" >attrs
[ "$(wc -l <attrs)" -ge 100 ] && ok || ko "only $(wc -l <attrs) attributes read from the DTD"
while read -r e a; do
    awk -v e="<$e>" -v a="$a" '$0 == ".SS \"" e "\"" {on = 1; next} /^\.SS/ {on = 0}
        on && $0 == ".B " a {found = 1} END {exit !found}' man5.txt && ok ||
        ko "dmlsim-scenario(5) lacks $e's attribute $a"
done <attrs
if command -v man >/dev/null; then
    for m in "$man1" "$man5"; do
        MANWIDTH=80 man -l "$m" >page 2>warn && grep -q "^NAME" page && [ ! -s warn ] && ok ||
            ko "man -l $m: $(head -2 warn)"
    done
fi
# shellcheck disable=SC1091
bash -c ". '$p/share/bash-completion/completions/dmlsim' && COMP_WORDS=(dmlsim sw) COMP_CWORD=1 &&
    _dmlsim && echo \"\${COMPREPLY[*]}\"" >comp 2>&1 && [ "$(cat comp)" = sweep ] && ok ||
    ko "completion of 'dmlsim sw': $(cat comp)"
finish install
