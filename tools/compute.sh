#!/usr/bin/env bash
# compute.sh - single-GPU training throughput of the presets against published per-GPU figures
# and against the H200 figures measured by kernels/torch-bench.py. One row per published run: the
# scenario as that run trained (GPU, dtype, batch, optimizer, the model's heads and attention as
# benchmarked), one step on one GPU, no communication; prints simulated and published samples/s,
# the error, and the geometric-mean and largest errors. Sources (README, Compute):
#   [DLE-RN50-PT]  NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/
#                  README.md (commit 291f0d0), pytorch-21.03, 1 GPU of a DGX A100 80GB / DGX-1
#                  V100 32GB, batch from configs.yml
#   [DLE-RN50-MX]  DeepLearningExamples MxNet/Classification/RN50v1.5/README.md (commit 134510b),
#                  mxnet-20.12, A100 80GB; V100 16GB
#   [DLE-BERT-PT]  DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md: A100 80GB,
#                  pytorch 21.11; V100 32GB, the March 2020 revision (pytorch 19.07)
#   [LAMBDA-TF]    LambdaColdStorage/lambda-tensorflow-benchmark (commit 080a6b7):
#                  tf-train-throughput-fp32.csv / -fp16.csv, batch from tf-train-bs-*.csv; TF1
#                  tf_cnn_benchmarks, synthetic data; "fp32" on A100 is TF32 (NGC TF's default)
#   [FOUNDRY]      mosaicml/llm-foundry scripts/train/benchmarking/README.md (commit c90b9b3): MPT
#                  models, seq 2048, 8 GPUs with FSDP, tokens/s/GPU / 2048
#   [DLPERF-GPT]   Oneflow-Inc/DLPerf reports/GPT/dlperf_gpt_test_report_210512.md: Megatron-LM
#                  GPT 117M (12 x 768, vocabulary 51200), seq 2048, 1 V100-SXM2-16GB
#   [H200-OURS]    kernels/measured/h200-2026-12-04/frameworks.txt (measured, not published)
# A benchmark: nothing is asserted. Build first (tools/setup.sh).
#   tools/compute.sh [--calib FILE]   (with a profile: only the rows of the profile's GPU)
set -euo pipefail
cd "$(dirname "$0")/.."
extra=("$@")
only=""
if [ "${1:-}" = --calib ]; then
    only=$("${DMLSIM:-build/dmlsim}" calib "$2" | sed -n 's/^# gpu .*(catalog: \([a-z0-9-]*\)).*/\1/p')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BP='preset="bert-large" head="pretraining" attention="materialised"'
BS='preset="bert-large" head="squad" attention="materialised"'
# label|gpu|dtype|batch|optimizer|<model> attributes|published samples/s|source[|<training> attrs]
# PyTorch AMP, TF1 fp16 (FP32 variables cast each step) and Composer amp_bf16 are autocast;
# MXNet --dtype float16 is a pure FP16 model with FP32 master weights (multi-precision SGD).
rows="ResNet-50_v1.5|v100|fp32|112|momentum|preset=\"resnet50\"|356|DLE-RN50-PT
ResNet-50_v1.5|v100|fp16|256|momentum|preset=\"resnet50\"|1156|DLE-RN50-PT|amp=\"autocast\"
ResNet-50_v1.5|a100|tf32|256|momentum|preset=\"resnet50\"|938|DLE-RN50-PT
ResNet-50_v1.5|a100|fp16|256|momentum|preset=\"resnet50\"|2470|DLE-RN50-PT|amp=\"autocast\"
ResNet-50_v1.5|a100|tf32|256|momentum|preset=\"resnet50\"|1022|DLE-RN50-MX
ResNet-50_v1.5|a100|fp16|256|momentum|preset=\"resnet50\"|2180|DLE-RN50-MX
ResNet-50_v1.5|v100|fp32|96|momentum|preset=\"resnet50\"|384|DLE-RN50-MX
ResNet-50_v1.5|v100|fp16|192|momentum|preset=\"resnet50\"|1376|DLE-RN50-MX
VGG-16|v100|fp32|192|momentum|preset=\"vgg16\"|249|LAMBDA-TF
VGG-16|v100|fp16|384|momentum|preset=\"vgg16\"|456|LAMBDA-TF|amp=\"autocast\"
VGG-16|a100-40gb|tf32|224|momentum|preset=\"vgg16\"|504|LAMBDA-TF
VGG-16|a100-40gb|fp16|448|momentum|preset=\"vgg16\"|1190|LAMBDA-TF|amp=\"autocast\"
Inception-v3|v100|fp32|192|momentum|preset=\"inception-v3\"|273|LAMBDA-TF
Inception-v3|v100|fp16|384|momentum|preset=\"inception-v3\"|771|LAMBDA-TF|amp=\"autocast\"
Inception-v3|a100-40gb|tf32|224|momentum|preset=\"inception-v3\"|627|LAMBDA-TF
Inception-v3|a100-40gb|fp16|360|momentum|preset=\"inception-v3\"|1222|LAMBDA-TF|amp=\"autocast\"
BERT-large_phase1|v100|fp32|32|adam|$BP seq=\"128\"|40.32|DLE-BERT-PT
BERT-large_phase1|v100|fp16|64|adam|$BP seq=\"128\"|171.52|DLE-BERT-PT|amp=\"autocast\"
BERT-large_phase1|a100|tf32|128|adam|$BP seq=\"128\"|317|DLE-BERT-PT
BERT-large_phase1|a100|fp16|256|adam|$BP seq=\"128\"|580|DLE-BERT-PT|amp=\"autocast\"
BERT-large_phase2|a100|tf32|16|adam|$BP seq=\"512\"|110|DLE-BERT-PT
BERT-large_phase2|a100|fp16|32|adam|$BP seq=\"512\"|210|DLE-BERT-PT|amp=\"autocast\"
BERT-large_SQuAD|v100|fp32|8|adam|$BS seq=\"384\"|8.64|DLE-BERT-PT
BERT-large_SQuAD|v100|fp16|8|adam|$BS seq=\"384\"|36.04|DLE-BERT-PT|amp=\"autocast\"
BERT-large_SQuAD|a100|tf32|32|adam|$BS seq=\"384\"|61.5|DLE-BERT-PT
BERT-large_SQuAD|a100|fp16|32|adam|$BS seq=\"384\"|110.5|DLE-BERT-PT|amp=\"autocast\"
MPT-125M_s2048|a100|bf16|40|adam|preset=\"gpt\" seq=\"2048\" vocab=\"50368\"|69.74|FOUNDRY|amp=\"autocast\"
MPT-350M_s2048|a100|bf16|32|adam|preset=\"gpt\" layers=\"24\" hidden=\"1024\" heads=\"16\" seq=\"2048\" vocab=\"50368\"|28.70|FOUNDRY|amp=\"autocast\"
MPT-760M_s2048|a100|bf16|24|adam|preset=\"gpt\" layers=\"24\" hidden=\"1536\" heads=\"12\" seq=\"2048\" vocab=\"50368\"|15.84|FOUNDRY|amp=\"autocast\"
MPT-1B_s2048|a100|bf16|14|adam|preset=\"gpt\" layers=\"24\" hidden=\"2048\" heads=\"16\" seq=\"2048\" vocab=\"50368\"|10.02|FOUNDRY|amp=\"autocast\"
MPT-760M_s2048|h100|bf16|24|adam|preset=\"gpt\" layers=\"24\" hidden=\"1536\" heads=\"12\" seq=\"2048\" vocab=\"50368\"|30.83|FOUNDRY|amp=\"autocast\"
MPT-1B_s2048|h100|bf16|14|adam|preset=\"gpt\" layers=\"24\" hidden=\"2048\" heads=\"16\" seq=\"2048\" vocab=\"50368\"|22.19|FOUNDRY|amp=\"autocast\"
ResNet-50_v1.5|h200|fp32|256|momentum|preset=\"resnet50\"|1059.9|H200-OURS
ResNet-50_v1.5|h200|tf32|256|momentum|preset=\"resnet50\"|2191.0|H200-OURS
ResNet-50_v1.5|h200|fp16|256|momentum|preset=\"resnet50\"|5594.6|H200-OURS|amp=\"autocast\"
ResNet-50_v1.5|h200|bf16|256|momentum|preset=\"resnet50\"|4594.2|H200-OURS|amp=\"autocast\"
BERT-large_phase1|h200|fp32|64|adam|preset=\"bert-large\" head=\"pretraining\" seq=\"128\"|173.8|H200-OURS
BERT-large_phase1|h200|tf32|64|adam|preset=\"bert-large\" head=\"pretraining\" seq=\"128\"|589.4|H200-OURS
BERT-large_phase1|h200|fp16|64|adam|preset=\"bert-large\" head=\"pretraining\" seq=\"128\"|845.8|H200-OURS|amp=\"autocast\"
BERT-large_phase1|h200|bf16|64|adam|preset=\"bert-large\" head=\"pretraining\" seq=\"128\"|947.7|H200-OURS|amp=\"autocast\""
printf "#%-17s %9s %5s %5s %10s %10s %7s %6s  %s\n" model gpu dtype batch simulated published error "%peak" source
printf "#%-17s %9s %5s %5s %10s %10s %7s %6s\n" "" "" "" "" "(sample/s)" "(sample/s)" "(%)" ""
while IFS='|' read -r what gpu dt batch opt mattr pub src tattr; do
    [ -n "$only" ] && [ "$gpu" != "$only" ] && continue
    cat >"$tmp/s.xml" <<XML
<scenario name="compute">
  <cluster nodes="1" gpus-per-node="1" gpu="$gpu"/>
  <model $mattr/>
  <training strategy="allreduce" batch-per-gpu="$batch" steps="1" dtype="$dt" optimizer="$opt" $tattr/>
</scenario>
XML
    "${DMLSIM:-build/dmlsim}" run "$tmp/s.xml" --json "$tmp/s.json" "${extra[@]}" >/dev/null
    sim=$(sed -n 's/^ *"throughput": \([-0-9.e+]*\),$/\1/p' "$tmp/s.json")
    frac=$(sed -n 's/^ *"compute_peak_fraction": \([-0-9.e+]*\),$/\1/p' "$tmp/s.json")
    awk -v w="$what" -v g="$gpu" -v d="$dt" -v b="$batch" -v s="$sim" -v p="$pub" -v f="$frac" \
        -v src="$src" 'BEGIN { printf " %-17s %9s %5s %5d %10.1f %10.1f %+7.1f %6.1f  %s\n",
                                w, g, d, b, s, p, 100 * (s - p) / p, 100 * f, src }'
done <<<"$rows" | tee "$tmp/table"
awk '/^ / { e = $5 / $6; l = log(e); if (l < 0) l = -l; s += l; n++; if (l > m) m = l }
     END { printf "# %d rows: geometric-mean error %.1f%%, largest %.1f%%\n", n,
                  100 * (exp(s / n) - 1), 100 * (exp(m) - 1) }' "$tmp/table"
