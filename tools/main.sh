#!/usr/bin/env bash
# main.sh - the main job: set up and build (tools/setup.sh), simulate the default scenario
# (ResNet-50 on two 8 x H100 nodes with NCCL all-reduce), then draw three plots into out/:
#   ps-vs-ring.png  parameter server (1 shard, 8 shards) vs NCCL all-reduce, 1 to 64 A100s
#   scaling.png     NCCL all-reduce scaling, 1 to 64 GPUs of the shipped 32 x 8 H100 fat-tree
#   staleness.png   asynchronous parameter server against the staleness bound (drop, bounded)
#   faults.png      throughput over time through a crash, a partition and a straggler
#   input.png       the input pipeline: samples/s and the wait for batches against the loader
#                   workers per GPU and the prefetch depth
#   parallel.png    Llama 3 8B on 16 H100: MFU and the step's breakdown against tensor x
#                   pipeline x data parallelism (tools/parallel.sh)
# and, training a real MLP on Fashion-MNIST through the simulated protocols (tools/tta.sh):
#   tta.png         test accuracy over time: ring, sync PS, async PS at tau 0, 2, 8, 32
#   accuracy-faults.png  accuracy through a crash and a partition, rolled back to checkpoints
#   lr-scaling.png  accuracy and time to 82% against the workers, lr-scaling none and linear
#   accuracy-shuffle.png  accuracy on files stored by class: no shuffle, a buffer, an epoch shuffle
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build/dmlsim run scenarios/resnet50-ring.xml
mkdir -p out
j=$(nproc)
gpus=1,2,4,8,16,32,64
sweep() { build/dmlsim sweep "$@" -j "$j"; echo; }

echo
sweep scenarios/ps-vs-ring.xml --set training.strategy=ps --set ps.shards=1 \
    --set training.gpus=$gpus -o out/ps1.txt
sweep scenarios/ps-vs-ring.xml --set training.strategy=ps --set ps.shards=8 \
    --set training.gpus=$gpus -o out/psk.txt
sweep scenarios/ps-vs-ring.xml --set training.strategy=allreduce \
    --set training.gpus=$gpus -o out/ring.txt
sweep scenarios/scaling.xml --set training.gpus=$gpus -o out/scaling.txt
sweep scenarios/staleness.xml --set ps.staleness=0,1,2,4,8,16 -o out/staleness.txt
sweep scenarios/staleness.xml --set ps.consistency=bounded --set ps.staleness=0,1,2,4,8,16 \
    -o out/staleness-bounded.txt
for p in 1 2 4; do
    sweep scenarios/input.xml --set data.loader-workers=0,1,2,3,4,6,8,12 --set data.prefetch=$p \
        -o out/input-p$p.txt
done

build/dmlsim run scenarios/faults.xml --csv out/faults.csv |
    grep -E '^# *(steps committed|detect|checkpoints|goodput|gradients .*computed|samples .*read|accounting|expect)'
echo

gnuplot -e "ps1='out/ps1.txt'; psk='out/psk.txt'; ring='out/ring.txt'; k='8'; out='out/ps-vs-ring.png'; name='ResNet-50 on 8 x 8 A100, HDR'" \
    plots/ps-vs-ring.gp
gnuplot -e "in='out/scaling.txt'; out='out/scaling.png'; name='ResNet-50, NCCL all-reduce, H100 fat-tree'" \
    plots/scaling.gp
gnuplot -e "in='out/staleness.txt'; bd='out/staleness-bounded.txt'; out='out/staleness.png'" \
    plots/staleness.gp
gnuplot -e "in='out/faults.csv'; out='out/faults.png'; name='ResNet-50 on 16 A100: crash, partition, straggler'" \
    plots/faults.gp
gnuplot -e "dir='out'; out='out/input.png'" plots/input.gp
echo "plots: out/ps-vs-ring.png out/scaling.png out/staleness.png out/faults.png out/input.png" \
    "(data: out/)"
echo
tools/parallel.sh
echo
tools/tta.sh
