#!/bin/bash
# layers.sh - the include graph of sim/ against its layers (README "How it works").
#
# Layers, bottom to top: core (plain data) < engine (SimGrid) < strategy < report < cli. A file's
# layer is its folder under sim/, subfolders included (sim/engine/nccl/ is the engine's).
# Fails on: an include of a header that is not in sim/; an include that goes up a layer; a
# SimGrid or xbt header included by core; two files of one name (includes name files, not
# folders); any include cycle between modules, in one folder or across folders (a module is
# FILE.c + FILE.h; tsort finds the cycle).
# usage: layers.sh [SIM_DIR]
set -u
sim=${1:-sim}
rank() { case $1 in core) echo 0 ;; engine) echo 1 ;; strategy) echo 2 ;; report) echo 3 ;; cli) echo 4 ;; *) echo 9 ;; esac; }
bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
mapfile -t files < <(find "$sim" -name '*.[ch]' | sort)
layer() { local rel=${1#"$sim"/}; echo "${rel%%/*}"; } # sim/engine/nccl/x.c -> engine
declare -A layer_of path_of
for f in "${files[@]}"; do
    b=$(basename "$f")
    if [ -n "${path_of[$b]:-}" ]; then echo "layers: $f and ${path_of[$b]} have one name"; bad=1; fi
    layer_of[$b]=$(layer "$f"); path_of[$b]=$f
done
for f in "${files[@]}"; do
    from=$(layer "$f"); mod=$(basename "${f%.*}")
    if [ "$(rank "$from")" = 9 ]; then echo "layers: $f is in no layer"; bad=1; fi
    if [ "$from" = core ] && grep -qE '^#include <(simgrid|xbt)/' "$f"; then
        echo "layers: $f (core) includes a SimGrid header: $(grep -E '^#include <(simgrid|xbt)/' "$f" | head -1)"
        bad=1
    fi
    while read -r h; do
        to=${layer_of[$h]:-}
        if [ -z "$to" ]; then echo "layers: $f includes \"$h\", which is not in $sim"; bad=1; continue; fi
        if [ "$(rank "$to")" -gt "$(rank "$from")" ]; then
            echo "layers: $f ($from) includes $h ($to): up a layer"; bad=1
        fi
        [ "${h%.h}" != "$mod" ] && echo "$mod ${h%.h}" >>"$edges"
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
    echo "layers: include cycle:"; sed 's/^/  /' "$edges.err"; bad=1
fi
rm -f "$edges.err"
[ $bad = 0 ] && echo "layers: ${#files[@]} files, $(sort -u "$edges" | wc -l) module edges, no cycle, no include up a layer"
exit $bad
