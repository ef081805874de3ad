#!/usr/bin/env bash
# campaign-llama3.sh - the README's worked example: Llama 3 405B's layout (tp 8 x pp 16, 16M-token
# batches: scenarios/campaigns/llama3-405b.xml) with Table 5's failure mix over Meta's 54-day
# period: ETTR, GPU-hours, energy and cost, and the sweep of the checkpoint interval against
# spare nodes with its plot.
#   tools/campaign-llama3.sh [PATH/TO/dmlsim] [OUTDIR] [DP]
# DP: data-parallel replicas (default 8: 1,024 GPUs, whose costs take about 50 CPU s on the
# 2-core development machine; 2 spare nodes; 128 is Meta's 16,384 GPUs, whose recovery run did not finish in 45
# CPU minutes, README). The batch of a replica stays 16 microbatches of 8,192 tokens.
# The price is AWS's EC2 Capacity Blocks rate for p5 (H100), $4.916 a GPU-hour (late 2024); the
# PUE Meta's 1.09 for its data centres finished in 2021 (docs/research/issue33-sources.md).
set -eu
dmlsim=${1:-build/dmlsim}
out=${2:-out/campaign-llama3}
dp=${3:-8}
mkdir -p "$out"
"$dmlsim" campaign scenarios/campaigns/llama3-405b.xml -j 1 --price 4.916 --pue 1.09 \
    --set cluster.nodes=$((dp * 16)) --set parallel.dp="$dp" --set campaign.spares=2 \
    --every 10,30,100,300,1000 --spares 0,2,8 -o "$out" --json "$out/campaign.json" \
    | tee "$out/campaign.txt"
