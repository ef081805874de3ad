#!/usr/bin/env bash
# bench.sh - simulator performance: wall time and peak memory to simulate one training step of
# ResNet-50 (batch 64 per GPU, FP32) with ring all-reduce on P H100s, at message level and at flow
# level on a cluster of 8-GPU nodes (NVLink4, 8 NDR NICs per node, one switch), and at flow level
# on a flat cluster (one GPU per node, NDR, generated as a SimGrid <cluster>) for very large P.
# Prints a table; nothing is asserted. Needs GNU time (/usr/bin/time, Debian package "time").
# Build first (tools/setup.sh). ALGO=nccl measures the nccl family instead of the ring.
#   tools/bench.sh [MESSAGE_PS] [FLOW_PS] [FLAT_PS]   e.g. tools/bench.sh "64 256" "1024" "16384"
set -euo pipefail
cd "$(dirname "$0")/.."
msg_ps=${1:-"64 256 1024"}
flow_ps=${2:-"1024 4096"}
flat_ps=${3:-"4096 16384"}
algo=${ALGO:-ring} # ALGO=nccl tools/bench.sh ... measures the nccl family
[ -x /usr/bin/time ] || { echo "bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # level P [flat]
    local level=$1 P=$2 nodes=$(( ($2 + 7) / 8 ))
    local cluster="<cluster nodes=\"$nodes\" gpus-per-node=\"8\" gpu=\"h100\" intra=\"nvlink4\" nic=\"ib-ndr\" nics-per-node=\"8\"/>"
    [ "${3:-}" = flat ] &&
        cluster="<cluster nodes=\"$P\" gpus-per-node=\"1\" gpu=\"h100\" nic=\"ib-ndr\" topology=\"flat\"/>"
    cat >"$tmp/s.xml" <<XML
<scenario name="bench-$level-$P">
  $cluster
  <model preset="resnet50"/>
  <training strategy="allreduce" algo="$algo" level="$level" batch-per-gpu="64" steps="1" gpus="$P"
            broadcast="no"/>
</scenario>
XML
    /usr/bin/time -f "%e %M" -o "$tmp/time" build/dmlsim run "$tmp/s.xml" >"$tmp/out"
    read -r wall rss <"$tmp/time"
    step=$(awk '$1 == 1 && NF == 6 {print $2}' "$tmp/out")
    msgs=$(awk '/messages +[0-9]+ sent/ {print $3}' "$tmp/out")
    printf " %8s %7d %6s %12s %14s %12s %12s\n" "$level" "$P" "${3:-8/node}" "$wall" \
        "$((rss / 1024))" "$step" "$msgs"
}

printf "#%8s %7s %6s %12s %14s %12s %12s\n" level P nodes wall peak_rss step messages
printf "#%8s %7s %6s %12s %14s %12s %12s\n" "" "" "" "(s)" "(MiB)" "(ms)" ""
for P in $msg_ps; do run message "$P"; done
for P in $flow_ps; do run flow "$P"; done
for P in $flat_ps; do run flow "$P" flat; done
