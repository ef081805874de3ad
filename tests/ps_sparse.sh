#!/bin/bash
# ps_sparse.sh - the parameter server's sparse embedding path against closed forms written here.
#
# A worker's batch of b samples looks up `pooling` IDs of each table; it pulls the distinct rows
# (their int64 indices in the request, 8 B each; their values, dim x 4 B in FP32, in the answer)
# and pushes their gradients with their indices; sparse="no" moves the tables whole.
#   exact:    a table of N = 16 rows, 4 x 1024 draws a batch: every row is touched (the chance
#             that one is missed is 16 (15/16)^4096 < 1e-100), so each batch pulls and pushes
#             exactly 16 rows: rows pushed = P steps 16; sparse bytes = 2 P steps 16 (32 x 4 + 8);
#             the tables whole = 2 P steps (16 x 32 x 4); the shards' bytes in = P steps (dense
#             4 B x 1e6 + 16 (32 x 4 + 8)), and with sparse="no" P steps (4e6 + 16 x 32 x 4):
#             here, every row touched, the indices make the sparse path dearer.
#   birthday: n draws over N rows touch E[D] = sum_i 1 - (1 - p_i)^n distinct rows (uniform:
#             p_i = 1/N; Zipf s: p_i = (i+1)^-s / H(N, s)); the mean over a run's batches is
#             within 4 standard errors of it (the occupancy variance, Var D = sum_i q_i (1 - q_i)
#             + 2 sum_{i<j} cov, bounded here by E[D], is used for the error).
#   hot shard: Zipf 1.2 by range over 4 shards: shard 0 (IDs below N / 4) receives the share
#             sum_{i<N/4} (1 - (1 - p_i)^n) / E[D] of the rows, within 2%; by hash no shard gets
#             more than 1.1 x the mean; the hot shard's link makes the range step slower, and at
#             least its bytes / its link's rate.
#   cache:    rows pulled + rows served by the cache = rows pushed; the cache serves the distinct
#             rows among the hottest C of each non-refresh batch: sum_{i<C} (1 - (1 - p_i)^n).
#   faults:   a crashed shard: rows pushed = applied + dropped + lost, with some lost; a
#             straggling shard (its host 4 x slower) takes 4 x as long for its updates (the same
#             rows, the host's rate / 4), the other shards as long as without it.
#   dense="allreduce": the shards hold and receive only rows: bytes in = rows x (dim x 4 + 8), and
#             a push's gradient bytes are its rows' alone (grad_bytes: the mean push to the K
#             shards, so P steps K grad_bytes / K = the rows' bytes over the run).
#   prefetch: the pull fetched during an iteration is the next batch's rows: pulled = pushed.
#   a shard crashed while it collects a version (the reviewer's case): the pushes it had accepted
#             for it are lost, not applied (applied <= steps x workers x shards).
# usage: ps_sparse.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: ps_sparse.sh PATH/TO/dmlsim}
. tests/lib.sh
command -v python3 >/dev/null || { echo "ps_sparse.sh: python3 is needed" >&2; exit 1; }

# job NAME TABLE PS [EXTRA]: a 4-worker PS job (2 nodes x 2 A100, 2 dedicated shard hosts)
job() {
    cat >"$tmp/$1.xml" <<EOF
<?xml version="1.0"?>
<scenario name="$1" seed="7">
  <cluster nodes="2" gpus-per-node="2" gpu="a100" nic="ib-hdr" ps-nodes="4"/>
  <model name="rec">
    $2
    <layer name="mlp" params="1e6" flops="2e6"/>
  </model>
  <training strategy="ps" batch-per-gpu="${B:-1024}" steps="${STEPS:-3}" dtype="fp32"
            optimizer="sgd" timeout="${TIMEOUT:-30s}">
    <ps $3/>
  </training>
  ${4:-}
</scenario>
EOF
}
run() {
    "$dmlsim" run "$tmp/$1.xml" --json "$tmp/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err" ||
        ko "$1: exited $?: $(head -3 "$tmp/$1.err")"
}

job exact '<embedding name="t" rows="16" dim="32" pooling="4"/>' 'shards="2" placement="dedicated"'
job exactno '<embedding name="t" rows="16" dim="32" pooling="4"/>' 'shards="2" placement="dedicated" sparse="no"'
B=512 STEPS=8 job uni '<embedding name="t" rows="1000" dim="8"/>' 'shards="2" placement="dedicated"'
B=512 STEPS=8 job zipf '<embedding name="t" rows="1000" dim="8" ids="zipf" zipf="1.1"/>' 'shards="2" placement="dedicated"'
HOT='<embedding name="t" rows="100000" dim="512" pooling="8" ids="zipf" zipf="1.2"/>'
B=2048 job range "$HOT" 'shards="4" placement="dedicated" shard-by="range"'
B=2048 job hash "$HOT" 'shards="4" placement="dedicated" shard-by="hash"'
B=2048 STEPS=8 job cache "$HOT" 'shards="4" placement="dedicated" cache-rows="1000" cache-staleness="4"'
B=2048 STEPS=6 job crash "$HOT" 'shards="4" placement="dedicated" shard-by="range"' \
    '<recovery replacement-timeout="60s"/><faults><crash host="ps0.cpu" at="5ms" restart-after="10ms"/></faults>'
B=2048 job dense "$HOT" 'shards="4" placement="dedicated" dense="allreduce"'
B=2048 job slow "$HOT" 'shards="4" placement="dedicated" shard-by="hash"' \
    '<faults><straggler host="ps0" factor="4"/></faults>'
B=2048 STEPS=4 job prefetch "$HOT" 'shards="4" placement="dedicated" prefetch="yes"'
B=1024 STEPS=6 TIMEOUT=200ms job midcrash \
    '<embedding name="t" rows="100000" dim="64" pooling="8" ids="zipf" zipf="1.1"/>' \
    'shards="4" placement="dedicated"' \
    '<checkpoint every="2 steps" mode="sync" target="remote"/><recovery replacement-timeout="60s"/><faults><crash host="ps1" at="2.5ms" restart-after="1ms"/></faults>'
for n in exact exactno uni zipf range hash cache crash dense slow prefetch midcrash; do run $n; done

verdict=$(python3 - "$tmp" <<'EOF'
import json, math, sys
tmp = sys.argv[1]
S = {n: json.load(open(f"{tmp}/{n}.json"))["summary"]
     for n in "exact exactno uni zipf range hash cache crash dense slow prefetch midcrash".split()}
out = []
def check(name, got, want, tol=0.0):
    ok = abs(got - want) <= tol * abs(want) + 1e-9
    out.append(("ok " if ok else "FAIL ") + f"{name}: {got:.6g} against {want:.6g} (tol {tol})")
def probs(N, s):
    if s is None: return [1.0 / N] * N
    w = [(i + 1) ** -s for i in range(N)]; H = sum(w); return [x / H for x in w]
def distinct(p, n, lo=0, hi=None):
    return sum(-math.expm1(n * math.log1p(-q)) for q in p[lo:hi])
P, steps = 4, 3
e = S["exact"]
check("exact rows pushed", e["emb_rows_pushed"], P * steps * 16)
check("exact rows pulled", e["emb_rows_pulled"], P * steps * 16)
check("exact sparse bytes", e["sparse_bytes"], 2 * P * steps * 16 * (32 * 4 + 8))
check("exact tables-whole bytes", e["dense_equiv_bytes"], 2 * P * steps * 16 * 32 * 4)
check("exact shards' bytes in", sum(r["bytes_in"] for r in e["shard_table"]),
      P * steps * (4e6 + 16 * (32 * 4 + 8)))
check("sparse=no shards' bytes in", sum(r["bytes_in"] for r in S["exactno"]["shard_table"]),
      P * steps * (4e6 + 16 * 32 * 4))
check("exact pushed = applied", e["emb_rows_applied"], e["emb_rows_pushed"])
for name, s in (("uni", None), ("zipf", 1.1)):
    ED = distinct(probs(1000, s), 512)
    batches = 4 * 8
    se = math.sqrt(ED / batches)  # Var D <= E[D] for occupancy counts
    got = S[name]["emb_rows_pushed"] / batches
    ok = abs(got - ED) <= 4 * se
    out.append(("ok " if ok else "FAIL ") + f"{name} distinct rows a batch: {got:.2f} against "
               f"E[D] = {ED:.2f} (4 SE = {4 * se:.2f})")
p = probs(100000, 1.2)
n = 2048 * 8
ED = distinct(p, n)
share0 = distinct(p, n, 0, 25000) / ED
r = S["range"]["shard_table"]
check("range: hot shard's share of rows", r[0]["rows_in"] / sum(x["rows_in"] for x in r), share0, 0.02)
h = [x["rows_in"] for x in S["hash"]["shard_table"]]
out.append(("ok " if max(h) <= 1.1 * sum(h) / len(h) else "FAIL ") + f"hash spreads rows: max {max(h)} mean {sum(h)/len(h):.0f}")
rs, hs = S["range"]["mean_step_s"], S["hash"]["mean_step_s"]
out.append(("ok " if rs > hs else "FAIL ") + f"the hot shard slows the step: range {rs:.6g} s, hash {hs:.6g} s")
bound = (r[0]["bytes_in"] + r[0]["bytes_out"]) / 3 / r[0]["link_Bps"]
out.append(("ok " if rs >= bound else "FAIL ") + f"range step {rs:.6g} s >= hot shard's bytes / link {bound:.6g} s")
c = S["cache"]
check("cache: pulled + cached = pushed", c["emb_rows_pulled"] + c["emb_rows_cached"], c["emb_rows_pushed"])
cached = distinct(p, n, 0, 1000) * 4 * 6  # 4 workers, 6 of the 8 batches are not refreshes
check("cache: rows served", c["emb_rows_cached"], cached, 0.02)
k = S["crash"]
check("crash: pushed = applied + dropped + lost", k["emb_rows_applied"] + k["emb_rows_dropped"] + k["emb_rows_lost"], k["emb_rows_pushed"])
out.append(("ok " if k["emb_rows_lost"] + k["emb_rows_dropped"] > 0 else "FAIL ") + f"crash: rows lost {k['emb_rows_lost']}, dropped {k['emb_rows_dropped']}")
d = S["dense"]
check("dense=allreduce: shards' bytes in", sum(x["bytes_in"] for x in d["shard_table"]), d["emb_rows_pushed"] * (512 * 4 + 8))
check("dense=allreduce: shard parameters", sum(x["params"] for x in d["shard_table"]), 100000 * 512)
f = S["prefetch"]
check("prefetch: rows pulled = pushed (each batch's own rows)", f["emb_rows_pulled"], f["emb_rows_pushed"])
m = S["midcrash"]
out.append(("ok " if m["applied"] <= 6 * 4 * 4 else "FAIL ") +
           f"a shard crashed while collecting: {m['applied']} slices applied, at most 6 steps x 4 workers x 4 shards = 96")
check("a shard crashed while collecting: rows pushed = applied + dropped + lost", m["emb_rows_applied"] + m["emb_rows_dropped"] + m["emb_rows_lost"], m["emb_rows_pushed"])
check("dense=allreduce: gradient bytes are the rows' only", d["grad_bytes"] * 4 * 3 * 4 / 4, d["emb_rows_pushed"] * (512 * 4 + 8) / 1, 1e-6)
u0, u1 = S["hash"]["shard_table"], S["slow"]["shard_table"]
check("straggling shard: its updates 4 x longer", u1[0]["update_s"] / u0[0]["update_s"], 4, 1e-6)
check("straggling shard: the others' unchanged", u1[1]["update_s"], u0[1]["update_s"], 1e-9)
out.append(("ok " if S["slow"]["mean_step_s"] > S["hash"]["mean_step_s"] else "FAIL ") +
           f"straggling shard slows the step: {S['slow']['mean_step_s']:.6g} s")
print("\n".join(out))
EOF
)
while IFS= read -r line; do
    case $line in
    ok*) ok ;;
    *) ko "$line" ;;
    esac
done <<<"$verdict"
[ -n "${VERBOSE:-}" ] && echo "$verdict"
finish ps_sparse
