#!/usr/bin/env bash
# campaign-llama3.sh - the README's worked example: Llama 3 405B on 16,384 H100 for Meta's
# 54-day period with Table 5's failure mix (scenarios/campaigns/llama3-405b.xml), its ETTR,
# GPU-hours, energy and cost, and the sweep of the checkpoint interval against spare nodes with
# its plot. The costs are one dmlsim run of the full job with a crash (about 15-25 CPU minutes
# on the 2-core development machine, 1.4 GB); the campaign's replications take seconds.
#   tools/campaign-llama3.sh [PATH/TO/dmlsim] [OUTDIR]   (default build/dmlsim, out/campaign-llama3)
# The price is AWS's EC2 Capacity Blocks rate for p5 (H100), $4.916 a GPU-hour (late 2024,
# docs/research/issue33-sources.md); the PUE Meta's 1.09 for its data centres finished in 2021
# (Meta sustainability report, same file).
set -eu
dmlsim=${1:-build/dmlsim}
out=${2:-out/campaign-llama3}
mkdir -p "$out"
"$dmlsim" campaign scenarios/campaigns/llama3-405b.xml -j 1 --price 4.916 --pue 1.09 \
    --every 10,20,30,50,100,200,400 --spares 0,8,32,64 -o "$out" --json "$out/campaign.json" \
    --keep-runs "$out/runs" | tee "$out/campaign.txt"
