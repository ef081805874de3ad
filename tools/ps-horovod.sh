#!/usr/bin/env bash
# ps-horovod.sh - the parameter server as TensorFlow 1.3 ran it (grpc + parameter_server) against
# the scaling the Horovod README measured for it: 16 servers x 4 Pascal GPUs on a 40 Gbit/s
# network, one PS per server, synchronous, batch 64 per GPU, FP32 (horovod/horovod PR #44, the
# README's benchmark table; the baseline per the maintainer in horovod/horovod issue #246). Scaling
# = 64-GPU throughput / one GPU alone. Prints the table; nothing is asserted. Build first.
#   tools/ps-horovod.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
thr() { sed -n 's/^ *"throughput": \([-0-9.e+]*\),$/\1/p' "$1"; }
printf "#%-14s %10s %12s %12s %10s %10s\n" model transport "64 GPUs" "1 GPU" scaling published
printf "#%-14s %10s %12s %12s %10s %10s\n" "" "" "(samples/s)" "(samples/s)" "" ""
for row in "inception-v3 28.4" "resnet101 22.0" "vgg16 0.6"; do
    set -- $row
    cat >"$tmp/one.xml" <<XML
<scenario name="one-$1">
  <cluster nodes="1" gpus-per-node="1" gpu="p100"/>
  <model preset="$1"/>
  <training strategy="allreduce" batch-per-gpu="64" steps="1" dtype="fp32" optimizer="momentum"/>
</scenario>
XML
    build/dmlsim run "$tmp/one.xml" --json "$tmp/one.json" >/dev/null
    for tp in ideal grpc-tcp; do
        cat >"$tmp/ps.xml" <<XML
<scenario name="ps-$1-$tp">
  <cluster nodes="16" gpus-per-node="4" gpu="p100" intra="pcie-gen3" nic="tcp-40g"/>
  <model preset="$1"/>
  <training strategy="ps" batch-per-gpu="64" steps="3" dtype="fp32" optimizer="momentum">
    <ps shards="16" placement="colocated" split="layer" mode="sync" transport="$tp"/>
  </training>
</scenario>
XML
        build/dmlsim run "$tmp/ps.xml" --json "$tmp/ps.json" >/dev/null
        awk -v m="$1" -v t="$tp" -v a="$(thr "$tmp/ps.json")" -v b="$(thr "$tmp/one.json")" -v p="$2" \
            'BEGIN { printf " %-14s %10s %12.1f %12.1f %9.1fx %9.1fx\n", m, t, a, b, a / b, p }'
    done
done
