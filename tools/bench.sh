#!/usr/bin/env bash
# bench.sh - simulator performance: wall time and peak memory to simulate one training step of
# ResNet-50 (batch 64 per GPU, FP32) with ring all-reduce on P H100s, at message level and at flow
# level on a cluster of 8-GPU nodes (NVLink4, 8 NDR NICs per node, one switch), and at flow level
# on a flat cluster (one GPU per node, NDR, generated as a SimGrid <cluster>) for very large P.
# Prints a table; nothing is asserted. Needs GNU time (/usr/bin/time, Debian package "time").
# Build first (tools/setup.sh). ALGO=nccl measures the nccl family instead of the ring.
# A second table (FLOOR_PS, default "64 256 1024"; "" skips it) times one ring all-reduce of
# 4 MiB on P GPUs of 8-GPU nodes four ways on the same generated platform, all giving the same
# simulated time: build/sg_ring load (SimGrid started and the platform loaded, nothing run: the
# floor of any run), build/sg_ring (raw SimGrid actors, the floor), dmlsim's message and flow level
# (<benchmark kind="allreduce" algo="ring">) and, where smpirun exists, SMPI's MPI_Allreduce
# (algorithm lr, SMPI's logical ring; its bandwidth and latency factors set to 1), as CPU seconds
# (user + system, so machine load does not distort them) and ratios.
# A third table is tools/bench-llm.sh's: LLM training steps (hybrid parallelism) from 64 to 16,352
# GPUs, CPU seconds and memory (LLM=no skips it; LLM_ROWS picks its rows).
#   tools/bench.sh [MESSAGE_PS] [FLOW_PS] [FLAT_PS] [FLOOR_PS]
#   e.g. tools/bench.sh "64 256" "1024" "16384" "64"
set -euo pipefail
cd "$(dirname "$0")/.."
msg_ps=${1-"64 256 1024"}
flow_ps=${2-"1024 4096"}
flat_ps=${3-"4096 16384"}
floor_ps=${4-"64 256 1024"}
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

# ---- floors: the same ring all-reduce, raw SimGrid, dmlsim and SMPI -------------------------
cfg="--cfg=network/model:CM02 --cfg=network/crosstraffic:no --cfg=network/TCP-gamma:0"
cpu() { # command...: prints "user+sys seconds" and leaves the command's stdout in $tmp/out
    /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$@" >"$tmp/out" 2>/dev/null
    awk '{printf "%.2f", $1 + $2}' "$tmp/cpu"
}
smpi=""
if command -v smpicc >/dev/null && command -v smpirun >/dev/null; then
    smpicc -O2 tools/bench/smpi_allreduce.c -o "$tmp/smpi_ar" 2>/dev/null && smpi="$tmp/smpi_ar"
fi
[ -n "$floor_ps" ] && printf "\n#%6s %10s %10s %8s %10s %10s %10s %12s %9s %9s %9s %9s\n" P \
    messages simulated sg_load sg_ring dmlsim_msg dmlsim_flow smpi msg/ring msg/smpi flow/smpi \
    load/smpi &&
    printf "#%6s %10s %10s %8s %10s %10s %10s %12s %9s %9s %9s %9s\n" "" "" "(us)" "(cpu s)" \
        "(cpu s)" "(cpu s)" "(cpu s)" "(cpu s)" "" "" "" ""
for P in $floor_ps; do
    nodes=$(( (P + 7) / 8 ))
    for level in message flow; do
        cat >"$tmp/$level.xml" <<XML
<scenario name="floor-$P">
  <cluster nodes="$nodes" gpus-per-node="8" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="8"/>
  <benchmark kind="allreduce" algo="ring" level="$level" begin="4MiB" end="4MiB" gpus="$P"/>
</scenario>
XML
    done
    build/dmlsim platform "$tmp/message.xml" -o "$tmp/p.xml"
    grep -o 'host id="node[0-9]*\.gpu[0-9]*"' "$tmp/p.xml" | sed 's/host id="//; s/"//' |
        sort -V | head -n "$P" >"$tmp/hosts"
    # shellcheck disable=SC2086
    t_load=$(cpu build/sg_ring "$tmp/p.xml" load $cfg --log=root.thres:critical)
    # shellcheck disable=SC2086
    t_ring=$(cpu build/sg_ring "$tmp/p.xml" "$P" 4194304 $cfg --log=root.thres:critical)
    sim=$(awk '{printf "%.3f", $1 * 1e6}' "$tmp/out")
    msgs=$(awk '{print $4}' "$tmp/out")
    t_msg=$(cpu build/dmlsim run "$tmp/message.xml")
    t_flow=$(cpu build/dmlsim run "$tmp/flow.xml")
    t_smpi=-
    if [ -n "$smpi" ]; then
        # shellcheck disable=SC2086
        t_smpi=$(cpu smpirun -np "$P" -platform "$tmp/p.xml" -hostfile "$tmp/hosts" \
            --cfg=smpi/allreduce:lr --cfg=smpi/simulate-computation:no $cfg \
            --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1 --cfg=smpi/async-small-thresh:0 \
            --cfg=smpi/send-is-detached-thresh:0 --log=root.thres:critical "$smpi" 4194304)
    fi
    ratio() { [ "$2" = - ] && echo - || awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }
    printf " %6d %10s %10s %8s %10s %10s %10s %12s %9s %9s %9s %9s\n" "$P" "$msgs" "$sim" \
        "$t_load" "$t_ring" "$t_msg" "$t_flow" "$t_smpi" "$(ratio "$t_msg" "$t_ring")" \
        "$(ratio "$t_msg" "$t_smpi")" "$(ratio "$t_flow" "$t_smpi")" "$(ratio "$t_load" "$t_smpi")"
done

# ---- LLM training steps ------------------------------------------------------------------------
if [ "${LLM:-yes}" != no ]; then
    echo
    tools/bench-llm.sh ${LLM_ROWS:+"$LLM_ROWS"}
fi
