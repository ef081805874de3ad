#!/usr/bin/env bash
# dp-tables.sh - PS and all-reduce as frameworks ran them, against every public scaling table
# found (issue 31): TensorFlow's benchmark pages (tf_cnn_benchmarks, May 2017), the Horovod README
# before and after horovod/horovod PR #44 (2017-10-17) and Horovod's docs/benchmarks.rst. One run
# per row, the same settings for every table; the published efficiency is throughput(N) / (N x
# throughput(1)) worked out from each table's own 1-GPU row (docs/research/issue31-sources.md).
# The simulated efficiency is the run's `efficiency`: throughput / (N x one GPU alone at its
# nominal speed). Prints one line per row, then the ring/PS ratios of the tables that ran both on
# one cluster, then the summary the issue's targets read. Nothing is asserted. Build first.
#   tools/dp-tables.sh [ROW-REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
dmlsim=${DMLSIM:-build/dmlsim}
only=${1:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# id | nodes x gpus | gpu intra nic | model batch | how (below) | published eff | fit | source
# how: ps-local  TF parameter_server on one machine, variables on its CPU (one colocated shard;
#                one process, so tensors skip gRPC: ps_rpc.h)
#      ps-grpc   TF distributed PS over gRPC: one PS task per server, colocated, variables placed
#                by tensor (split="layer"), per-tensor RPCs, transport grpc-tcp, gradients sent
#                as the backward makes them (TensorFlow's dataflow: push="during-backward")
#      ps-agg    TF distributed_replicated: a machine's GPUs reduce locally, then the PS tasks
#                (one per server, colocated; ps-agg/K: K of them, as the table says) over gRPC
#      hvd       Horovod: NCCL all-reduce with Horovod's tensor fusion (its default cycle/buffer)
#      nccl      tf_cnn_benchmarks replicated with NCCL on one machine (all-reduce, buckets)
# fit: "fit" where a row set a constant of the model, else "-".
rows() {
cat <<'ROWS'
tf-dgx1-inc     1 8  p100 nvlink1   -       inception-v3 64 ps-local 0.996 - TF benchmarks DGX-1 P100 synthetic: 1131/(8x142)
tf-dgx1-r50     1 8  p100 nvlink1   -       resnet50     64 ps-local 0.990 - TF benchmarks DGX-1 P100 synthetic: 1734/(8x219)
tf-dgx1-r152    1 8  p100 nvlink1   -       resnet152    64 ps-local 0.975 - TF benchmarks DGX-1 P100 synthetic: 716/(8x91.8)
tf-dgx1-vgg     1 8  p100 nvlink1   -       vgg16        64 nccl     0.877 - TF benchmarks DGX-1 P100 synthetic, replicated NCCL: 1081/(8x154)
tf-gce-inc      1 8  k80  pcie-gen3 -       inception-v3 64 ps-local 0.930 - TF benchmarks GCE k80x8 synthetic: 227/(8x30.5)
tf-gce-r50      1 8  k80  pcie-gen3 -       resnet50     64 ps-local 0.932 - TF benchmarks GCE k80x8 synthetic: 387/(8x51.9)
tf-gce-r152     1 8  k80  pcie-gen3 -       resnet152    32 ps-local 0.925 - TF benchmarks GCE k80x8 synthetic: 148/(8x20.0)
tf-gce-vgg      1 8  k80  pcie-gen3 -       vgg16        32 ps-local 0.826 - TF benchmarks GCE k80x8 synthetic: 234/(8x35.4)
tf-aws-inc      1 8  k80  pcie-gen3 -       inception-v3 64 ps-local 0.933 - TF benchmarks AWS p2.8xlarge synthetic: 230/(8x30.8)
tf-aws8-inc     1 8  k80  pcie-gen3 tcp-10g inception-v3 64 ps-agg   0.964 - TF benchmarks AWS distributed K80: 229/(8x29.7)
tf-aws16-inc    2 8  k80  pcie-gen3 tcp-10g inception-v3 64 ps-agg   0.966 - TF benchmarks AWS distributed K80: 459/(16x29.7)
tf-aws32-inc    4 8  k80  pcie-gen3 tcp-10g inception-v3 64 ps-agg   0.949 - TF benchmarks AWS distributed K80: 902/(32x29.7)
tf-aws64-inc    8 8  k80  pcie-gen3 tcp-10g inception-v3 64 ps-agg/6 0.938 - TF benchmarks AWS distributed K80: 1783/(64x29.7)
tf-aws8-r50     1 8  k80  pcie-gen3 tcp-10g resnet50     64 ps-agg   0.902 - TF benchmarks AWS distributed K80: 378/(8x52.4)
tf-aws16-r50    2 8  k80  pcie-gen3 tcp-10g resnet50     64 ps-agg   0.896 - TF benchmarks AWS distributed K80: 751/(16x52.4)
tf-aws32-r50    4 8  k80  pcie-gen3 tcp-10g resnet50     64 ps-agg   0.828 - TF benchmarks AWS distributed K80: 1388/(32x52.4)
tf-aws64-r50    8 8  k80  pcie-gen3 tcp-10g resnet50     64 ps-agg   0.818 - TF benchmarks AWS distributed K80: 2744/(64x52.4)
tf-aws16-r152   2 8  k80  pcie-gen3 tcp-10g resnet152    32 ps-agg   0.938 - TF benchmarks AWS distributed K80: 291/(16x19.4)
tf-aws64-r152   8 8  k80  pcie-gen3 tcp-10g resnet152    32 ps-agg   0.790 - TF benchmarks AWS distributed K80: 981/(64x19.4)
hvd16-ps-inc    4 4  p100 pcie-gen3 tcp-25g inception-v3 64 ps-grpc  0.625 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: Distributed TensorFlow 10.0x/16
hvd16-ps-r101   4 4  p100 pcie-gen3 tcp-25g resnet101    64 ps-grpc  0.500 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: Distributed TensorFlow 8.0x/16
hvd16-ps-vgg    4 4  p100 pcie-gen3 tcp-25g vgg16        64 ps-grpc  0.0375 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: Distributed TensorFlow 0.6x/16
hvd16-tcp-inc   4 4  p100 pcie-gen3 tcp-25g inception-v3 64 hvd      0.925 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: TCP Horovod NCCL 14.8x/16
hvd16-tcp-r101  4 4  p100 pcie-gen3 tcp-25g resnet101    64 hvd      0.881 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: TCP Horovod NCCL 14.1x/16
hvd16-tcp-vgg   4 4  p100 pcie-gen3 tcp-25g vgg16        64 hvd      0.625 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: TCP Horovod NCCL 10.0x/16
hvd16-rdma-inc  4 4  p100 pcie-gen3 roce-25g inception-v3 64 hvd     0.938 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: RDMA Horovod NCCL 15.0x/16
hvd16-rdma-r101 4 4  p100 pcie-gen3 roce-25g resnet101   64 hvd      0.913 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: RDMA Horovod NCCL 14.6x/16
hvd16-rdma-vgg  4 4  p100 pcie-gen3 roce-25g vgg16       64 hvd      0.856 - Horovod README (PR #44) 4x4 Pascal 25 Gbit/s: RDMA Horovod NCCL 13.7x/16
hvd64-ps-inc    16 4 p100 pcie-gen3 tcp-40g inception-v3 64 ps-grpc  0.444 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: Distributed TensorFlow 28.4x/64
hvd64-ps-r101   16 4 p100 pcie-gen3 tcp-40g resnet101    64 ps-grpc  0.344 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: Distributed TensorFlow 22.0x/64
hvd64-ps-vgg    16 4 p100 pcie-gen3 tcp-40g vgg16        64 ps-grpc  0.0094 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: Distributed TensorFlow 0.6x/64
hvd64-tcp-inc   16 4 p100 pcie-gen3 tcp-40g inception-v3 64 hvd      0.833 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: TCP Horovod NCCL 53.3x/64
hvd64-tcp-r101  16 4 p100 pcie-gen3 tcp-40g resnet101    64 hvd      0.889 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: TCP Horovod NCCL 56.9x/64
hvd64-tcp-vgg   16 4 p100 pcie-gen3 tcp-40g vgg16        64 hvd      0.636 - Horovod README (PR #44) 16x4 Pascal 40 Gbit/s: TCP Horovod NCCL 40.7x/64
hvd128-inc      32 4 p100 pcie-gen3 roce-25g inception-v3 64 hvd     0.90 - Horovod docs/benchmarks.rst (older README) 32x4 Pascal RoCE 25 Gbit/s: 90%
hvd128-r101     32 4 p100 pcie-gen3 roce-25g resnet101   64 hvd      0.90 - Horovod docs/benchmarks.rst (older README) 32x4 Pascal RoCE 25 Gbit/s: 90%
hvd128-vgg      32 4 p100 pcie-gen3 roce-25g vgg16       64 hvd      0.79 - Horovod docs/benchmarks.rst (older README) 32x4 Pascal RoCE 25 Gbit/s: 79%
ROWS
}

xml_training() { # how batch -> the <training> element
    local how=$1 b=$2 common="batch-per-gpu=\"$2\" steps=\"3\" dtype=\"fp32\" optimizer=\"momentum\""
    case $how in
    ps-local) echo "<training strategy=\"ps\" $common><ps shards=\"1\" placement=\"colocated\" split=\"layer\" rpc=\"per-tensor\" transport=\"grpc-tcp\"/></training>" ;;
    ps-grpc) echo "<training strategy=\"ps\" $common><ps shards=\"\$NODES\" placement=\"colocated\" split=\"layer\" rpc=\"per-tensor\" transport=\"grpc-tcp\" push=\"during-backward\"/></training>" ;;
    ps-agg*) echo "<training strategy=\"ps\" $common><ps shards=\"\$NODES\" placement=\"colocated\" split=\"layer\" rpc=\"per-tensor\" transport=\"grpc-tcp\" local-aggregation=\"yes\"/></training>" ;;
    hvd) echo "<training strategy=\"allreduce\" fusion=\"horovod\" $common/>" ;;
    nccl) echo "<training strategy=\"allreduce\" $common/>" ;;
    esac
}

run_row() { # the row's fields -> "eff" (or "fail")
    local id=$1 n=$2 g=$3 gpu=$4 intra=$5 nic=$6 model=$7 b=$8 how=$9 nicattr=""
    [ "$nic" != - ] && nicattr="nic=\"$nic\""
    local tr
    tr=$(xml_training "$how" "$b")
    local shards=$n
    [[ $how == */* ]] && shards=${how#*/}
    tr=${tr//\$NODES/$shards}
    cat >"$tmp/$id.xml" <<XML
<scenario name="$id">
  <cluster nodes="$n" gpus-per-node="$g" gpu="$gpu" intra="$intra" $nicattr/>
  <model preset="$model"/>
  $tr
</scenario>
XML
    if "$dmlsim" run "$tmp/$id.xml" --json "$tmp/$id.json" >/dev/null 2>"$tmp/$id.err"; then
        sed -n 's/^ *"efficiency": \([-0-9.e+]*\),$/\1/p' "$tmp/$id.json"
    else
        echo fail
    fi
}

printf "#%-15s %5s %-9s %-13s %-8s %9s %9s %8s %4s  %s\n" row GPUs nic model how simulated published "error" fit source
printf "#%-15s %5s %-9s %-13s %-8s %9s %9s %8s %4s\n" "" "" "" "" "" "(eff)" "(eff)" "(points)" ""
rows | grep -E "$only" | while read -r id n g gpu intra nic model b how pub fit src; do
    eff=$(run_row "$id" "$n" "$g" "$gpu" "$intra" "$nic" "$model" "$b" "$how")
    echo "$id $((n * g)) $eff $pub $fit" >>"$tmp/effs"
    awk -v id="$id" -v N=$((n * g)) -v nic="$nic" -v m="$model" -v how="$how" -v e="$eff" \
        -v p="$pub" -v fit="$fit" -v src="$src" 'BEGIN {
        if (e == "fail") { printf " %-15s %5d %-9s %-13s %-8s %9s %9.3f %8s %4s  %s\n", id, N, nic, m, how, "failed", p, "-", fit, src; exit }
        printf " %-15s %5d %-9s %-13s %-8s %9.3f %9.3f %+8.1f %4s  %s\n", id, N, nic, m, how, e, p, 100 * (e - p), fit, src }'
done
[ -s "$tmp/effs" ] || exit 0
# ring/PS throughput ratio where one table ran both on one cluster (same N, so the ratio of
# throughputs is the ratio of efficiencies), VGG-16 under a PS against one GPU, and the summary
awk '
{ id[NR] = $1; N[$1] = $2; e[$1] = $3; p[$1] = $4; fit[$1] = $5 }
END {
    printf "#\n#%-30s %9s %9s %8s\n", "ring/PS ratio", "simulated", "published", "error"
    nr = 0; rok = 0
    for (i = 1; i <= NR; i++) {
        r = id[i]; if (r !~ /-ps-/) continue
        t = r; sub(/-ps-/, "-tcp-", t)
        if (!(t in e) || e[r] == "fail" || e[t] == "fail" || e[r] <= 0) continue
        s = e[t] / e[r]; q = p[t] / p[r]; err = 100 * (s - q) / q
        nr++; if (err <= 15 && err >= -15) rok++
        printf " %-30s %9.2f %9.2f %+7.1f%%\n", t "/" r, s, q, err
    }
    printf "#\n#%-22s %9s %9s\n", "VGG-16 under a PS", "N x eff", "published"
    for (i = 1; i <= NR; i++) {
        r = id[i]; if (r !~ /-ps-vgg/ || e[r] == "fail") continue
        printf " %-22s %9.2f %9.2f  (%s one GPU)\n", r, N[r] * e[r], N[r] * p[r], N[r] * e[r] < 1 ? "slower than" : "NOT slower than"
    }
    n = 0; ok = 0; sum = 0; nfit = 0
    for (i = 1; i <= NR; i++) {
        r = id[i]; if (fit[r] == "fit") { nfit++; continue }
        n++; if (e[r] == "fail") continue
        d = 100 * (e[r] - p[r]); if (d < 0) d = -d; sum += d; if (d <= 10) ok++
    }
    printf "#\n# rows %d (%d set a constant); out of sample %d: %d within 10 points of efficiency, mean |error| %.1f points; ring/PS ratios within 15%%: %d of %d\n", NR, nfit, n, ok, n ? sum / n : 0, rok, nr
}' "$tmp/effs"
