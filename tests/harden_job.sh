#!/usr/bin/env bash
# harden_job.sh - issue 28's regressions (the job's verdict, and SimGrid never reaching the user):
# each reproducer, kept small, broke a promise of the README before its fix.
#   tests/harden_job.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: harden_job.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

# A hybrid job (tp 2 x pp 2 on 2 x 2 H100, flow level: fast under the sanitizers too) with the
# crashes given as "HOST AT" pairs.
hybrid() {
    local f=$tmp/hy.xml crashes="" h at
    while [ $# -gt 0 ]; do crashes+="<crash host=\"$1\" at=\"$2\"/>"; shift 2; done
    cat >"$f" <<XML
<?xml version="1.0"?>
<scenario name="hy" seed="1">
  <cluster nodes="2" gpus-per-node="2" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="2"/>
  <model preset="gpt"/>
  <training strategy="hybrid" batch-per-gpu="1" steps="3" dtype="bf16" optimizer="adam" timeout="1s" level="flow">
    <parallel tp="2" pp="2" dp="1" microbatches="2"/>
  </training>
  <faults>$crashes</faults>
</scenario>
XML
    timeout 120 "$dmlsim" run "$f" >"$tmp/out" 2>"$tmp/err"
}

# Every rank dies at 1 ms, before its first step and before the 1 s watchdog: 0 of 3 steps, so
# the job failed (it said "job completed" and exited 0).
hybrid node0.gpu0 1ms node0.gpu1 1ms node1.gpu0 1ms node1.gpu1 1ms
rc=$?
if [ $rc -eq 4 ] && grep -q "the simulated job failed: 0 of 3 steps committed" "$tmp/err" &&
    grep -q "job              FAILED" "$tmp/out"; then ok; else ko "hybrid, every rank dead: exit $rc, $(cat "$tmp/err")"; fi

# One rank dies while the others wait on it: the job fails with exactly one line on stderr (a
# receive posted for a skipped operation was released while its transfer ran, and SimGrid printed
# a 7-line backtrace before the reason).
for h in node0.gpu1 node1.gpu0 node1.gpu1; do
    for at in 0.3ms 6ms; do
        hybrid $h $at
        rc=$?
        if [ $rc -eq 4 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ! grep -q Backtrace "$tmp/err"; then ok
        else ko "hybrid, $h crashed at $at: exit $rc, stderr: $(head -3 "$tmp/err")"; fi
    done
done

finish harden_job
