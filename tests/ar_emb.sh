#!/usr/bin/env bash
# ar_emb.sh - the all-reduce strategy's sharded embeddings (embeddings="sharded", issue 34): the
# DLRM / TorchRec layout against closed forms written here, on 4 H100s of one node (fp32,
# momentum: row-wise Adagrad's 4 B a row for the tables; the ring at message level, no broadcast):
#   - placement: tables whole, largest first to the least loaded GPU; a table over a GPU's room
#     split by rows over all of them;
#   - the all-to-all bytes a GPU sends a step (mean over GPUs), each GPU holding batch b samples:
#       IDs:    (P-1)/P x b x 8 B x sum of the tables' pooling
#       pooled: (P-1)/P x b x 4 B x (sum of the whole tables' dims + P x each row-wise one's)
#     (GPU i sends GPU j the IDs of j's tables, b x pool_j x 8, and its bags b x dim_i x 4; a
#     row-wise table's shard is looked up by pooling / P of each sample's IDs and sends its
#     partial bags, b x dim, to every other GPU);
#   - the bytes that really crossed the network in `steps` steps: steps x (P x (IDs + 2 x pooled)
#     + 2 (P - 1) x the dense gradient bytes (the ring all-reduce)): the tables' gradients are
#     not all-reduced;
#   - the memory of the GPU that needs the most: the dense replica (12 B a parameter: weights,
#     gradients, momentum; activations x b) + its tables (rows x (dim x 4 + 4)) + the all-to-all
#     buffers P b (dim_g x 4 + pool_g x 8) + its batch's bags b x (sum of dims) x 4;
#   - sharded faster than replicated (the replicated tables' 1.9 GB of gradients all-reduced);
#   - out of memory: the message names the GPU and the tables it holds.
#   tests/ar_emb.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: ar_emb.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

P=4 b=1024 steps=3
# scen NAME EMBEDDINGS EXTRA-TABLES
scen() {
    cat >"$tmp/$1.xml" <<XML
<?xml version="1.0"?>
<scenario name="$1" seed="1">
  <cluster nodes="1" gpus-per-node="$P" gpu="h100"/>
  <model name="four-tables">
    <embedding name="A" rows="4000000" dim="64" pooling="10"/>
    <embedding name="B" rows="2000000" dim="64" pooling="20"/>
    <embedding name="C" rows="1000000" dim="64" pooling="5"/>
    <embedding name="D" rows="500000" dim="64" pooling="1"/>
    $3
    <layer name="bottom" params="1e6" flops="2e6" activation="4KiB"/>
    <layer name="top" params="2e6" flops="4e6" activation="4KiB"/>
  </model>
  <training strategy="allreduce" batch-per-gpu="$b" steps="$steps" optimizer="momentum"
            algo="ring" level="message" broadcast="no" embeddings="$2"/>
</scenario>
XML
}
field() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),\{0,1\}$/\1/p" "$tmp/$1.json" | head -1; }
# same NAME GOT WANT: equal within 1e-9 (relative)
same() {
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-9 * w) }'; then
        ok
    else
        ko "$1: $2, expected $3"
    fi
}

scen sharded sharded ""
scen replicated replicated ""
scen rowwise sharded '<embedding name="E" rows="400000000" dim="64" pooling="8"/>'
for n in sharded replicated rowwise; do
    "$dmlsim" run "$tmp/$n.xml" --json "$tmp/$n.json" >"$tmp/$n.out" 2>&1 ||
        ko "$n: exit $?: $(tail -3 "$tmp/$n.out")"
done

# ---- table-wise: A, B, C, D on GPUs 0, 1, 2, 3 ----------------------------------------------
for t in "0 1.040 GB: A" "1 0.520 GB: B" "2 0.260 GB: C" "3 0.130 GB: D"; do
    grep -q "^# tables gpu ${t%% *} *${t#* }\$" "$tmp/sharded.out" && ok ||
        ko "sharded: no line '# tables gpu $t'"
done
ids=$(awk -v P=$P -v b=$b 'BEGIN { printf "%.0f", (P - 1) / P * b * 8 * (10 + 20 + 5 + 1) }')
pooled=$(awk -v P=$P -v b=$b 'BEGIN { printf "%.0f", (P - 1) / P * b * 4 * (4 * 64) }')
same "sharded: IDs a GPU sends" "$(field sharded emb_ids_bytes)" "$ids"
same "sharded: pooled a GPU sends" "$(field sharded emb_pooled_bytes)" "$pooled"
dense=$(awk 'BEGIN { printf "%.0f", 3e6 * 4 }') # the dense gradients' bytes a step
net=$(awk -v s=$steps -v P=$P -v i="$ids" -v p="$pooled" -v d="$dense" \
    'BEGIN { printf "%.0f", s * (P * (i + 2 * p) + 2 * (P - 1) * d) }')
same "sharded: bytes on the network" "$(field sharded bytes)" "$net"
same "sharded: dense gradient bytes" "$(field sharded grad_bytes)" "$dense"
# GPU 0 (A: 4e6 rows, pooling 10) needs the most
mem=$(awk -v P=$P -v b=$b 'BEGIN { dense = 12 * 3e6 + b * 8192; a2a = P * b * (64 * 4 + 10 * 8)
    printf "%.0f", dense + 4e6 * (64 * 4 + 4) + a2a + b * 4 * 64 * 4 }')
same "sharded: memory of GPU 0" "$(field sharded memory_per_gpu_bytes)" "$mem"

# ---- row-wise: E (400M rows, 104 GB) over all four, then A..D whole -------------------------
grep -q "^# tables gpu 0   27.040 GB: A, E (rows)\$" "$tmp/rowwise.out" && ok ||
    ko "rowwise: no line '# tables gpu 0   27.040 GB: A, E (rows)'"
ids=$(awk -v P=$P -v b=$b 'BEGIN { printf "%.0f", (P - 1) / P * b * 8 * (36 + 8) }')
pooled=$(awk -v P=$P -v b=$b 'BEGIN { printf "%.0f", (P - 1) / P * b * 4 * (4 * 64 + P * 64) }')
same "rowwise: IDs a GPU sends" "$(field rowwise emb_ids_bytes)" "$ids"
same "rowwise: pooled a GPU sends" "$(field rowwise emb_pooled_bytes)" "$pooled"
mem=$(awk -v P=$P -v b=$b 'BEGIN { dense = 12 * 3e6 + b * 8192; a2a = P * b * ((64 + 64) * 4 + (10 + 2) * 8)
    printf "%.0f", dense + 4e6 * 260 + 4e8 / P * 260 + a2a + b * 4 * 5 * 64 }')
same "rowwise: memory of GPU 0" "$(field rowwise memory_per_gpu_bytes)" "$mem"

# ---- sharded faster than replicated; the replicated tables' gradients all-reduced ----------
s=$(field sharded mean_step_s) r=$(field replicated mean_step_s)
awk -v s="$s" -v r="$r" 'BEGIN { exit !(s > 0 && s < r) }' && ok ||
    ko "sharded step $s s not faster than replicated $r s"
same "replicated: gradient bytes" "$(field replicated grad_bytes)" \
    "$(awk 'BEGIN { printf "%.0f", (3e6 + 64 * 7.5e6) * 4 }')"
[ "$(field replicated emb_ids_bytes)" = 0 ] && ok || ko "replicated: all-to-all bytes"

# ---- out of memory: the GPU and its tables named --------------------------------------------
cat >"$tmp/oom.xml" <<XML
<?xml version="1.0"?>
<scenario name="oom">
  <cluster nodes="1" gpus-per-node="2" gpu="h100"/>
  <model name="big">
    <embedding name="huge" rows="320000000" dim="64" pooling="4"/>
    <embedding name="large" rows="250000000" dim="64" pooling="4"/>
    <layer name="top" params="1e6" flops="2e6"/>
  </model>
  <training strategy="allreduce" batch-per-gpu="512" embeddings="sharded"/>
</scenario>
XML
"$dmlsim" run "$tmp/oom.xml" >"$tmp/oom.out" 2>"$tmp/oom.err"
rc=$?
msg=$(cat "$tmp/oom.err")
want='GPU 0 needs 106.61 GB (dense replica 0.01 GB + tables huge (rows), large 106.60 GB'
[ "$rc" = 1 ] && ok || ko "oom: exit $rc, expected 1"
[ "${msg#*"$want"}" != "$msg" ] && ok || ko "oom: '$msg' lacks '$want'"
finish ar_emb
