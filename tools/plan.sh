#!/usr/bin/env bash
# plan.sh - `dmlsim plan` on Llama 3 70B on 64 H100 (scenarios/llama3-70b-plan.xml, a global
# batch of 128 x 8192 tokens): the layouts enumerated, set aside and estimated, the best 8
# simulated (one at a time a core) and ranked; the table, each layout's scenario and the plot
# (plots/plan.gp: simulated step, estimate and MFU of each) into out/plan/. Build first
# (tools/main.sh calls it).
#   tools/plan.sh [build/dmlsim]
set -euo pipefail
cd "$(dirname "$0")/.."
dm=${1:-build/dmlsim}
mkdir -p out
"$dm" plan scenarios/llama3-70b-plan.xml -j "$(nproc)" -o out/plan
