#!/usr/bin/env bash
# harden_ps.sh - issue 28's regressions (ps): each reproducer, kept small, broke a promise of the
# README before its fix (a crash, a hang, a silent exit 0 or a wrong count).
#   tests/harden_ps.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: harden_ps.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

# A sync PS scenario NAME.xml in $tmp: NODES x GPUS (dedicated parameter-server node), the
# two-layer model of tests/property.sh (9.2 ms of compute a step on an H100), 10 steps; EXTRA:
# more attributes of <training> (a timeout), PS: more of <ps>, FAULTS: <faults> children.
scen() { # NAME NODES GPUS EXTRA PS FAULTS
    cat >"$tmp/$1.xml" <<XML
<?xml version="1.0"?>
<scenario name="$1" seed="1">
  <cluster nodes="$2" gpus-per-node="$3" gpu="h100" nic="ib-ndr" ps-nodes="1"/>
  <model name="two-layer"><layer name="l0" params="5e5" flops="5e9"/><layer name="l1" params="5e5" flops="5e9"/></model>
  <training strategy="ps" batch-per-gpu="16" steps="10" optimizer="sgd"$4><ps shards="1" placement="dedicated" mode="sync"$5/></training>
  <faults>$6</faults>
</scenario>
XML
}

# run NAME: dmlsim run $tmp/NAME.xml (events in $tmp/NAME.csv), stdout in $tmp/out, stderr in
# $tmp/err; sets rc. A wall-clock limit: every run must end.
run() {
    timeout 120 "$dmlsim" run "$tmp/$1.xml" --csv "$tmp/$1.csv" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# The report's numbers: steps committed, failures reported, final workers, the gradients line
# (computed applied stale late lost), consumed samples, run time, lost updates.
steps() { sed -n 's/^#   steps committed  \([0-9]*\);.*/\1/p' "$tmp/out"; }
failures() { sed -n 's/.*; failures reported \([0-9]*\);.*/\1/p' "$tmp/out"; }
final() { sed -n 's/.*; final workers \([0-9]*\)$/\1/p' "$tmp/out"; }
grads() { sed -n 's/^#   gradients *\([0-9]*\) computed = \([0-9]*\) applied + \([0-9]*\) dropped stale + \([0-9]*\) dropped late + \([0-9]*\) lost.*/\1 \2 \3 \4 \5/p' "$tmp/out"; }
consumed() { sed -n 's/^#   samples .* read = \([0-9]*\) consumed.*/\1/p' "$tmp/out"; }
skipped() { sed -n 's/^#   samples .* consumed + \([0-9]*\) skipped.*/\1/p' "$tmp/out"; }
runtime() { sed -n 's/^#   run time *\([0-9.]*\) s.*/\1/p' "$tmp/out"; }
lostupd() { sed -n 's/^#   lost updates *\([0-9]*\) .*/\1/p' "$tmp/out"; }
# between X LO HI: LO < X < HI (decimals)
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x > lo && x < hi) }'; }
# completed WHAT: the last run exited 0, said "job completed", and nothing on stderr; every
# identity held
completed() {
    if [ $rc -eq 0 ] && grep -q '^#   job              completed' "$tmp/out" &&
        ! grep -qv ': warning: detection dominates: ' "$tmp/err" &&
        grep -q 'accounting       both identities hold' "$tmp/out"; then ok
    else ko "$1: exit $rc, $(grep '^#   job' "$tmp/out"), stderr: $(head -c 300 "$tmp/err")"; fi
}
# failed WHAT PATTERN: exit 4, one line on stderr matching PATTERN (grep -E), the report says so
failed() {
    if [ $rc -eq 4 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -qE "the simulated job failed: $2" "$tmp/err" &&
        grep -q '^#   job              FAILED' "$tmp/out"; then ok
    else ko "$1: exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi
}
# same WHAT GOT EXPECTED
same() { if [ "$2" = "$3" ]; then ok; else ko "$1: got '$2', expected '$3'"; fi; }

# ---- 1. a dead node leader under local aggregation, default timeouts --------------------------
# 2 nodes x 2 GPUs, each node's GPUs reduce to its first; node0's leader dies at 5 ms. The shard
# waited for its push with the 1 h deadline while node1's leader gave up on its pull after the
# 600 s replacement timeout ("a shard unreachable" although the shard was up); then empty
# versions every hour: 9 of 10 steps, 1 gradient applied, "job completed" and exit 0. Now the
# shard waits one deadline for the dead leader (the live leader's pull is held meanwhile, not a
# failure), then it is absent: node1's one push per version is applied (10), its 2 GPUs' batches
# consumed (10 x 2 x 16 = 320), the orphaned follower leaves, 2 workers finish, 2 failures
# reported (the shard's missed deadline, the follower's), and the run lasts one deadline plus
# the steps (600 s < T < 601 s: the default watchdog, PyTorch's 10 minutes), not one deadline per version.
scen lead 2 2 '' ' local-aggregation="yes"' '<crash host="node0.gpu0" at="5ms"/>'
run lead
completed "dead leader"
same "dead leader: steps" "$(steps)" 10
same "dead leader: gradients" "$(grads)" "10 10 0 0 0"
same "dead leader: consumed samples" "$(consumed)" 320
same "dead leader: final workers" "$(final)" 2
same "dead leader: failures reported" "$(failures)" 2
grep -q '"worker 1 gave up: its leader, worker 0, is gone"' "$tmp/lead.csv" && ok ||
    ko "dead leader: the orphaned follower's leaving is not in the events"
grep -q 'shard unreachable' "$tmp/lead.csv" && ko "dead leader: a worker gave up on a shard that is up" || ok
between "$(runtime)" 600 601 && ok || ko "dead leader: run time $(runtime) s, expected one deadline"

# ---- 2. a watchdog shorter than a step's compute ----------------------------------------------
# timeout 5 ms, a step computes 9.2 ms, 3 workers. The shard's deadline ran from the version's
# start, so it included the workers' compute: every version went empty at 5 ms and every push
# came late (30 computed, 0 applied, 30 dropped late, goodput 0) with "job completed", exit 0.
# The deadline bounds a wait for the other pushers once the first push came (as a collective's
# bounds the wait for the other members once one entered; the all-reduce trains here): every
# gradient is applied, and the run is the fault-free one, to the bit.
scen short 3 1 ' timeout="5ms"' '' ''
scen nowatch 3 1 '' '' ''
run nowatch
t_free=$(runtime)
run short
completed "short watchdog"
same "short watchdog: gradients" "$(grads)" "30 30 0 0 0"
same "short watchdog: steps" "$(steps)" 10
same "short watchdog: run time" "$(runtime)" "$t_free"

# ---- 3. one dead worker, default timeouts ------------------------------------------------------
# 3 workers, node1's dies at 5 ms for good. The shard waited 1 h for its push, the live workers
# gave up on their pulls after 600 s, and the job failed although the README says a dead worker
# is simply absent. Now: one deadline, then the 2 others train every version (2 x 10 applied),
# 2 finish, one failure reported, nobody gives up.
scen dead 3 1 '' '' '<crash host="node1.gpu0" at="5ms"/>'
run dead
completed "dead worker"
same "dead worker: steps" "$(steps)" 10
same "dead worker: gradients" "$(grads)" "20 20 0 0 0"
same "dead worker: final workers" "$(final)" 2
same "dead worker: failures reported" "$(failures)" 1
grep -q 'gave up' "$tmp/dead.csv" && ko "dead worker: a live worker gave up" || ok
between "$(runtime)" 600 601 && ok || ko "dead worker: run time $(runtime) s, expected one deadline"

# ---- 4. a shard crash is a failure reported ----------------------------------------------------
# 2 workers, the shard's host dies at 25 ms (version 2 reached: 9.7 ms a step) and restarts
# 20 ms later with no checkpoint. It was detected, yet "failures reported 0". Each worker now
# notices the shard's version going back (2 reports), the 2 versions since the start are lost
# and redone, and every version is reached with 2 pushes each (20 applied).
scen shard 2 1 ' timeout="20ms"' '' '<crash host="ps0.cpu" at="25ms" restart-after="20ms"/>'
run shard
completed "shard crash"
same "shard crash: failures reported" "$(failures)" 2
same "shard crash: lost updates" "$(lostupd)" 2
same "shard crash: steps" "$(steps)" 10
same "shard crash: applied" "$(grads | cut -d' ' -f2)" 20

# ---- 5. corrupt batches, default timeouts ------------------------------------------------------
# A corrupt batch left its worker with nothing to push: the shard waited 1 h for it, the others
# gave up after 600 s and the job failed. The worker now tells the shards it has nothing (an
# empty push): every other gradient is applied at once, none late, and the run takes no
# deadline (30 - n computed and applied for n corrupt batches, 16 n samples skipped).
scen corrupt 3 1 '' '' '<corrupt-batch probability="0.05"/>'
run corrupt
completed "corrupt batches"
n=$(grep -c 'corrupt batch skipped' "$tmp/corrupt.csv")
[ "$n" -gt 0 ] && ok || ko "corrupt batches: the seed drew none (the scenario tests nothing)"
same "corrupt batches: gradients" "$(grads)" "$((30 - n)) $((30 - n)) 0 0 0"
same "corrupt batches: skipped samples" "$(skipped)" $((16 * n))
same "corrupt batches: steps" "$(steps)" 10
between "$(runtime)" 0 1 && ok || ko "corrupt batches: run time $(runtime) s, a deadline was waited"

# ---- 6. the verdict: no gradient applied, or versions short --------------------------------------
# Every batch corrupt: versions go by with nothing applied; the job failed, and says why.
scen allbad 3 1 '' '' '<corrupt-batch probability="1"/>'
run allbad
failed "every batch corrupt" "no gradient applied by the shards: 0 computed, 0 dropped stale, 0 dropped late, 0 lost$"
# Every worker dies at 25 ms (version 2 reached): the shard stops once nobody can push; the job
# failed with the versions reached and what became of the workers.
scen alldead 3 1 ' timeout="20ms"' '' '<crash host="node0.gpu0" at="25ms"/><crash host="node1.gpu0" at="25ms"/><crash host="node2.gpu0" at="25ms"/>'
run alldead
failed "every worker dead" "2 of 10 versions reached by every shard when the run ended; 0 of 3 workers finished \(0 gave up, 3 died\)$"
same "every worker dead: steps" "$(steps)" 2

finish harden_ps
