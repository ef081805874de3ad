#!/usr/bin/env bash
# tta.sh - time to accuracy: real SGD on Fashion-MNIST through the simulated protocols. Runs
#   scenarios/tta.xml             ring all-reduce, sync PS, async PS at tau = 0, 2, 8, 32, with one
#                                 4x straggler: test accuracy against simulated time; again with
#                                 cost-model="resnet50" (each step costs ResNet-50's time: a proxy)
#   scenarios/numerics-faults.xml accuracy over time through a crash and a partition (rollbacks
#                                 to the real checkpointed state)
#   scenarios/numerics-split.xml  split brain: a partition with a rendezvous replica per node, both
#                                 sides' accuracy until the merge rolls them back
#   scenarios/numerics-shuffle.xml the files stored by class, read in order, through a WebDataset
#                                 buffer, and with MDS's epoch shuffle: accuracy over time
#   scenarios/numerics-lr.xml     sweep of 1..16 workers, lr-scaling none vs linear
# and draws out/tta.png, out/accuracy-faults.png, out/accuracy-split.png, out/accuracy-shuffle.png
# and out/lr-scaling.png (.svg or .pdf with DMLSIM_PLOT_FORMAT, tools/plot.sh);
# prints a table of each
# run's time to target. Every figure is a row of a run's CSV or a sweep's table; the plots read
# CSVs with a header row by column name (out/*.csv: the evaluations "t_s,step,accuracy,loss", the
# events "t_s,kind", the sweeps' --csv). Build first (tools/main.sh calls it).
#   tools/tta.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
dm=build/dmlsim
# evals of a run's CSV (kind eval: t_s, step, ..., what "accuracy=A;loss=L") as a CSV with the
# header t_s,step,accuracy,loss
evals() {
    awk -F, 'BEGIN { print "t_s,step,accuracy,loss" }
        $1 == "eval" { split($9, a, /[=;]/); print $2 "," $3 "," a[2] "," a[4] }' "$1"
}
runs=("ring|--set training.strategy=allreduce"
      "sync-ps|--set training.strategy=ps"
      "async-0|--set training.strategy=ps --set ps.mode=async --set ps.staleness=0"
      "async-2|--set training.strategy=ps --set ps.mode=async --set ps.staleness=2"
      "async-8|--set training.strategy=ps --set ps.mode=async --set ps.staleness=8"
      "async-32|--set training.strategy=ps --set ps.mode=async --set ps.staleness=32")
one() { # NAME ARGS...: runs scenarios/tta.xml, keeps its CSV, JSON and text
    local name=$1
    shift
    $dm run scenarios/tta.xml "$@" --csv "out/tta-$name.csv" --json "out/tta-$name.json" \
        >"out/tta-$name.txt"
    evals "out/tta-$name.csv" >"out/tta-$name-evals.csv"
}
j=$(nproc)
n=0
for proxy in "" resnet50; do
    for r in "${runs[@]}"; do
        # shellcheck disable=SC2086
        one "${r%%|*}${proxy:+-$proxy}" ${r#*|} ${proxy:+--set numerics.cost-model=$proxy} &
        n=$((n + 1))
        if [ $((n % j)) -eq 0 ]; then wait; fi
    done
done
$dm run scenarios/numerics-faults.xml --csv out/accuracy-faults.csv >out/accuracy-faults.txt &
$dm run scenarios/numerics-split.xml --csv out/accuracy-split.csv >out/accuracy-split.txt &
wait
for sh in none buffer epoch; do
    $dm run scenarios/numerics-shuffle.xml --set data.shuffle=$sh \
        --csv "out/accuracy-shuffle-$sh.csv" >"out/accuracy-shuffle-$sh.txt" &
done
wait
for sh in none buffer epoch; do
    evals "out/accuracy-shuffle-$sh.csv" >"out/accuracy-shuffle-$sh-evals.csv"
    printf "# shuffle %-7s on files by class: accuracy %s\n" "$sh" \
        "$(sed -n 's/^#   accuracy *//p' "out/accuracy-shuffle-$sh.txt")"
done
# split brain: the store side's evaluations and the other side's (";side=K" rows), and the
# partition, heal and merge times as "t_s,kind"
awk -F, 'BEGIN { for (f = 0; f < 2; f++) print "t_s,step,accuracy,loss" >"out/accuracy-split-" f ".csv" }
    $1 == "eval" { split($9, a, /[=;]/); f = $9 ~ /side=/ ? "1" : "0"
    print $2 "," $3 "," a[2] "," a[4] >"out/accuracy-split-" f ".csv" }' out/accuracy-split.csv
awk -F, 'BEGIN { print "t_s,kind" } ($1 == "fault" && $9 ~ /g0/) || ($1 == "recovery" && $9 ~ /^"merge/) {
    print $2 "," ($1 == "fault" ? "fault" : "merge") }' out/accuracy-split.csv >out/accuracy-split-events.csv
evals out/accuracy-faults.csv >out/accuracy-faults-evals.csv
# its faults, new memberships and counted checkpoints as "t_s,kind"
awk -F, 'BEGIN { print "t_s,kind" } $1 == "fault" || $1 == "checkpoint" || ($1 == "recovery" && $9 ~ /membership/) {
    print $2 "," $1 }' out/accuracy-faults.csv >out/accuracy-faults-events.csv

field() { sed -n "s/^#   $2 *//p" "$1" | head -1; }
for proxy in "" -resnet50; do
    cost="the MLP's own"
    [ -n "$proxy" ] && cost="ResNet-50's (cost-model proxy)"
    echo "# each step's cost: $cost"
    printf "# %-9s %-34s %-12s %s\n" run "time to 82% (simulated)" "final acc." "gradients"
    for r in "${runs[@]}"; do
        f="out/tta-${r%%|*}$proxy.txt"
        printf "  %-9s %-34s %-12s %s\n" "${r%%|*}" "$(field "$f" 'time to target')" \
            "$(field "$f" accuracy | cut -d' ' -f1)" "$(field "$f" gradients)"
    done
done
echo
$dm sweep scenarios/numerics-lr.xml --set training.gpus=1,2,4,8,16 --set numerics.lr-scaling=none \
    -j "$j" -o out/lr-none.txt --csv out/lr-none.csv
$dm sweep scenarios/numerics-lr.xml --set training.gpus=1,2,4,8,16 \
    --set numerics.lr-scaling=linear -j "$j" -o out/lr-linear.txt --csv out/lr-linear.csv

. tools/plot.sh
# the target line's value, from the scenario; runs whose evaluations are the same (async PS at
# tau 8 and 32 when no worker lags 8 versions) named in the key as one curve
target=$(sed -n 's/.*target-accuracy="\([0-9.]*\)".*/\1/p' scenarios/tta.xml)
same() { # SUFFIX: "tau 8 = tau 32" when their evaluations are the same
    cmp -s "out/tta-async-8$1-evals.csv" "out/tta-async-32$1-evals.csv" && echo 1 || echo 0
}
plot tta scenarios/tta.xml "dir='out'; target=$target; same832=$(same '')"
plot tta-resnet50 scenarios/tta.xml \
    "dir='out'; sfx='-resnet50'; unit='s'; target=$target; same832=$(same -resnet50)" tta
plot accuracy-faults scenarios/numerics-faults.xml \
    "ev='out/accuracy-faults-events.csv'; dat='out/accuracy-faults-evals.csv'"
plot accuracy-split scenarios/numerics-split.xml "dir='out'"
plot accuracy-shuffle scenarios/numerics-shuffle.xml "dir='out'"
plot lr-scaling scenarios/numerics-lr.xml "none='out/lr-none.csv'; linear='out/lr-linear.csv'"
echo "plots: out/tta.$fmt out/tta-resnet50.$fmt out/accuracy-faults.$fmt out/accuracy-split.$fmt" \
    "out/accuracy-shuffle.$fmt out/lr-scaling.$fmt (data: out/)"
