#!/usr/bin/env bash
# main.sh - the main job: set up and build (tools/setup.sh), simulate the default scenario
# (ResNet-50 on two 8 x H100 nodes with NCCL all-reduce), then draw these plots into out/:
#   ps-vs-ring.png  parameter server (1 shard, 8 shards) vs NCCL all-reduce, 1 to 64 A100s
#   scaling.png     NCCL all-reduce scaling, 1 to 64 GPUs of the shipped 32 x 8 H100 fat-tree
#   staleness.png   asynchronous parameter server against the staleness bound (drop, bounded)
#   faults.png      throughput over time through a crash, a partition and a straggler
#   input.png       the input pipeline: samples/s and the wait for batches against the loader
#                   workers per GPU and the prefetch depth
#   parallel.png    Llama 3 8B on 16 H100: MFU and the step's breakdown against tensor x
#                   pipeline x data parallelism (tools/parallel.sh)
#   plan/plan.png   dmlsim plan on Llama 3 70B on 64 H100: the best 8 layouts simulated, with
#                   their estimates and MFU (tools/plan.sh; out/plan/ holds the table and the
#                   scenario of each)
#   recsys/recsys.png  DLRM-DCNv2 on 8 to 32 H100: the sparse parameter server, Persia's hybrid
#                   and the DLRM / TorchRec layout in one sweep (tools/recsys.sh)
# and a recommender trained for real on generated click data through the sync and async
# parameter server (tools/clicks.sh: its accuracy against the Bayes classifier's),
# and, training a real MLP on Fashion-MNIST through the simulated protocols (tools/tta.sh):
#   tta.png         test accuracy over time: ring, sync PS, async PS at tau 0, 2, 8, 32
#   accuracy-faults.png  accuracy through a crash and a partition, rolled back to checkpoints
#   lr-scaling.png  accuracy and time to 82% against the workers, lr-scaling none and linear
#   accuracy-shuffle.png  accuracy on files stored by class: no shuffle, a buffer, an epoch shuffle
#
#   tools/main.sh [--format png|svg|pdf]
# --format picks the format of the plots this script draws itself (ps-vs-ring, scaling,
# staleness, faults, input: out/NAME.png, .svg or .pdf; gnuplot's pngcairo, svg or pdfcairo
# terminal, see plots/terminal.gp); default png; tools/parallel.sh and tools/tta.sh draw theirs
# in it too (DMLSIM_PLOT_FORMAT, tools/plot.sh). Each plot states its scenario and that
# scenario's seed, read from dmlsim's own header.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=png
while [ $# -gt 0 ]; do
    case "$1" in
    --format) [ $# -ge 2 ] || { echo "main.sh: --format needs a value; expected png, svg or pdf" >&2; exit 1; }
              fmt=$2; shift 2 ;;
    --format=*) fmt=${1#--format=}; shift ;;
    -h|--help) sed -n 's/^#   tools\/main.sh/tools\/main.sh/p' "$0"; exit 0 ;;
    *) echo "main.sh: unknown option $1; expected --format png|svg|pdf" >&2; exit 1 ;;
    esac
done
case "$fmt" in
png|svg|pdf) ;;
*) echo "main.sh: --format $fmt: expected png, svg or pdf" >&2; exit 1 ;;
esac
tools/setup.sh
build/dmlsim run scenarios/resnet50-ring.xml
mkdir -p out
j=$(nproc)
gpus=1,2,4,8,16,32,64
# each sweep's table as text (-o) and as CSV with a header row (--csv): the plots read the CSVs
# by column name
sweep() { build/dmlsim sweep "$@" -j "$j"; echo; }

echo
sweep scenarios/ps-vs-ring.xml --set training.strategy=ps --set ps.shards=1 \
    --set training.gpus=$gpus -o out/ps1.txt --csv out/ps1.csv
shards=8
sweep scenarios/ps-vs-ring.xml --set training.strategy=ps --set ps.shards=$shards \
    --set training.gpus=$gpus -o out/psk.txt --csv out/psk.csv
sweep scenarios/ps-vs-ring.xml --set training.strategy=allreduce \
    --set training.gpus=$gpus -o out/ring.txt --csv out/ring.csv
sweep scenarios/scaling.xml --set training.gpus=$gpus -o out/scaling.txt --csv out/scaling.csv
sweep scenarios/staleness.xml --set ps.staleness=0,1,2,4,8,16 -o out/staleness.txt --csv out/staleness.csv
sweep scenarios/staleness.xml --set ps.consistency=bounded --set ps.staleness=0,1,2,4,8,16 \
    -o out/staleness-bounded.txt --csv out/staleness-bounded.csv
for p in 1 2 4; do
    sweep scenarios/input.xml --set data.loader-workers=0,1,2,3,4,6,8,12 --set data.prefetch=$p \
        -o out/input-p$p.txt --csv out/input-p$p.csv
done

build/dmlsim run scenarios/faults.xml --csv out/faults.csv |
    grep -E '^# *(steps committed|detect|checkpoints|goodput|gradients .*computed|samples .*read|accounting|expect)'
echo

# plot NAME SCENARIO VARIABLES (tools/plot.sh): plots/NAME.gp into out/NAME.$fmt, with the
# scenario and its seed under the title.
dm=build/dmlsim
export DMLSIM_PLOT_FORMAT=$fmt
. tools/plot.sh
plot ps-vs-ring scenarios/ps-vs-ring.xml \
    "ps1='out/ps1.csv'; psk='out/psk.csv'; ring='out/ring.csv'; k='$shards'; name='ResNet-50 on 8 x 8 A100, HDR'"
plot scaling scenarios/scaling.xml \
    "in='out/scaling.csv'; name='ResNet-50, NCCL all-reduce, H100 fat-tree'"
plot staleness scenarios/staleness.xml "in='out/staleness.csv'; bd='out/staleness-bounded.csv'"
plot faults scenarios/faults.xml \
    "in='out/faults.csv'; name='ResNet-50 on 16 A100: crash, partition, straggler'"
plot input scenarios/input.xml "dir='out'"
echo "plots: out/ps-vs-ring.$fmt out/scaling.$fmt out/staleness.$fmt out/faults.$fmt" \
    "out/input.$fmt (data: out/)"
echo
tools/parallel.sh
echo
tools/plan.sh
echo
tools/recsys.sh build/dmlsim out/recsys
echo
tools/clicks.sh build/dmlsim out/clicks
echo
tools/tta.sh
