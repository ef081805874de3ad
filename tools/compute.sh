#!/usr/bin/env bash
# compute.sh - single-GPU training throughput of the presets against published per-GPU figures
# (NVIDIA DeepLearningExamples, PyTorch; sources in the README's compute table) and against the
# H200 figures measured by kernels/torch-bench.py (kernels/measured/h200-2026-12-04/frameworks.txt:
# PyTorch 2.11 eager, synthetic data; BERT with its pre-training heads). One training step
# per row on one GPU, no communication; prints simulated and published samples/s and the error.
# A benchmark: nothing is asserted. Build first (tools/setup.sh).
#   tools/compute.sh [--calib FILE]   (with a profile: only the rows of the profile's GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
extra=("$@")
only=""
if [ "${1:-}" = --calib ]; then
    only=$(build/dmlsim calib "$2" | sed -n 's/^# gpu .*(catalog: \([a-z0-9]*\)).*/\1/p')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gpu dtype preset seq batch optimizer published what
rows="v100 fp32 resnet50 0 112 momentum 356 ResNet-50_v1.5
v100 fp16 resnet50 0 256 momentum 1156 ResNet-50_v1.5
a100 tf32 resnet50 0 256 momentum 938 ResNet-50_v1.5
a100 fp16 resnet50 0 256 momentum 2470 ResNet-50_v1.5
v100 fp32 bert-large 128 32 adam 40.32 BERT-large_phase1
v100 fp16 bert-large 128 64 adam 171.52 BERT-large_phase1
a100 tf32 bert-large 128 128 adam 317 BERT-large_phase1
a100 fp16 bert-large 128 256 adam 580 BERT-large_phase1
v100 fp32 bert-large 384 8 adam 8.64 BERT-large_SQuAD
v100 fp16 bert-large 384 8 adam 36.04 BERT-large_SQuAD
a100 tf32 bert-large 384 32 adam 61.5 BERT-large_SQuAD
a100 fp16 bert-large 384 32 adam 110.5 BERT-large_SQuAD
h200 fp32 resnet50 0 256 momentum 1059.9 ResNet-50_v1.5
h200 tf32 resnet50 0 256 momentum 2191.0 ResNet-50_v1.5
h200 fp16 resnet50 0 256 momentum 5594.6 ResNet-50_v1.5
h200 bf16 resnet50 0 256 momentum 4594.2 ResNet-50_v1.5
h200 fp32 bert-large 128 64 adam 173.8 BERT-large_phase1
h200 tf32 bert-large 128 64 adam 589.4 BERT-large_phase1
h200 fp16 bert-large 128 64 adam 845.8 BERT-large_phase1
h200 bf16 bert-large 128 64 adam 947.7 BERT-large_phase1"
printf "#%-18s %5s %5s %6s %12s %12s %8s %8s\n" model gpu dtype batch simulated published error "%peak"
printf "#%-18s %5s %5s %6s %12s %12s %8s %8s\n" "" "" "" "" "(samples/s)" "(samples/s)" "(%)" ""
while read -r gpu dt preset seq batch opt pub what; do
    [ -n "$only" ] && [ "$gpu" != "$only" ] && continue
    seqattr=""
    [ "$seq" != 0 ] && seqattr=" seq=\"$seq\""
    cat >"$tmp/s.xml" <<XML
<scenario name="compute-$preset-$gpu-$dt">
  <cluster nodes="1" gpus-per-node="1" gpu="$gpu"/>
  <model preset="$preset"$seqattr/>
  <training strategy="allreduce" batch-per-gpu="$batch" steps="1" dtype="$dt" optimizer="$opt"/>
</scenario>
XML
    build/dmlsim run "$tmp/s.xml" --json "$tmp/s.json" "${extra[@]}" >/dev/null
    sim=$(sed -n 's/^ *"throughput": \([-0-9.e+]*\),$/\1/p' "$tmp/s.json")
    frac=$(sed -n 's/^ *"compute_peak_fraction": \([-0-9.e+]*\),$/\1/p' "$tmp/s.json")
    awk -v w="$what" -v g="$gpu" -v d="$dt" -v b="$batch" -v s="$sim" -v p="$pub" -v f="$frac" \
        'BEGIN { printf " %-18s %5s %5s %6d %12.1f %12.1f %+8.1f %8.1f\n", w, g, d, b, s, p, 100 * (s - p) / p, 100 * f }'
done <<<"$rows"
