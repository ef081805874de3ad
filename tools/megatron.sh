#!/usr/bin/env bash
# megatron.sh - the hybrid strategy against Megatron-LM's published weak scaling (Narayanan et
# al., SC'21, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
# Table 1, A100-80GB on Selene), each row's settings from NVIDIA/Megatron-LM
# examples/sc21/run_table_1.sh (TP, PP, micro-batch, global batch, layers, hidden, heads, nodes;
# full recomputation). Runs scenarios/megatron-7.5b.xml with each row's settings and prints the
# simulated step and the TFLOP/s per GPU by the paper's formula F = 96 B s l h^2 (1 + s/6h +
# V/16lh) over the step and the GPUs, against the published figure. A benchmark, not a test
# (the 18B row simulates about 30,000 tensor-parallel collectives: ~1.5 min on one core); the
# 39B row and up (pipelines of 12 microbatches and more) are left out for their run time.
# Further arguments go to each run, e.g. --set parallel.overlap-grad-reduce=yes (Megatron's
# --overlap-grad-reduce: the all-reduce in buckets during the backward).
#   tools/megatron.sh [build/dmlsim [--set ...]...]
set -euo pipefail
cd "$(dirname "$0")/.."
dm=${1:-build/dmlsim}
extra=("${@:2}")
mkdir -p out
# name nodes layers hidden heads tp pp dp micro-batch microbatches published-TFLOP/s global-batch
rows=("1.7B 4 24 2304 24 1 1 32 16 1 137 512"
      "3.6B 8 30 3072 32 2 1 32 16 1 138 512"
      "7.5B 16 36 4096 32 4 1 32 16 1 142 512"
      "18B 32 40 6144 48 8 1 32 8 4 135 1024")
run_row() {
    set -- $1
    "$dm" run scenarios/megatron-7.5b.xml --set cluster.nodes="$2" --set model.layers="$3" \
        --set model.hidden="$4" --set model.heads="$5" --set parallel.tp="$6" \
        --set parallel.pp="$7" --set parallel.dp="$8" --set training.batch-per-gpu="$9" \
        --set parallel.microbatches="${10}" "${extra[@]}" >"out/megatron-$1.txt"
}
for r in "${rows[@]}"; do run_row "$r" & done
wait
printf "# %-6s %5s %3s %3s %4s %11s %12s %10s %7s %s\n" model GPUs tp pp dp "step (s)" \
    "TFLOP/s/GPU" published error "MFU (no recompute)"
for r in "${rows[@]}"; do
    set -- $r
    step=$(sed -n 's/.*mean step \([0-9.]*\) ms.*/\1/p' "out/megatron-$1.txt")
    mfu=$(sed -n 's/^#   parallel *MFU \([0-9.]*\)%.*/\1/p' "out/megatron-$1.txt")
    awk -v n="$1" -v N=$(( $2 * 8 )) -v l="$3" -v h="$4" -v tp="$6" -v pp="$7" -v dp="$8" \
        -v B="${12}" -v T="$step" -v pub="${11}" -v mfu="$mfu" 'BEGIN {
        s = 2048; V = 51200; T /= 1000
        F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
        x = F / T / N / 1e12
        printf "  %-6s %5d %3d %3d %4d %11.3f %12.1f %10d %+6.1f%% %s%%\n", n, N, tp, pp, dp, T, x, pub, 100 * (x - pub) / pub, mfu }'
done
