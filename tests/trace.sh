#!/bin/bash
# trace.sh - the Perfetto / Chrome traces of shipped scenarios (every strategy, the input pipeline,
# faults, checkpoints, split brain) keep the trace-event format's rules (tests/trace_rules.c: event
# fields and types, complete slices that nest or stay apart on a track, balanced begin/end,
# instant scopes, numeric counters), and carry what the README promises: checkpoints and
# recoveries as slices (one per row of the CSV's events log), counter tracks of throughput,
# samples trained and bytes in flight; the same run gives the same trace byte for byte; slices
# carry their arguments and counter tracks stay bounded (issue 35).
# usage: trace.sh PATH/TO/dmlsim PATH/TO/trace_rules   (run from the repository root)
set -u
dmlsim=${1:?usage: trace.sh PATH/TO/dmlsim PATH/TO/trace_rules}
rules=${2:?usage: trace.sh PATH/TO/dmlsim PATH/TO/trace_rules}
. "$(dirname "$0")/lib.sh"

scenarios="scenarios/resnet50-ring.xml scenarios/staleness.xml scenarios/faults.xml
scenarios/input.xml scenarios/megatron-7.5b.xml scenarios/ci/ring-ckpt-sync.xml
scenarios/ci/ring-ckpt-async.xml scenarios/ci/ring-crash-elastic.xml
scenarios/ci/ring-split-brain.xml scenarios/ci/ring-partition-rollback.xml
scenarios/ci/ring-straggler-removal.xml scenarios/ci/ps-shard-crash.xml
scenarios/ci/ps-step-crash.xml scenarios/ci/ps-mtbf-linkdown.xml scenarios/ci/hybrid-crash.xml
scenarios/ci/input-cache-crash.xml scenarios/ci/hybrid-input-slow-store.xml
scenarios/ci/hybrid-restart-spare.xml"

# The tids of the tracks named $2 or "$2 N" (a named track's lanes) in trace $1, as a regex.
tids_of() {
    sed -n "s/^{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": \([0-9]*\), .*\"name\": \"$2\( [0-9]*\)\{0,1\}\"}},$/\1/p" "$1" |
        paste -sd'|'
}
# The X slices on the tracks named $2 (and their lanes) in trace $1, whose name matches $3.
slices_on() {
    local tids
    tids=$(tids_of "$1" "$2")
    [ -n "$tids" ] || { echo 0; return; }
    grep -cE "^\{\"ph\": \"X\", \"pid\": 0, \"tid\": ($tids), \"name\": \"$3" "$1"
}
# The values of counter track $2 in trace $1, one a line, in file order.
counter() {
    sed -n "s/^{\"ph\": \"C\", \"pid\": 0, \"tid\": 0, \"name\": \"$2\", \"ts\": [0-9.]*, \"args\": {\"value\": \([-0-9.e+]*\)}},\{0,1\}$/\1/p" "$1"
}

for s in $scenarios; do
    n=$(basename "$s" .xml)
    "$dmlsim" run "$s" --trace "$tmp/$n.json" --csv "$tmp/$n.csv" >/dev/null 2>"$tmp/$n.err"
    rc=$?
    [ $rc -eq 0 ] || { ko "$s exited $rc: $(head -c 300 "$tmp/$n.err")"; continue; }
    "$rules" "$tmp/$n.json" >"$tmp/$n.rules" && ok || ko "$s: $(cat "$tmp/$n.rules")"
    # checkpoints and recovery actions: slices on their tracks, one per row of the events log
    for kind in checkpoint recovery; do
        rows=$(grep -c "^$kind," "$tmp/$n.csv")
        track=${kind}s; [ $kind = recovery ] && track=recoveries
        x=$(($(slices_on "$tmp/$n.json" $track '') -
            $(slices_on "$tmp/$n.json" $track '(recovery from|detection of) the fault on ')))
        [ "$x" -eq "$rows" ] && ok || ko "$s: $x slices on the $track tracks, expected the CSV's $rows $kind rows"
        ! grep -q "^{\"ph\": \"i\", .*\"cat\": \"$kind\"" "$tmp/$n.json" && ok ||
            ko "$s: ${kind}s must be slices, not instants"
    done
    # every send completes or dies with its host: bytes in flight never below 0, and 0 at the end
    # of a job that finished (hybrid-crash's failed job leaves its last sends unwaited)
    counter "$tmp/$n.json" 'bytes in flight (B)' >"$tmp/$n.flight"
    [ -s "$tmp/$n.flight" ] && awk '$1 < 0 { exit 1 }' "$tmp/$n.flight" && ok ||
        ko "$s: no bytes in flight counter, or a value below 0"
    [ "$n" = hybrid-crash ] || [ "$(tail -n 1 "$tmp/$n.flight")" = 0 ] && ok ||
        ko "$s: $(tail -n 1 "$tmp/$n.flight") bytes still in flight at the end"
done

# Closed forms of the main job (16 GPUs x batch 64, 5 steps): a throughput value per step, and
# 16 x 64 x 5 = 5120 samples trained at the end.
t=$tmp/resnet50-ring.json
[ "$(counter "$t" 'throughput (samples\/s)' | wc -l)" -eq 5 ] && ok ||
    ko "resnet50-ring: expected 5 throughput counter values, one per step"
[ "$(counter "$t" 'samples trained' | tail -n 1)" = 5120 ] && ok ||
    ko "resnet50-ring: samples trained $(counter "$t" 'samples trained' | tail -n 1), expected 16 x 64 x 5 = 5120"
# A crash's outage: one recovery slice from the crash to training progressing, with its detection.
e=$tmp/ring-crash-elastic.json
[ "$(slices_on "$e" recoveries 'recovery from the fault on node2.gpu0')" -eq 1 ] &&
    [ "$(slices_on "$e" recoveries 'detection of the fault on node2.gpu0')" -eq 1 ] && ok ||
    ko "ring-crash-elastic: expected one recovery and one detection slice for the crash of node2.gpu0"
# The hybrid's input pipeline: a replica's waits for its batch on its reader's track (its first
# stage's tensor rank 0: ranks 0 and 2 under tp 2 x dp 2, order tp-dp-pp), one per microbatch:
# 10 steps x 4 microbatches = 40 each; the lanes' own tracks after the 8 ranks', named by replica.
h=$tmp/hybrid-input-slow-store.json
w0=$(grep -c '^{"ph": "X", "pid": 0, "tid": 0, "name": "input wait"' "$h")
w2=$(grep -c '^{"ph": "X", "pid": 0, "tid": 2, "name": "input wait"' "$h")
wall=$(grep -c '"name": "input wait"' "$h")
[ "$w0" -eq 40 ] && [ "$w2" -eq 40 ] && [ "$wall" -eq 80 ] && ok ||
    ko "hybrid-input-slow-store: input waits $w0 on rank 0, $w2 on rank 2, $wall in all; expected 40, 40, 80"
[ "$(tids_of "$h" 'replica 0 loader')" = 8 ] && [ "$(tids_of "$h" 'replica 1 copy to GPU')" = 11 ] &&
    ok || ko "hybrid-input-slow-store: the lanes' tracks must follow the 8 ranks' (8..11)"
# Slices carry their arguments (issue 35). ResNet-50's gradient in fp32 is 25,557,032 x 4 B =
# 102,228,128 B: rank 0's all-reduces of step 1 (its buckets) add up to it, each names its
# algorithm (the scenario's nccl), and every forward says its step and the model's layers.
r=$tmp/resnet50-ring.json
ar=$(grep '^{"ph": "X", "pid": 0, "tid": 1, "name": "all-reduce"' "$r" | grep '"step": 1[,}]' |
    sed -n 's/.*"args": {"bytes": \([0-9]*\), "algorithm": "nccl", "step": 1}}.*/\1/p' |
    awk '{ s += $1; n++ } END { printf "%d %.0f", n, s }')
[ "${ar#* }" = $((25557032 * 4)) ] && [ "${ar% *}" -gt 0 ] && ok ||
    ko "resnet50-ring: rank 0's step-1 all-reduces (count, bytes) $ar; expected their bytes to add up to 25557032 x 4"
[ "$(grep -c '"name": "forward", .*"args": {"step": [1-5], "layers": "0-53"}' "$r")" -eq $((16 * 5)) ] && ok ||
    ko "resnet50-ring: expected 16 x 5 forward slices with their step and layers 0-53 (54 layers)"
# The hybrid's operations: rank 0 (stage 0 of pp 2: the embedding and 8 / 2 = 4 blocks, layers
# 0-4) runs each of its 4 microbatches' forward once a step, 10 steps: 10 per microbatch.
for mb in 0 1 2 3; do
    n=$(grep -c "^{\"ph\": \"X\", \"pid\": 0, \"tid\": 0, \"name\": \"forward\", .*\"microbatch\": $mb, \"chunk\": 0, \"layers\": \"0-4\"}}" "$h")
    [ "$n" -eq 10 ] && ok || ko "hybrid-input-slow-store: rank 0 has $n forwards of microbatch $mb with layers 0-4; expected 10"
done
# Counters are bounded (trace_sample.h): a track keeps at most 2000 changes, else one mean per
# each of 2000 intervals and its last value, 2001 samples at most. faults.xml's bytes in flight
# changed about 450,000 times: it is written sampled, so 1000 to 2001 samples; every track is
# within the bound, and the whole trace stays under 100,000 events (it had 527,445).
f=$tmp/faults.json
nf=$(counter "$f" 'bytes in flight (B)' | wc -l)
[ "$nf" -ge 1000 ] && [ "$nf" -le 2001 ] && ok ||
    ko "faults: $nf bytes-in-flight samples; expected 1000..2001 (sampled to 2000 intervals)"
most=$(sed -n 's/^{"ph": "C", "pid": 0, "tid": 0, "name": "\([^"]*\)".*/\1/p' "$f" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
[ "${most:-0}" -le 2001 ] && [ "$(grep -c '^{"ph"' "$f")" -lt 100000 ] && ok ||
    ko "faults: a counter track has $most samples (at most 2001), or the trace has 100,000 events or more"

# Deterministic: the same scenario and seed give the same trace.
"$dmlsim" run scenarios/ci/ring-split-brain.xml --trace "$tmp/again.json" >/dev/null 2>&1
cmp -s "$tmp/ring-split-brain.json" "$tmp/again.json" && ok ||
    ko "ring-split-brain: two runs gave different traces"

finish trace
