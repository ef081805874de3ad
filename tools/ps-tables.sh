#!/usr/bin/env bash
# ps-tables.sh - the parameter server as TensorFlow 1.x ran it (grpc-tcp: one gRPC thread per
# side of a process, ps_rpc.h) against every public PS table the research notes hold
# (docs/research/issue31-sources.md), out of sample: no row sets a constant (the transport's
# constants come from gRPC/TensorFlow measurements and TensorFlow's source, catalog.c; the 1-GPU
# baseline is the simulator's own GPU alone, as the tables' efficiency is their own 1-GPU row).
# Settings as the benchmarks ran: tf_cnn_benchmarks, synthetic data, FP32, SGD (momentum where
# the Horovod runs used it), variables placed by tensor (split="layer"), one RPC per tensor,
# gradients sent as the backward makes them (TensorFlow's dataflow), sync.
#   §1b/§1c  one 8-GPU K80 server, parameter_server, local_parameter_device cpu (gpu for the
#            p2.8xlarge VGG-16 row, taken as cpu): one process, shards="1" (TensorFlow: tensors
#            through the in-process rendezvous, ps_rpc.h)
#   §1d      p2.8xlarge x N (8 K80 each), distributed_replicated (local aggregation), one PS
#            task per machine colocated (InceptionV3 at 64 GPUs: 6), 10 Gbit/s (SINGA's
#            benchmark page for p2.8xlarge)
#   Horovod  16 x 4 P100, 40 Gbit/s, one PS per server (tools/ps-horovod.sh's sources); 4 x 4
#            for VGG-16's "slower than one GPU" check
# Prints per row: setup, simulated and published scaling efficiency (or speed-up over one GPU
# for the Horovod rows), the error in points (or the ratio), the simulated 1-GPU throughput over
# the table's (the GPU's compute is not this script's: a K80 computing too fast leaves the
# communication a larger share of the step), and whether the row set a constant. Nothing is
# asserted. Build first.
#   tools/ps-tables.sh                          (DMLSIM=other/dmlsim tools/ps-tables.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${DMLSIM:-build/dmlsim} # DMLSIM=path runs another build (a before/after comparison)
thr() { sed -n 's/^ *"throughput": \([-0-9.e+]*\),$/\1/p' "$1"; }

# one GPU alone: gpu model batch opt
one() {
    cat >"$tmp/one.xml" <<XML
<scenario name="one">
  <cluster nodes="1" gpus-per-node="1" gpu="$1"/>
  <model preset="$2"/>
  <training strategy="allreduce" batch-per-gpu="$3" steps="1" dtype="fp32" optimizer="$4"/>
</scenario>
XML
    "$bin" run "$tmp/one.xml" --json "$tmp/one.json" >/dev/null
    thr "$tmp/one.json"
}

# the PS run: gpu model batch opt nodes gpn nic shards agg
ps() {
    local nic="" agg=""
    [ "$7" != none ] && nic=" nic=\"$7\""
    [ "$9" = yes ] && agg=' local-aggregation="yes"' || agg=' push="during-backward"'
    cat >"$tmp/ps.xml" <<XML
<scenario name="ps">
  <cluster nodes="$5" gpus-per-node="$6" gpu="$1" intra="pcie-gen3"$nic/>
  <model preset="$2"/>
  <training strategy="ps" batch-per-gpu="$3" steps="3" dtype="fp32" optimizer="$4">
    <ps shards="$8" placement="colocated" split="layer" mode="sync" transport="grpc-tcp"
        rpc="per-tensor"$agg/>
  </training>
</scenario>
XML
    "$bin" run "$tmp/ps.xml" --json "$tmp/ps.json" >/dev/null
    thr "$tmp/ps.json"
}

printf "#%-8s %-13s %5s %5s %8s %3s %9s %9s %8s %8s  %s\n" table model batch GPUs nic PS simulated \
    published error "1 GPU" "sets a constant"
printf "#%-8s %-13s %5s %5s %8s %3s %9s %9s %8s %8s\n" "" "" "" "" "" "" "(eff %)" "(eff %)" "(points)" \
    "sim/pub"
# table model batch opt gpu nodes gpn nic shards agg published-efficiency published-1-GPU
while read -r tab model b opt gpu nodes gpn nic shards agg pub pub1; do
    base=$(one "$gpu" "$model" "$b" "$opt")
    t=$(ps "$gpu" "$model" "$b" "$opt" "$nodes" "$gpn" "$nic" "$shards" "$agg")
    awk -v tab="$tab" -v m="$model" -v b="$b" -v n=$((nodes * gpn)) -v nic="$nic" -v k="$shards" \
        -v t="$t" -v o="$base" -v p="$pub" -v p1="$pub1" 'BEGIN {
            e = 100 * t / (n * o)
            printf " %-8s %-13s %5d %5d %8s %3d %9.1f %9.1f %+8.1f %8.2f  no\n", tab, m, b, n, nic, k,
                   e, 100 * p, e - 100 * p, o / p1 }'
done <<'ROWS'
1b-gce inception-v3 64 sgd k80 1 8 none 1 no 0.930 30.5
1b-gce resnet50 64 sgd k80 1 8 none 1 no 0.932 51.9
1b-gce vgg16 32 sgd k80 1 8 none 1 no 0.826 35.4
1c-aws inception-v3 64 sgd k80 1 8 none 1 no 0.933 30.8
1c-aws vgg16 32 sgd k80 1 8 none 1 no 0.895 36.3
1d-aws inception-v3 64 sgd k80 2 8 tcp-10g 2 yes 0.966 29.7
1d-aws inception-v3 64 sgd k80 4 8 tcp-10g 4 yes 0.949 29.7
1d-aws inception-v3 64 sgd k80 8 8 tcp-10g 6 yes 0.938 29.7
1d-aws resnet50 64 sgd k80 2 8 tcp-10g 2 yes 0.896 52.4
1d-aws resnet50 64 sgd k80 4 8 tcp-10g 4 yes 0.828 52.4
1d-aws resnet50 64 sgd k80 8 8 tcp-10g 8 yes 0.818 52.4
ROWS

printf "#\n#%-8s %-13s %5s %5s %8s %3s %9s %9s %8s  %s\n" table model batch GPUs nic PS simulated \
    published ratio "sets a constant"
printf "#%-8s %-13s %5s %5s %8s %3s %9s %9s %8s\n" "" "" "" "" "" "" "(x 1 GPU)" "(x 1 GPU)" "sim/pub"
while read -r tab model b opt gpu nodes gpn nic shards agg pub; do
    base=$(one "$gpu" "$model" "$b" "$opt")
    t=$(ps "$gpu" "$model" "$b" "$opt" "$nodes" "$gpn" "$nic" "$shards" "$agg")
    awk -v tab="$tab" -v m="$model" -v b="$b" -v n=$((nodes * gpn)) -v nic="$nic" -v k="$shards" \
        -v t="$t" -v o="$base" -v p="$pub" 'BEGIN {
            s = t / o
            if (p == "<1")
                printf " %-8s %-13s %5d %5d %8s %3d %8.2fx %9s %8s  no\n", tab, m, b, n, nic, k, s,
                       "< 1x", s < 1 ? "holds" : "FAILS"
            else
                printf " %-8s %-13s %5d %5d %8s %3d %8.2fx %8.1fx %8.2f  no\n", tab, m, b, n, nic, k,
                       s, p, s / p }'
done <<'ROWS'
horovod inception-v3 64 momentum p100 16 4 tcp-40g 16 no 28.4
horovod resnet101 64 momentum p100 16 4 tcp-40g 16 no 22.0
horovod vgg16 64 momentum p100 16 4 tcp-40g 16 no 0.6
vgg<1 vgg16 64 momentum p100 4 4 tcp-40g 4 no <1
ROWS
