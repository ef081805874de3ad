#!/usr/bin/env bash
# bench-memcheck.sh - CPU time of `dmlsim run --memory-only` (issue 32's target: under 50 ms) on
# Llama 3 70B on 64 H100 (8 nodes of 8; tp 8 x pp 4 x dp 2, 16 microbatches of 1, ZeRO-1,
# selective recomputation, sequence parallelism: it fits), on a layout that does not fit (tp 1 x
# pp 1 x dp 64, no recomputation: the out-of-memory message's search for the smallest set of
# changes, par_fit.h, finds a pair) and on 8 GPUs, where no set of changes fits (the search tries
# every set), against the floor of starting the binary at all (`dmlsim --version`: the dynamic
# loader and the libraries' initialisers).
# CPU seconds (user + system, GNU time) over N runs each (default 50), per run; the check's own
# share is the run's less the floor's. Prints a table; nothing is asserted. Build first.
#   tools/bench-memcheck.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-50}
dmlsim=${DMLSIM:-build/dmlsim}
[ -x /usr/bin/time ] || { echo "bench-memcheck.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/l70.xml" <<XML
<scenario name="bench-memcheck">
  <cluster nodes="8" gpus-per-node="8" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="8"/>
  <model preset="llama3-70b"/>
  <training strategy="hybrid" batch-per-gpu="1" steps="1" dtype="bf16" optimizer="adam">
    <parallel tp="8" pp="4" dp="2" microbatches="16" zero="1" recompute="selective"
              sequence-parallel="yes"/>
  </training>
</scenario>
XML

cpu() { # ARGS...: CPU seconds of n runs of dmlsim ARGS
    /usr/bin/time -f "%U %S" -o "$tmp/t" bash -c \
        'for ((i = 0; i < $1; i++)); do "${@:2}" >/dev/null 2>&1 || true; done' _ "$n" "$dmlsim" "$@"
    awk '{ print $1 + $2 }' "$tmp/t"
}

floor=$(cpu --version)
printf '# dmlsim run --memory-only: CPU time per run over %d runs (user + system)\n' "$n"
printf '#%-34s %10s %10s %10s\n' "case" "cpu/run" "floor/run" "check/run"
printf '#%-34s %10s %10s %10s\n' "" "(ms)" "(ms)" "(ms)"
row() { # NAME ARGS...
    local name=$1 t
    shift
    t=$(cpu run --memory-only "$tmp/l70.xml" "$@")
    awk -v name="$name" -v t="$t" -v f="$floor" -v n="$n" \
        'BEGIN { printf " %-34s %10.1f %10.1f %10.1f\n", name, 1000 * t / n, 1000 * f / n, 1000 * (t - f) / n }'
}
row "llama3-70b 64 h100 (fits)"
row "llama3-70b 64 h100 dp 64 (oom)" --set parallel.tp=1 --set parallel.dp=64 --set parallel.pp=1 \
    --set parallel.zero=0 --set parallel.recompute=none --set parallel.sequence-parallel=no
row "llama3-70b 8 h100 (no set fits)" --set cluster.nodes=1 --set parallel.tp=1 --set parallel.dp=8 \
    --set parallel.pp=1 --set parallel.zero=0 --set parallel.recompute=none \
    --set parallel.sequence-parallel=no --set training.batch-per-gpu=8
