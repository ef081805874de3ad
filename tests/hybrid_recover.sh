#!/bin/bash
# hybrid_recover.sh - the hybrid strategy's restart from its last checkpoint (hybrid_recover.h)
# against closed forms computed here from runs without the fault.
#
# 1. scenarios/ci/hybrid-restart-spare.xml: node1 dies at step="12" (12 steps committed), the
#    last checkpoint is of step 10, node2 is a spare. Its run time must be
#        T = T0 + timeout + restart + L + 2 s + delta
#    T0       the same job without the fault (checkpoints included), run here;
#    timeout  2 s: the peers' waits on the dead node time out (detection);
#    restart  2 s: <recovery restart-time>;
#    L        the reload: each of the 8 ranks reads its (tensor, stage) shard whole, dp x the
#             checkpoint's bytes R in all, through the store's disk (3 GB/s, CATALOG_STORE_BPS)
#             and then its NIC (ib-ndr, 50 GB/s): L = dp R / 3e9 + dp R / 50e9;
#    2 s      steps 11 and 12 again, s the step time of the job without checkpoints (run here);
#    delta    in [0, s): the crashed step's part before the first wait on the dead node.
#    Tolerance: T in [closed - 10 ms, closed + s + 10 ms] (the link's latencies and the disk's
#    sharing; 10 ms is 0.2% of the recovery's 5 s).
# 2. scenarios/ci/hybrid-restart-shrink.xml: the job goes on as dp 1 with 8 microbatches: its
#    steps after the restart's first (4 workers, no checkpoint in them) must take the step time of a
#    tp 2 x pp 2 x dp 1 job of 8 microbatches on 4 GPUs without faults, within 5% (its pipeline
#    runs inside one node there, across two in the shrunk layout).
# usage: hybrid_recover.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: hybrid_recover.sh PATH/TO/dmlsim}
. tests/lib.sh
command -v python3 >/dev/null || { echo "hybrid_recover.sh: python3 is needed" >&2; exit 1; }

# the value of summary metric $2 in JSON report $1
metric() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary'][sys.argv[2]])" "$1" "$2"; }

spare=scenarios/ci/hybrid-restart-spare.xml
# without the fault: no <recovery>, <faults> or <expect>; and also without checkpoints
sed '/<recovery/d; /<faults>/,/<\/faults>/d; /<expect/d' $spare >"$tmp/nofault.xml"
sed '/<checkpoint/d' "$tmp/nofault.xml" >"$tmp/nockpt.xml"
for n in nofault nockpt; do
    "$dmlsim" run "$tmp/$n.xml" --json "$tmp/$n.json" >/dev/null 2>"$tmp/$n.err" ||
        ko "$n: exited $?: $(cat "$tmp/$n.err")"
done
"$dmlsim" run $spare --json "$tmp/spare.json" >/dev/null 2>"$tmp/spare.err" ||
    ko "spare: exited $?: $(cat "$tmp/spare.err")"
T0=$(metric "$tmp/nofault.json" time_s)
R=$(metric "$tmp/nofault.json" checkpoint_bytes)
s=$(metric "$tmp/nockpt.json" mean_step_s)
T=$(metric "$tmp/spare.json" time_s)
verdict=$(python3 - "$T0" "$R" "$s" "$T" <<'EOF'
import sys
T0, R, s, T = map(float, sys.argv[1:])
dp, timeout, restart = 2, 2.0, 2.0
L = dp * R / 3e9 + dp * R / 50e9
closed = T0 + timeout + restart + L + 2 * s
lo, hi = closed - 0.010, closed + s + 0.010
ok = lo <= T <= hi
print(("ok" if ok else "bad") + f" T={T:.6f} closed={closed:.6f} (T0 {T0:.6f} + 2 + 2 + L {L:.6f}"
      f" + 2 x {s:.6f}) range [{lo:.6f}, {hi:.6f}]")
EOF
)
echo "spare: $verdict"
[[ $verdict == ok* ]] && ok || ko "spare: run time off the closed form: $verdict"

# the shrunk layout's steps against a dp 1 job of 8 microbatches on 4 GPUs
shrink=scenarios/ci/hybrid-restart-shrink.xml
sed '/<recovery/d; /<faults>/,/<\/faults>/d; /<expect/d; /<checkpoint/d;
     s/dp="2" microbatches="4"/dp="1" microbatches="8"/; s/timeout="2s"/timeout="2s" gpus="4"/' \
    $shrink >"$tmp/dp1.xml"
"$dmlsim" run "$tmp/dp1.xml" --json "$tmp/dp1.json" >/dev/null 2>"$tmp/dp1.err" ||
    ko "dp1: exited $?: $(cat "$tmp/dp1.err")"
"$dmlsim" run $shrink --json "$tmp/shrink.json" >/dev/null 2>"$tmp/shrink.err" ||
    ko "shrink: exited $?: $(cat "$tmp/shrink.err")"
verdict=$(python3 - "$tmp/dp1.json" "$tmp/shrink.json" <<'EOF'
import json, sys
s1 = json.load(open(sys.argv[1]))['summary']['mean_step_s']
# the first row after the restart covers the restart itself (from the last row before it)
rows = [r for r in json.load(open(sys.argv[2]))['steps'][13:] if r['workers'] == 4 and r['step'] % 5]
bad = [r for r in rows if abs(r['time_s'] - s1) > 0.05 * s1]
ok = len(rows) == 23 and not bad  # steps 12 to 40 less the 6 with a checkpoint
print(("ok" if ok else "bad") + f" {len(rows)} steps on 4 ranks, dp 1 step {s1:.6f} s"
      + (f", off: {bad[:2]}" if bad else ""))
EOF
)
echo "shrink: $verdict"
[[ $verdict == ok* ]] && ok || ko "shrink: $verdict"
finish hybrid_recover
