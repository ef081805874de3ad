#!/usr/bin/env bash
# hynum.sh - <numerics> under strategy="hybrid" end to end (sim/strategy/hybrid_num.h): real SGD
# on Fashion-MNIST through the MLP split by tensor and pipeline parallelism, against independent
# computations of the same training.
#  - tp 1 x pp 1 x dp 2 against the all-reduce of 2 workers (nn.c's one-process gradients, summed
#    by the simulated ring): the same parameters to the bit (params_fnv1a), since a ring of two
#    adds a + b, the sum in replica order, and both average by 1/2 before the same optimizer;
#  - dp 4 against the all-reduce of 4: the ring adds each chunk in its own order, so the final
#    test loss agrees to float rounding (1.4e-8 here): 1e-6;
#  - tp 2 x pp 2 (and tp 3 x pp 2, uneven: 256 and 128 units over 3 ranks) against tp 1 x pp 1,
#    with 1 and 4 microbatches: the split computes the same gradient in other orders of sums
#    (tests/check_tpnum.c: within 6e-8 of one process's in a step); 30 steps of momentum SGD carry
#    that to at most 4e-8 in the final loss here (2e-7 after 40 or 60 steps; the trajectories part
#    later, 1e-2 apart after 200 steps, as float rounding does to any two orders of sums): 1e-6 is
#    the bound; and it trains (test accuracy above 0.5, chance being 0.1);
#  - refusals: pp beyond the MLP's layers, tp beyond its narrowest layer, no transformer to time,
#    uneven stages (first-stage-layers, stage-layers, ...: the MLP splits evenly).
#   tests/hynum.sh PATH/TO/dmlsim   (needs /usr/share/datasets/fashion-mnist)
set -u
dmlsim=${1:?usage: hynum.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

# scen NAME STRATEGY GPUS TP PP DP MICROBATCHES [HIDDEN [COST-MODEL [MORE-NUMERICS-ATTRIBUTES]]]
scen() {
    local par="" cost=${9-gpt}
    [ "$2" = hybrid ] && par="<parallel tp=\"$4\" pp=\"$5\" dp=\"$6\" microbatches=\"$7\"/>"
    [ -n "$cost" ] && cost="cost-model=\"$cost\""
    cat >"$tmp/$1.xml" <<XML
<?xml version="1.0"?>
<scenario name="$1" seed="1">
  <cluster nodes="1" gpus-per-node="$3" gpu="h100" intra="nvlink4"/>
  <training strategy="$2" algo="ring" batch-per-gpu="32" steps="30" optimizer="momentum">
    $par
    <numerics hidden="${8:-256,128}" lr="0.05" eval-every="20" train-examples="8000"
              test-examples="1000" $cost ${10-}/>
  </training>
</scenario>
XML
}

run() { # NAME: runs it, its JSON into NAME.json
    timeout 120 "$dmlsim" run "$tmp/$1.xml" --json "$tmp/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"
}
field() { sed -n "s/.*\"$2\": \"\{0,1\}\([^\",]*\).*/\1/p" "$tmp/$1.json" | head -1; }
close() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }

scen ar2 allreduce 2 - - - -
scen hy112 hybrid 2 1 1 2 1
scen ar4 allreduce 4 - - - -
scen hy114 hybrid 4 1 1 4 1
scen hy222 hybrid 8 2 2 2 1
scen hy322 hybrid 12 3 2 2 1
scen hy112m hybrid 2 1 1 2 4
scen hy222m hybrid 8 2 2 2 4
for n in ar2 hy112 ar4 hy114 hy222 hy322 hy112m hy222m; do
    if run $n; then ok; else ko "$n: exit $?: $(cat "$tmp/$n.err")"; fi
done

a=$(field ar2 params_fnv1a) h=$(field hy112 params_fnv1a)
if [ -n "$a" ] && [ "$a" = "$h" ]; then ok; else ko "tp1 pp1 dp2: params $h, all-reduce of 2: $a"; fi
a=$(field ar4 final_loss) h=$(field hy114 final_loss)
if [ -n "$a" ] && close "$h" "$a" 1e-6; then ok; else ko "dp4: final loss $h, all-reduce of 4: $a"; fi
for pair in "hy222 hy112" "hy322 hy112" "hy222m hy112m"; do
    set -- $pair
    s=$(field $1 final_loss) o=$(field $2 final_loss)
    if [ -n "$o" ] && close "$s" "$o" 1e-6; then ok; else ko "$1: final loss $s, $2's $o"; fi
    acc=$(field $1 final_accuracy)
    if awk -v a="$acc" 'BEGIN { exit !(a > 0.5) }'; then ok; else
        ko "$1: final accuracy $acc: not trained"; fi
done
# the microbatches are one replica's batch: 4 x 32 examples, another training than 1 x 32
if [ "$(field hy112m params_fnv1a)" != "$(field hy112 params_fnv1a)" ]; then ok; else
    ko "4 microbatches trained as 1"; fi

# A corrupt batch: the all-reduce's worker 1 and the hybrid's replica 1 (its reader node0.gpu1)
# skip their batch of step 5, adding a zero gradient to the sum the mean divides by 2 all the
# same: the same parameters to the bit again (a replica's good samples taken when every rank has
# finished the step, before any reads the next step's batch).
for n in ar2 hy112; do
    sed 's|</training>|</training>\n  <faults><corrupt-batch host="node0.gpu1" step="5"/></faults>|' \
        "$tmp/$n.xml" >"$tmp/${n}c.xml"
    if run ${n}c; then ok; else ko "${n}c: exit $?: $(cat "$tmp/${n}c.err")"; fi
done
a=$(field ar2c params_fnv1a) h=$(field hy112c params_fnv1a)
if [ -n "$a" ] && [ "$a" = "$h" ] && [ "$a" != "$(field ar2 params_fnv1a)" ]; then ok; else
    ko "corrupt batch: hybrid params $h, all-reduce's $a (fault-free $(field ar2 params_fnv1a))"; fi

# lr-scaling="linear": lr x the gradients an update averages, dp x microbatches (2 x 3 x 0.05)
scen lin hybrid 8 2 2 2 3 256,128 gpt 'lr-scaling="linear"'
run lin
v=$(field lin numerics_lr)
if close "$v" 0.3 1e-12; then ok; else ko "lr-scaling linear, dp 2 x 3 microbatches: lr $v"; fi

refused() { # NAME EXPECTED-MESSAGE
    run $1
    local rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/$1.err")" -eq 1 ] && grep -qF "$2" "$tmp/$1.err"; then
        ok; else ko "$1: exit $rc, $(cat "$tmp/$1.err")"; fi
}
scen pp3 hybrid 3 1 3 1 1 256
refused pp3 "pp3.xml:5: <parallel tp=\"1\" pp=\"3\">: <numerics> splits its MLP too: 3 pipeline stage(s) for a network of 2 weight layer(s)"
scen tp12 hybrid 12 12 1 1 1
refused tp12 "tp12.xml:5: <parallel tp=\"12\" pp=\"1\">: <numerics> splits its MLP too: 12 tensor rank(s) for a layer of 10 unit(s)"
scen nocost hybrid 4 2 2 1 1 256,128 ""
refused nocost "nocost.xml:7: <numerics>: the hybrid strategy times a transformer's blocks"
scen cnn hybrid 4 2 2 1 1 256,128 resnet50
refused cnn "cnn.xml:7: <numerics cost-model=\"resnet50\">: the hybrid strategy times"
# uneven stages time the cost model's blocks, but tpnum splits the MLP its own way: refused
scen uneven hybrid 8 2 2 2 1
sed -i 's|microbatches="1"/>|microbatches="1" stage-layers="5,7"/>|' "$tmp/uneven.xml"
refused uneven "uneven.xml:5: <parallel>: <numerics> splits its MLP evenly over the stages; expected no uneven stages"
finish hynum
