#!/usr/bin/env bash
# horovod.sh - fusion="horovod" runs with no fault end with every step committed, no collective
# failed and no membership but the first (issue 31: each rank fused its own ready gradients at
# its own cycle, so the ranks all-reduced different buffers at different times and the runs
# failed: 2 x 2 P100 with the defaults, 3 failed collectives and 3 new memberships; 16 x 4 P100,
# every collective failed and the job failed; 16 GPUs on RoCE with the textbook ring shrank
# 16 -> 8 -> 2 -> 1). Horovod's coordinator makes every rank all-reduce the same fused buffers in
# the same order (sim/strategy/ar_horovod.h); the closed forms of its costs are check_horovod.
#   tests/horovod.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: horovod.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

# scen NAME NODES GPUS-PER-NODE NIC STEPS [MORE-TRAINING-ATTRIBUTES]
scen() {
    cat >"$tmp/$1.xml" <<XML
<?xml version="1.0"?>
<scenario name="$1" seed="1">
  <cluster nodes="$2" gpus-per-node="$3" gpu="p100" nic="$4"/>
  <model preset="resnet101"/>
  <training strategy="allreduce" batch-per-gpu="64" steps="$5" fusion="horovod"
            ${6-}/>
</scenario>
XML
}
field() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),\{0,1\}$/\1/p" "$tmp/$1.json" | head -1; }

scen p2x2 2 2 tcp-25g 10
scen p16x4 16 4 roce-25g 2
scen ring16 4 4 roce-25g 10 'algo="ring"'
for n in p2x2 p16x4 ring16; do
    if "$dmlsim" run "$tmp/$n.xml" --json "$tmp/$n.json" >"$tmp/$n.out" 2>&1; then
        ok
    else
        ko "$n: exit $?: $(tail -3 "$tmp/$n.out")"
        continue
    fi
    steps=$(sed -n 's/.*steps="\([0-9]*\)".*/\1/p' "$tmp/$n.xml")
    workers=$(sed -n 's/^# gpus *\([0-9]*\).*/\1/p' "$tmp/$n.out")
    # metric, wanted value, what it counts
    for want in "steps_completed $steps steps committed" "failed_collectives 0 failed collectives" \
        "membership_changes 0 new memberships" "final_workers $workers workers at the end"; do
        set -- $want
        got=$(field $n $1)
        if [ "$got" = "$2" ]; then ok; else ko "$n: $got $3 ($2 wanted)"; fi
    done
done
finish horovod
