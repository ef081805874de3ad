#!/bin/bash
# outputs.sh - the outputs of one run agree with each other (stdout, CSV, JSON, trace) and with
# closed forms; each check guards a defect of issue 10.
#   tests/outputs.sh PATH/TO/dmlsim      (run from the repository root)
set -u
dmlsim=${1:?usage: outputs.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"
# The value of "KEY": in a JSON file (the first one; our JSON has one key per line in "summary").
jnum() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),\{0,1\}$/\1/p" "$1" | head -1; }
# |a - b| <= rel * |b| (+ abs)
close() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" -v r="$3" -v e="${4:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m + e) }'; }

# 1. ring-straggler-removal: after the membership shrinks, stdout's samples/s per step is the
#    CSV's (stdout once used the initial global batch); the step rows cover the whole run (the
#    recovery sits in the first step after it), so their times add up to the run time; the
#    straggler is detected and recovered from (both printed 0 before).
s=scenarios/ci/ring-straggler-removal.xml
"$dmlsim" run $s --csv $tmp/a.csv --json $tmp/a.json >$tmp/a.out
paste -d' ' <(awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$/ {print $5, $6}' $tmp/a.out) \
    <(awk -F, '$1 == "step" {print $7, $8}' $tmp/a.csv) >$tmp/pairs
[ "$(wc -l <$tmp/pairs)" -eq 12 ] && awk '{ d = $1 - $3; if (d < 0) d = -d; if (d > 0.051 || $2 != $4) bad = 1 } END { exit bad }' $tmp/pairs &&
    ok || ko "straggler removal: stdout and CSV per-step samples/s or workers differ: $(cat $tmp/pairs | tr '\n' ';')"
grep -q ' 3$' <(tail -1 $tmp/pairs) && ok || ko "straggler removal: the last step should have 3 workers"
# closed form: a step's samples are its members x the per-GPU batch of 16 (no corrupt batches)
awk -F, '$1 == "step" { d = $7 * $4 - $8 * 16; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad }' $tmp/a.csv &&
    ok || ko "straggler removal: a step's samples/s x time should be its workers x 16"
sum=$(awk -F, '$1 == "step" {s += $4} END {printf "%.9g", s}' $tmp/a.csv)
close "$sum" "$(jnum $tmp/a.json time_s)" 1e-6 && ok || ko "straggler removal: step times add to $sum, run time $(jnum $tmp/a.json time_s)"
awk -v d="$(jnum $tmp/a.json max_detect_s)" -v r="$(jnum $tmp/a.json max_recover_s)" 'BEGIN { exit !(d > 0 && r > d) }' &&
    ok || ko "straggler removal: detect $(jnum $tmp/a.json max_detect_s) and recover $(jnum $tmp/a.json max_recover_s) should be > 0, recover > detect"

# 2. async PS: the step rows (rounds of every worker) and the summary agree: throughput = the
#    rows' samples / the run time, and the rows' times add to it (rows once were worker 0's).
s=scenarios/ci/ps-async-corrupt.xml
"$dmlsim" run $s --csv $tmp/b.csv --json $tmp/b.json >$tmp/b.out
thr=$(awk -F, '$1 == "step" {n += $7 * $4; t += $4} END {printf "%.9g", n / t}' $tmp/b.csv)
close "$thr" "$(jnum $tmp/b.json throughput)" 1e-6 && ok || ko "async ps: rows give $thr samples/s, summary $(jnum $tmp/b.json throughput)"
close "$(awk -F, '$1 == "step" {t += $4} END {printf "%.9g", t}' $tmp/b.csv)" "$(jnum $tmp/b.json time_s)" 1e-6 &&
    ok || ko "async ps: step times do not add to the run time"
# closed form: no failure here, so every batch read and not corrupt was computed within the run
close "$(awk -v x="$(jnum $tmp/b.json throughput)" -v t="$(jnum $tmp/b.json time_s)" 'BEGIN {printf "%.9g", x * t}')" \
    "$(awk -v r="$(jnum $tmp/b.json read_samples)" -v k="$(jnum $tmp/b.json skipped_samples)" 'BEGIN {print r - k}')" 1e-6 &&
    ok || ko "async ps: throughput x time should be the samples read less the corrupt ones"
grep -q "^#   throughput       $(printf '%.1f' "$(jnum $tmp/b.json throughput)") samples/s" $tmp/b.out &&
    ok || ko "async ps: stdout throughput differs from the JSON's"

# 3. sync PS with a backup worker: each version applies exactly its quorum of pushes, so
#    goodput = versions x quorum x batch / run time (closed form); throughput is the rows'
#    samples (the slow worker's work counts only if it ended within the run: its reads after
#    the last version once inflated it), so it lies between goodput and reads / run time; the
#    slow worker's late pushes are dropped, not replayed.
s=scenarios/ci/ps-backup-straggler.xml
"$dmlsim" run $s --csv $tmp/c.csv --json $tmp/c.json >$tmp/c.out
q=$(sed -n 's/.*backup-workers="\([0-9]*\)".*/\1/p' $s); P=4; b=16; T=$(jnum $tmp/c.json time_s)
want=$(awk -v v="$(jnum $tmp/c.json steps_completed)" -v q=$((P - q)) -v b=$b -v t="$T" 'BEGIN {printf "%.9g", v * q * b / t}')
close "$(jnum $tmp/c.json goodput)" "$want" 1e-6 && ok || ko "backup workers: goodput $(jnum $tmp/c.json goodput), closed form $want"
rows=$(awk -F, '$1 == "step" {n += $7 * $4} END {printf "%.9g", n}' $tmp/c.csv)
close "$(jnum $tmp/c.json throughput)" "$(awk -v n="$rows" -v t="$T" 'BEGIN {printf "%.9g", n / t}')" 1e-6 &&
    awk -v g="$(jnum $tmp/c.json goodput)" -v x="$(jnum $tmp/c.json throughput)" -v r="$(jnum $tmp/c.json read_samples)" -v t="$T" \
        'BEGIN { exit !(x > g && x < r / t) }' && ok ||
    ko "backup workers: throughput $(jnum $tmp/c.json throughput) should be the rows' $rows / $T, above goodput and below reads / time"
[ "$(jnum $tmp/c.json replayed_samples)" = 0 ] && ok || ko "backup workers: $(jnum $tmp/c.json replayed_samples) samples called replayed"
close "$(jnum $tmp/c.json dropped_samples)" "$(awk -v d="$(jnum $tmp/c.json dropped_late)" -v b=$b 'BEGIN {print d * b}')" 1e-9 &&
    ok || ko "backup workers: dropped samples $(jnum $tmp/c.json dropped_samples) != dropped late x batch / shards"
grep -q 'to 1 shard(s)' $tmp/c.out && ! grep -q 'bucket(s)' $tmp/c.out && ok || ko "ps: text should say shard(s), not bucket(s)"
grep -q '"strategy": "ps"' $tmp/c.json && ! grep -q '"algo"' $tmp/c.json && ok || ko "ps: JSON should name the strategy and no algorithm"

# 4. Step-triggered crashes work under PS and reach the CSV, the trace and detect/recover.
s=scenarios/ci/ps-step-crash.xml
"$dmlsim" run $s --csv $tmp/d.csv --json $tmp/d.json --trace $tmp/d.trace >$tmp/d.out
grep -q '^fault,.*"crash of node2.gpu0 at step 3"' $tmp/d.csv && grep -q '^fault,.*"restart of node2.gpu0"' $tmp/d.csv &&
    ok || ko "ps step crash: the CSV lacks the crash or the restart"
grep -q 'crash of node2.gpu0 at step 3' $tmp/d.trace && ok || ko "ps step crash: the trace lacks the crash"
grep -q '"kind": "fault".*crash of node2.gpu0 at step 3' $tmp/d.json && ok || ko "ps step crash: the JSON events lack the crash"

# 5. A job that cannot continue says why on stderr and exits 4 (not 0), with its outputs.
sed '/metric="job_failed"/d; /metric="final_workers"/d' scenarios/ci/ring-all-dead.xml >$tmp/dead.xml
"$dmlsim" run $tmp/dead.xml --json $tmp/e.json >$tmp/e.out 2>$tmp/e.err
rc=$?
[ $rc -eq 4 ] && grep -q 'the simulated job failed: .*0 of the last membership' $tmp/e.err &&
    grep -q '"job_failed": true' $tmp/e.json && grep -q '^#   job              FAILED' $tmp/e.out &&
    [ "$(jnum $tmp/e.json final_workers)" = 0 ] && ok || ko "all workers dead: exit $rc, stderr '$(cat $tmp/e.err)'"

# 6. One idle meaning, a closed form: one GPU computes all the time, so idle = 0; the JSON's
#    summary has exactly the metrics <expect> knows (the error message lists them).
cat >$tmp/one.xml <<'XML'
<?xml version="1.0"?>
<scenario name="one-gpu" seed="1">
  <cluster nodes="1" gpus-per-node="1" gpu="h100"/>
  <model name="one-layer"><layer name="l" params="1e6" flops="1e10"/></model>
  <training strategy="allreduce" batch-per-gpu="16" steps="2" optimizer="sgd"/>
</scenario>
XML
"$dmlsim" run $tmp/one.xml --json $tmp/f.json >/dev/null
close "$(jnum $tmp/f.json idle_fraction)" 0 0 1e-9 && ok || ko "one GPU: idle $(jnum $tmp/f.json idle_fraction), closed form 0"
sed 's/metric="[a-z_]*"/metric="nonesuch"/' scenarios/ci/ring-all-dead.xml >$tmp/bad.xml
"$dmlsim" run $tmp/bad.xml 2>&1 | sed 's/.*expected one of: //' | tr -d ' ' | tr ',' '\n' | sort >$tmp/all.names
grep -v : $tmp/all.names >$tmp/expect.names # the families (bytes_on:CLASS) are lists in the JSON
grep -qx 'bytes_on:CLASS' $tmp/all.names && grep -q '"bytes_per_link_class": {' $tmp/f.json && ok ||
    ko "<expect> should take bytes_on:CLASS, which the JSON has as bytes_per_link_class"
sed -n '/"summary": {/,/^  }/p' $tmp/f.json | sed -n 's/^    "\([a-z_0-9]*\)": \([-0-9.e+]*\|null\),\{0,1\}$/\1/p' | sort >$tmp/json.names
[ -s $tmp/expect.names ] && diff $tmp/expect.names $tmp/json.names >/dev/null && ok ||
    ko "JSON summary keys and <expect> metrics differ: $(diff $tmp/expect.names $tmp/json.names | tr '\n' ' ')"

# 5. Numerics (with Debian's Fashion-MNIST): the CSV's eval rows, the JSON's evals and the trace's
#    test-accuracy counter are the same evaluations; --timing adds one stderr line and changes no
#    output.
s=scenarios/ci/numerics-ring-survivor.xml
if [ -d /usr/share/datasets/fashion-mnist ]; then
    "$dmlsim" run $s --csv $tmp/n.csv --json $tmp/n.json --trace $tmp/n.trace >$tmp/n.out 2>$tmp/n.err
    "$dmlsim" run $s --csv $tmp/n2.csv --timing >$tmp/n2.out 2>$tmp/n2.err
    awk -F, '$1 == "eval" { split($9, a, /[=;]/); printf "%.6f %.4f\n", $2, a[2] }' $tmp/n.csv >$tmp/n.csv.ev
    sed -n 's/^ *{"step": [0-9]*, "t_s": \([-0-9.e+]*\), "accuracy": \([-0-9.e+]*\),.*/\1 \2/p' $tmp/n.json |
        awk '{ printf "%.6f %.4f\n", $1, $2 }' >$tmp/n.json.ev
    sed -n 's/^{"ph": "C", "pid": 0, "tid": 0, "name": "test accuracy", "ts": \([0-9.]*\), "args": {"value": \([0-9.e+-]*\)}},\{0,1\}$/\1 \2/p' $tmp/n.trace |
        awk '{ printf "%.6f %.4f\n", $1 / 1e6, $2 }' >$tmp/n.trace.ev
    [ "$(wc -l <$tmp/n.csv.ev)" -eq 6 ] && cmp -s $tmp/n.csv.ev $tmp/n.json.ev && cmp -s $tmp/n.csv.ev $tmp/n.trace.ev &&
        ok || ko "numerics: CSV, JSON and trace evaluations differ (or not 6: steps 50, 100, ..., 300)"
    cmp -s $tmp/n.out $tmp/n2.out && cmp -s $tmp/n.csv $tmp/n2.csv && [ ! -s $tmp/n.err ] &&
        [ "$(wc -l <$tmp/n2.err)" -eq 1 ] && grep -q '^timing: .* s wall = numerics .* s (gradients' $tmp/n2.err &&
        ok || ko "numerics: --timing must add one stderr line and change nothing else: $(cat $tmp/n2.err)"
else
    echo "outputs: numerics checks skipped: /usr/share/datasets/fashion-mnist is absent"
fi

finish outputs
