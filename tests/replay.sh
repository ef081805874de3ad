#!/usr/bin/env bash
# replay.sh - a tensor group smaller than its node replays its calls (coll_replay.h) only where
# nothing else uses its NVLink ports (hybrid.c's nvlink_alone: NVSwitch, whole groups, no pipeline
# neighbour on the node, no collective inside the pipeline phase), and replay is exact there: Llama
# 3 70B on 64 H100 with tp 4 or 2, 1F1B and interleaved, gives byte-identical outputs with
# replay="no" (about 10 s). tp-pp-dp with tp 4 (the next stage on the same node) is not replayed;
# it is compared too.
#   tests/replay.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: replay.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"
s=scenarios/llama3-70b-plan.xml
layouts=("tp=4 pp=4 dp=4 microbatches=32"
         "tp=4 pp=4 dp=4 microbatches=32 schedule=interleaved virtual-stages=5 recompute=full"
         "tp=2 pp=8 dp=4 microbatches=32 recompute=full sequence-parallel=no"
         "tp=4 pp=2 dp=8 microbatches=16 recompute=full sequence-parallel=no order=tp-pp-dp")
for l in "${layouts[@]}"; do
    sets=()
    for kv in $l; do sets+=(--set "parallel.$kv"); done
    "$dmlsim" run "$s" "${sets[@]}" --json "$tmp/a.json" >"$tmp/a.txt" 2>&1
    "$dmlsim" run "$s" "${sets[@]}" --set training.replay=no --json "$tmp/b.json" >"$tmp/b.txt" 2>&1
    grep -q 'mean step' "$tmp/a.txt" && cmp -s "$tmp/a.txt" "$tmp/b.txt" &&
        cmp -s "$tmp/a.json" "$tmp/b.json" && ok || ko "$l: replay changes the outputs"
done
finish replay
