#!/usr/bin/env bash
# parallel.sh - model FLOPs utilisation against the split of 16 GPUs into tensor x pipeline x
# data parallelism, for Llama 3 8B (scenarios/llama3-8b-hybrid.xml: two nodes of 8 H100, a
# global batch of 32 sequences of 8192 tokens in microbatches of one, ZeRO-1, full
# recomputation). Each split is one run (microbatches = 32 / dp); draws out/parallel.png from
# their summaries (out/parallel.csv, a CSV with a header row) and prints the table (out/parallel.svg or .pdf with DMLSIM_PLOT_FORMAT, see
# tools/plot.sh). Build first (tools/main.sh calls it).
#   tools/parallel.sh [build/dmlsim]
set -euo pipefail
cd "$(dirname "$0")/.."
dm=${1:-build/dmlsim}
mkdir -p out
splits=("1 1 16" "2 1 8" "4 1 4" "8 1 2" "1 2 8" "2 2 4" "4 2 2" "8 2 1" "1 4 4" "2 4 2"
        "4 4 1" "2 8 1")
j=$(nproc)
n=0
for s in "${splits[@]}"; do
    set -- $s
    "$dm" run scenarios/llama3-8b-hybrid.xml --set parallel.tp="$1" --set parallel.pp="$2" \
        --set parallel.dp="$3" --set parallel.microbatches=$(( 32 / $3 )) \
        >"out/parallel-$1-$2-$3.txt" &
    n=$((n + 1))
    if [ $((n % j)) -eq 0 ]; then wait; fi
done
wait
echo "split,mfu_pct,tensor_ms,bubble_ms,data_ms,step_ms" >out/parallel.csv
printf "# %-10s %8s %10s %12s %10s %10s %10s\n" "tp x pp x dp" "MFU (%)" "step (ms)" \
    "tensor (ms)" "bubble (ms)" "data (ms)" "memory (GB)"
for s in "${splits[@]}"; do
    set -- $s
    f="out/parallel-$1-$2-$3.txt"
    mfu=$(sed -n 's/^#   parallel *MFU \([0-9.]*\)%.*/\1/p' "$f")
    step=$(sed -n 's/.*mean step \([0-9.]*\) ms.*/\1/p' "$f")
    read -r tp bub dpt < <(sed -n 's/^#   step breakdown.*tensor-parallel \([0-9.]*\) ms + bubble \([0-9.]*\) ms + data-parallel \([0-9.]*\) ms.*/\1 \2 \3/p' "$f")
    mem=$(sed -n 's/^# memory\/gpu *\([0-9.]*\) GB.*/\1/p' "$f")
    printf "  %-12s %8s %10s %12s %10s %10s %10s\n" "$1x$2x$3" "$mfu" "$step" "$tp" "$bub" "$dpt" "$mem"
    echo "$1x$2x$3,$mfu,$tp,$bub,$dpt,$step" >>out/parallel.csv
done
. tools/plot.sh
plot parallel scenarios/llama3-8b-hybrid.xml "dat='out/parallel.csv'"
echo "plot: out/parallel.$fmt (data: out/parallel.csv)"
