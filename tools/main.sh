#!/usr/bin/env bash
# main.sh - the main job: set up and build (tools/setup.sh), simulate the default scenario
# (ResNet-50 on two 8 x H100 nodes with ring all-reduce), then sweep it from 1 to 64 GPUs of the
# shipped 32 x 8 H100 fat-tree and draw the scaling plot to out/scaling.png.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build/dmlsim run scenarios/resnet50-ring.xml
mkdir -p out
echo
build/dmlsim sweep scenarios/scaling.xml --set training.gpus=1,2,4,8,16,32,64 -j "$(nproc)" \
    -o out/scaling.txt
gnuplot -e "in='out/scaling.txt'; out='out/scaling.png'; name='ResNet-50, ring all-reduce, H100 fat-tree'" \
    plots/scaling.gp
echo
echo "plot: out/scaling.png (table: out/scaling.txt)"
