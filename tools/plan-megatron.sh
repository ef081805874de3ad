#!/usr/bin/env bash
# plan-megatron.sh - does `dmlsim plan` find the layouts Megatron-LM published? For each row of
# Narayanan et al., SC'21, Table 1 (A100-80GB on Selene, sequence 2048, vocabulary 51200; each
# row's TP, PP, micro-batch and global batch from NVIDIA/Megatron-LM examples/sc21/run_table_1.sh;
# docs/research/issue32-sources.md) and of Korthikanti et al. 2022 (Tables 3 and 5: 22B and 175B,
# TP 8, no data parallelism), plan lays out scenarios/megatron-7.5b.xml with the row's cluster,
# model and global batch, and this prints where the published tp x pp first appears in plan's
# ranking: by the first-order estimate over every layout (all rows), and among the K simulated
# (rows marked "sim": their simulation takes seconds a layout). What Megatron-LM had in 2021 is
# kept as the runs had it (--fix zero,recompute,sequence-parallel: no distributed optimizer, full
# recomputation, no sequence parallelism); FIX="" lets plan choose those too. A benchmark, not a
# test.
#   tools/plan-megatron.sh [build/dmlsim]
set -euo pipefail
cd "$(dirname "$0")/.."
dm=${1:-build/dmlsim}
mkdir -p out/plan-megatron
fix=${FIX-zero,recompute,sequence-parallel}
fixopt=(); [ -n "$fix" ] && fixopt=(--fix "$fix")
# name nodes layers hidden heads tp pp global-batch simulate
rows=("1.7B 4 24 2304 24 1 1 512 sim"
      "3.6B 8 30 3072 32 2 1 512 sim"
      "7.5B 16 36 4096 32 4 1 512 sim"
      "18B 32 40 6144 48 8 1 1024 est"
      "39B 64 48 8192 64 8 2 1536 est"
      "76B 128 60 10240 80 8 4 1792 est"
      "145B 192 80 12288 96 8 8 2304 est"
      "310B 240 96 16384 128 8 16 2160 est"
      "530B 315 105 20480 128 8 35 2520 est"
      "1T 384 128 25600 160 8 64 3072 est"
      "22B-K 1 48 6144 64 8 1 4 sim"
      "175B-K 8 96 12288 96 8 8 64 est")
printf "# %-7s %5s %9s %13s %15s %15s  %s\n" row GPUs published "rank (est)" "rank (sim)" \
    "plan's best" "(rank: first layout with the published tp x pp; - none)"
for r in "${rows[@]}"; do
    set -- $r
    gpus=$(( $2 * 8 ))
    sets=(--set cluster.nodes="$2" --set model.layers="$3" --set model.hidden="$4"
          --set model.heads="$5" --set parallel.tp=1 --set parallel.pp=1 --set parallel.dp="$gpus"
          --set training.batch-per-gpu=1 --set parallel.microbatches=$(( $8 / gpus )))
    if [ $(( $8 % gpus )) -ne 0 ]; then
        sets+=(--set parallel.dp=1 --set parallel.microbatches="$8" --set parallel.tp=8
               --set parallel.pp=$(( gpus / 8 )))
    fi
    est=out/plan-megatron/$1-est.txt
    "$dm" plan scenarios/megatron-7.5b.xml "${sets[@]}" "${fixopt[@]}" --estimate-only --top 64 \
        -o "out/plan-megatron/$1-est" >"$est" 2>/dev/null
    rank() { awk -v tp="$1" -v pp="$2" '$1 ~ /^[0-9]+$/ && $3 == tp && $5 == pp { print $1; exit }' "$3"; }
    re=$(rank "$6" "$7" "$est"); rs=-
    best=$(awk '$1 == "1" { print $2 $3 "x" $5 "x" $7 " b" $9; exit }' "$est")
    if [ "$9" = sim ]; then
        sim=out/plan-megatron/$1-sim.txt
        "$dm" plan scenarios/megatron-7.5b.xml "${sets[@]}" "${fixopt[@]}" -o "out/plan-megatron/$1-sim" \
            >"$sim" 2>/dev/null
        rs=$(rank "$6" "$7" "$sim")
        best=$(awk '$1 == "1" { print $2 $3 "x" $5 "x" $7 " b" $9; exit }' "$sim")
    fi
    printf "  %-7s %5d %9s %13s %15s %15s\n" "$1" "$gpus" "$6x$7" "${re:--}" "${rs:--}" "$best"
done
