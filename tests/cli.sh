#!/usr/bin/env bash
# cli.sh - whole-program tests of the dmlsim command line, run from the repository root by ctest:
#   bad scenarios (tests/bad/*.xml): exit 1, one stderr line "FILE:LINE: ...", nothing on stdout,
#     no output file; each file's second line says what to expect:
#       <!-- expect: LINE | TEXT -->            message starts "tests/bad/NAME.xml:LINE: ", has TEXT
#       <!-- expect-prefix: PREFIX | TEXT -->   message starts with PREFIX, has TEXT
#   determinism: the same scenario twice gives byte-identical output;
#   presets: platforms/*.xml are exactly what `dmlsim platform` generates from platforms/src/;
#   shipped scenarios validate against scenarios/scenario.dtd (xmllint, independent of dmlsim)
#     and run with exit 0;
#   usage: --help, --version, unknown commands.
set -u
dmlsim=${1:?usage: cli.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"


# ---- bad scenarios ---------------------------------------------------------------------------
nbad=0
for f in tests/bad/*.xml; do
    nbad=$((nbad + 1))
    spec=$(sed -n '2p' "$f")
    case "$spec" in
    *"expect-prefix:"*)
        prefix=$(sed -E 's/.*expect-prefix: *([^|]*[^ |]) *\|.*/\1/' <<<"$spec")" "
        ;;
    *"expect:"*)
        line=$(sed -E 's/.*expect: *([0-9]+) *\|.*/\1/' <<<"$spec")
        prefix="$f:$line: "
        ;;
    *)
        ko "$f: no expect comment on line 2"
        continue
        ;;
    esac
    text=$(sed -E 's/.*\| *(.*[^ ]) *-->.*/\1/; s/ \(run only\)$//' <<<"$spec")
    "$dmlsim" run "$f" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    nlines=$(wc -l <"$tmp/err")
    msg=$(head -n 1 "$tmp/err")
    if [ "$rc" -ne 1 ]; then
        ko "$f: exit $rc, expected 1 ($msg)"
    elif [ "$nlines" -ne 1 ]; then
        ko "$f: $nlines stderr lines, expected 1: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        ko "$f: wrote to stdout on bad input"
    elif [ "${msg#"$prefix"}" = "$msg" ]; then
        ko "$f: message '$msg' does not start with '$prefix'"
    elif [ "${msg#*"$text"}" = "$msg" ]; then
        ko "$f: message '$msg' does not contain '$text'"
    else
        ok
    fi
    # The platform command must leave no output file behind either (errors found only while
    # running, marked "(run only)", do not concern it).
    case "$spec" in *"(run only)"*) continue ;; esac
    mkdir -p "$tmp/o" && rm -f "$tmp/o"/*
    "$dmlsim" platform "$f" -o "$tmp/o/out.xml" >/dev/null 2>&1
    rc=$?
    if [ "$rc" -ne 1 ] || [ -n "$(ls -A "$tmp/o")" ]; then
        ko "$f: platform -o: exit $rc, left: $(ls -A "$tmp/o")"
    else
        ok
    fi
done
[ "$nbad" -ge 15 ] && ok || ko "only $nbad bad scenarios, expected at least 15"

# ---- usage -----------------------------------------------------------------------------------
"$dmlsim" --help >"$tmp/help" 2>&1 && grep -q "^usage: dmlsim" "$tmp/help" && ok || ko "--help"
"$dmlsim" --version | grep -Eq '^dmlsim [0-9]+\.[0-9]+\.[0-9]+$' && ok || ko "--version"
"$dmlsim" frobnicate >/dev/null 2>&1
[ $? -eq 1 ] && ok || ko "unknown command must exit 1"
"$dmlsim" run >/dev/null 2>&1
[ $? -eq 1 ] && ok || ko "run without a file must exit 1"
"$dmlsim" platform scenarios/p2p.xml >/dev/null 2>&1
[ $? -eq 1 ] && ok || ko "platform without -o must exit 1"
"$dmlsim" catalog >"$tmp/cat" && [ "$(grep -c 'pcie-gen\|nvlink\|ib-\|roce-\|tcp-' "$tmp/cat")" -ge 13 ] &&
    ok || ko "catalog lists the link classes"

# ---- determinism -----------------------------------------------------------------------------
"$dmlsim" run scenarios/p2p.xml >"$tmp/a" 2>&1 && "$dmlsim" run scenarios/p2p.xml >"$tmp/b" 2>&1 &&
    cmp -s "$tmp/a" "$tmp/b" && ok || ko "scenarios/p2p.xml: two runs differ"
"$dmlsim" run scenarios/ci/ring-mtbf-jitter.xml --csv "$tmp/f1.csv" >"$tmp/fa" 2>&1 &&
    "$dmlsim" run scenarios/ci/ring-mtbf-jitter.xml --csv "$tmp/f2.csv" >"$tmp/fb" 2>&1 &&
    cmp -s "$tmp/fa" "$tmp/fb" && cmp -s "$tmp/f1.csv" "$tmp/f2.csv" && ok ||
    ko "a run with random faults differs between two runs with the same seed"
"$dmlsim" run scenarios/ci/ring-mtbf-jitter.xml --fault-plan >"$tmp/plan1" &&
    "$dmlsim" run scenarios/ci/ring-mtbf-jitter.xml --fault-plan --set scenario.seed=9 >"$tmp/plan2" &&
    grep -q ' crash ' "$tmp/plan1" && ! cmp -s "$tmp/plan1" "$tmp/plan2" && ok ||
    ko "--fault-plan: expected crashes, and another plan for another seed"
"$dmlsim" run scenarios/ci/ring-crash-elastic.xml --set expect.min=11 --set expect.max=11 >/dev/null 2>&1
[ $? -eq 3 ] && ok || ko "a failed <expect> must exit 3"
"$dmlsim" platform platforms/src/h100-fat-tree-32x8.xml -o "$tmp/p1.xml" &&
    "$dmlsim" platform platforms/src/h100-fat-tree-32x8.xml -o "$tmp/p2.xml" &&
    cmp -s "$tmp/p1.xml" "$tmp/p2.xml" && ok || ko "platform generation differs between runs"
# topology="flat" (SimGrid <cluster>) simulates the same steps as the star it folds (see the file)
for lvl in message flow; do
    "$dmlsim" run tests/data/star-16.xml --set training.level=$lvl | grep -E '^ +[0-9]+ ' >"$tmp/st" &&
        "$dmlsim" run tests/data/star-16.xml --set training.level=$lvl --set cluster.topology=flat |
        grep -E '^ +[0-9]+ ' >"$tmp/fl" && [ "$(wc -l <"$tmp/st")" -eq 2 ] &&
        cmp -s "$tmp/st" "$tmp/fl" && ok || ko "flat and star step tables differ ($lvl level)"
done

# ---- overrides, output files, sweeps ---------------------------------------------------------
sc=scenarios/resnet50-ring.xml
"$dmlsim" run "$sc" --set training.steps=2 --set training.gpus=4 --csv "$tmp/s.csv" \
    --json "$tmp/s.json" --summary "$tmp/s.sum" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || ko "run with --set/--csv/--json/--summary: exit $rc: $(cat "$tmp/out")"
# two steps in the table, CSV with a header and two rows, JSON with 4 workers, summary of 2 lines
[ "$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' "$tmp/out")" -eq 2 ] && ok ||
    ko "--set training.steps=2 should give 2 step rows"
[ "$(grep -c '^step,' "$tmp/s.csv")" -eq 2 ] && grep -v '^#' "$tmp/s.csv" | head -1 | grep -q '^kind,t_s,step,' &&
    ok || ko "--csv: expected a header and 2 step rows"
grep -q '"workers": 4,' "$tmp/s.json" && grep -q '"efficiency"' "$tmp/s.json" && ok ||
    ko "--json: expected workers 4 and a summary"
[ "$(wc -l <"$tmp/s.sum")" -eq 2 ] && ok || ko "--summary: expected 2 lines"
"$dmlsim" run "$sc" --set nosuch.attr=1 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "the scenario has no <nosuch>" "$tmp/err" && ok ||
    ko "--set on a missing element must exit 1 with a message"
"$dmlsim" run "$sc" --set training.algo=butterfly >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$sc:[0-9]*: <training algo=\"butterfly\">" "$tmp/err" && ok ||
    ko "--set with a bad value must give the element's FILE:LINE message"
# --cfg (issue 16): SimGrid's own options; an unknown key is one line, exit 1, no output
"$dmlsim" run "$sc" --cfg=nosuch/key:1 --json "$tmp/cfg.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^--cfg=nosuch/key:1: Bad config key" \
    "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/cfg.json" ] && ok ||
    ko "--cfg with an unknown key must exit 1 with one line: $(cat "$tmp/err")"
"$dmlsim" run "$sc" --cfg network/model >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "expected KEY:VALUE" "$tmp/err" && ok || ko "--cfg without a value"
# a key dmlsim sets itself is the user's: LV08 on every link slows the step (x13.01 latency)
"$dmlsim" run "$sc" --set training.steps=2 >"$tmp/cm02" 2>/dev/null
"$dmlsim" run "$sc" --set training.steps=2 --cfg=network/model:LV08 >"$tmp/lv08" 2>/dev/null
grep -q "^# simgrid cfg   network/model:LV08 (--cfg)" "$tmp/lv08" &&
    ! cmp -s <(grep -E '^ +[0-9]+ ' "$tmp/cm02") <(grep -E '^ +[0-9]+ ' "$tmp/lv08") && ok ||
    ko "--cfg=network/model:LV08 must reach SimGrid and change the steps"
"$dmlsim" run scenarios/p2p.xml --summary "$tmp/p.sum" >/dev/null 2>&1
[ $? -eq 1 ] && [ ! -e "$tmp/p.sum" ] && ok || ko "--summary on a benchmark must exit 1, no file"
for j in 1 2; do
    "$dmlsim" sweep "$sc" --set training.gpus=1,2,8 --set training.steps=1,2 -j $j \
        -o "$tmp/sweep$j.txt" >"$tmp/sweep$j.out" 2>/dev/null || ko "sweep -j $j failed"
done
cmp -s "$tmp/sweep1.txt" "$tmp/sweep2.txt" && cmp -s "$tmp/sweep1.txt" "$tmp/sweep1.out" && ok ||
    ko "sweep: -j 1 and -j 2 tables differ, or -o differs from stdout"
[ "$(grep -vc '^#' "$tmp/sweep1.txt")" -eq 6 ] && ok || ko "sweep: expected 3 x 2 = 6 rows"
"$dmlsim" sweep "$sc" --set training.gpus=1,999 -o "$tmp/bad.txt" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(awk '!/^#/ {print $NF}' "$tmp/bad.txt" | head -1)" = ok ] &&
    grep -q 'point 2 failed' "$tmp/err" && ok ||
    ko "sweep with a bad point must exit 1 and keep the good point's row (tests/sweep.sh: more)"

# parameter server: the accounting line adds up (computed = applied + stale + late)
"$dmlsim" run scenarios/staleness.xml --set training.gpus=4 --set ps.staleness=0 >"$tmp/ps.out" 2>&1
# "#   gradients  C computed = A applied + S dropped stale + L dropped late + X lost to failures"
awk '$2 == "gradients" && $4 == "computed" { ok = ($3 == $6 + $9 + $13 + $17) } END { exit !ok }' \
    "$tmp/ps.out" && grep -q 'accounting       both identities hold' "$tmp/ps.out" && ok ||
    ko "ps: gradients do not add up: $(grep -E 'gradients|accounting' "$tmp/ps.out")"
grep -q 'dropped stale' "$tmp/ps.out" && ! grep -q ' 0 dropped stale' "$tmp/ps.out" && ok ||
    ko "ps: async with tau = 0 and 4 workers must drop stale pushes"
# a one-value axis is a fixed override: no column of its own (1 axis + 11 summary columns +
# the status)
"$dmlsim" sweep scenarios/ps-vs-ring.xml --set training.strategy=allreduce \
    --set training.gpus=1,2 >"$tmp/fixed.txt" 2>/dev/null
grep -q 'fixed: training.strategy=allreduce' "$tmp/fixed.txt" &&
    [ "$(awk '!/^#/ {print NF}' "$tmp/fixed.txt" | sort -u)" = 13 ] && ok ||
    ko "sweep: a one-value axis must be listed as fixed, not as a column"

# trace: 16 workers x 2 steps x (forward, backward, wait, update) = 128 compute slices,
# 16 x 2 steps x 5 buckets (DDP's first, 1 MiB-limit bucket holds the fc layer alone, then 25 MiB
# ones: ddp_bucket.h) = 160 all-reduce slices, and 16 broadcasts of the model at the start
"$dmlsim" run scenarios/resnet50-ring.xml --set training.steps=2 --trace "$tmp/t.json" >/dev/null
[ "$(grep -o '"ph": "X"' "$tmp/t.json" | wc -l)" -eq 304 ] &&
    [ "$(grep -o '"name": "broadcast"' "$tmp/t.json" | wc -l)" -eq 16 ] &&
    [ "$(grep -o '"name": "all-reduce"' "$tmp/t.json" | wc -l)" -eq 160 ] &&
    head -n 1 "$tmp/t.json" | grep -q '^{"displayTimeUnit": "ms", "traceEvents": \[$' && ok ||
    ko "--trace: expected 304 slices, 160 of them all-reduces and 16 broadcasts, in Chrome trace JSON"

# ---- output paths ----------------------------------------------------------------------------
# Devices and files that must not change are reached through symlinks in $tmp: a regression that
# replaces the path given replaces the link, never /dev/null or a shipped file (as root, the old
# rename-onto-the-path turned /dev/null into a regular file).
o="$tmp/outp"
mkdir -p "$o"
ln -s /dev/null "$o/null"
ln -s /dev/full "$o/full"
no_temps() { [ -z "$(find "$o" -name '*.tmp.*')" ]; }
run2() { "$dmlsim" run "$sc" --set training.steps=2 "$@"; }
run2 --csv "$o/null" --json "$o/null" --summary "$o/null" --trace "$o/null" >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && [ -L "$o/null" ] && [ -c /dev/null ] && no_temps && ok ||
    ko "outputs to a link to /dev/null must be written through it: $(cat "$tmp/err")"
# a write error (ENOSPC) is exit 1 with one FILE:0 line, and no other output of the set appears
run2 --csv "$o/c.csv" --json "$o/full" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "^$o/full:0: cannot write: No space left on device$" "$tmp/err" && [ ! -e "$o/c.csv" ] &&
    [ -L "$o/full" ] && no_temps && ok || ko "--json to /dev/full must exit 1, write nothing: $(cat "$tmp/err")"
"$dmlsim" sweep "$sc" --set training.steps=1 --set training.gpus=1,2 -o "$o/full" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$o/full:0: cannot write: No space left on device$" "$tmp/err" && ok ||
    ko "sweep -o /dev/full must exit 1: $(cat "$tmp/err")"
"$dmlsim" platform platforms/src/h100-fat-tree-32x8.xml -o "$o/full" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$o/full:0: cannot write: No space left on device$" "$tmp/err" && ok ||
    ko "platform -o /dev/full must exit 1: $(cat "$tmp/err")"
run2 >"$o/full" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q '^dmlsim: cannot write the standard output: No space left' "$tmp/err" && ok ||
    ko "a run whose stdout is /dev/full must exit 1"
# a symlink is followed: it stays a link (here relative and dangling at first), its target is
# written, then replaced
ln -s real.csv "$o/link.csv"
for i in 1 2; do
    run2 --csv "$o/link.csv" >/dev/null 2>"$tmp/err" && [ -L "$o/link.csv" ] &&
        [ "$(readlink "$o/link.csv")" = real.csv ] && grep -v '^#' "$o/real.csv" | head -1 | grep -q '^kind,t_s,' &&
        no_temps && ok || ko "--csv to a symlink must write its target (run $i): $(cat "$tmp/err")"
done
# a FIFO is written in place, to its reader
mkfifo "$o/fifo"
cat "$o/fifo" >"$o/fifo.out" &
catpid=$!
run2 --csv "$o/fifo" >/dev/null 2>"$tmp/err"
rc=$?
if [ -p "$o/fifo" ]; then wait $catpid; else kill $catpid; wait $catpid; fi 2>/dev/null
[ $rc -eq 0 ] && [ -p "$o/fifo" ] && cmp -s "$o/fifo.out" "$o/real.csv" && ok ||
    ko "--csv to a FIFO must write through it: exit $rc, $(cat "$tmp/err")"
# an output that is an input is refused before anything runs, the input unchanged
cp "$sc" "$o/s.xml"
ln -s s.xml "$o/s-link"
"$dmlsim" run "$o/s.xml" --set training.steps=2 --json "$o/s.json" --csv "$o/s-link" \
    >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && cmp -s "$sc" "$o/s.xml" && [ -L "$o/s-link" ] && [ ! -e "$o/s.json" ] &&
    [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -q "^$o/s-link:0: --csv names the scenario file $o/s.xml; expected an output path" "$tmp/err" &&
    ok || ko "--csv naming the scenario must exit 1 and change nothing: $(cat "$tmp/err")"
"$dmlsim" sweep "$o/s.xml" --set training.gpus=1,2 -o "$o/s-link" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && cmp -s "$sc" "$o/s.xml" && [ ! -s "$tmp/out" ] &&
    grep -q "^$o/s-link:0: -o names the scenario file" "$tmp/err" && ok ||
    ko "sweep -o naming the scenario must exit 1: $(cat "$tmp/err")"
"$dmlsim" platform "$o/s.xml" -o "$o/s.xml" 2>"$tmp/err"
[ $? -eq 1 ] && cmp -s "$sc" "$o/s.xml" && grep -q "^$o/s.xml:0: -o names the scenario file" "$tmp/err" &&
    ok || ko "platform -o naming the scenario must exit 1: $(cat "$tmp/err")"
cp platforms/calib/spec-h100.calib "$o/h.calib"
run2 --calib "$o/h.calib" --summary "$o/h.calib" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && cmp -s platforms/calib/spec-h100.calib "$o/h.calib" &&
    grep -q "^$o/h.calib:0: --summary names the calibration file" "$tmp/err" && ok ||
    ko "--summary naming the calibration file must exit 1: $(cat "$tmp/err")"
ln -s "$PWD/platforms/h100-fat-tree-32x8.xml" "$o/plat.xml"
"$dmlsim" run scenarios/scaling.xml --set training.steps=1 --trace "$o/plat.xml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ -L "$o/plat.xml" ] && grep -q "^$o/plat.xml:0: --trace names the platform file" "$tmp/err" &&
    ok || ko "--trace naming the user platform must exit 1: $(cat "$tmp/err")"

# ---- sweep grids -----------------------------------------------------------------------------
# at most 10000 points, counted without overflow (8 x 256 values once wrapped to 0 points)
v256=$(seq -s, 256)
axes=()
for e in a b c d e f g h; do axes+=(--set "$e.x=$v256"); done
"$dmlsim" sweep "$sc" "${axes[@]}" -o "$o/grid.txt" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -e "$o/grid.txt" ] && [ ! -s "$tmp/out" ] &&
    grep -q '^dmlsim sweep: the grid has 256 x 256 x 256 x 256 x 256 x 256 x 256 x 256 points, more than 10000' \
        "$tmp/err" && ok || ko "sweep: 8 x 256 points must be refused: $(head -1 "$tmp/err")"
# (timeout: a sweep that started those 10100 runs would take long to fail)
timeout -k 10 60 "$dmlsim" sweep "$sc" --set "training.steps=$(seq -s, 101)" \
    --set "training.gpus=$(seq -s, 100)" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'the grid has 101 x 100 points, more than 10000' "$tmp/err" &&
    ok || ko "sweep: 10100 points must be refused"
"$dmlsim" sweep "$sc" --set training.gpus=1,2 --set training.gpus=4 -o "$o/dup.txt" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -e "$o/dup.txt" ] && [ ! -s "$tmp/out" ] &&
    grep -q '^dmlsim sweep: --set training.gpus is given twice; expected each axis once' "$tmp/err" &&
    ok || ko "sweep: a duplicate axis must be refused: $(head -1 "$tmp/err")"

# ---- interrupts ------------------------------------------------------------------------------
# Every wait is a bounded poll (0.2 s steps, 120 s at most), so a loaded machine is only slower.
# Background jobs run "$dmlsim" itself, not a shell function (whose subshell would get the signal).
children_of() { # the pids whose parent is $1
    local f pid comm state ppid rest
    for f in /proc/[0-9]*/stat; do
        read -r pid comm state ppid rest 2>/dev/null <"$f" && [ "$ppid" = "$1" ] && echo "$pid"
    done
}
wait_exit() { # waits for background job $1 to end (SIGKILL after 120 s); sets rc
    local i
    for i in $(seq 600); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$1" 2>/dev/null && kill -KILL "$1"
    wait "$1"
    rc=$?
}
# SIGTERM of a sweep whose two children are running: they stop, its folder in $TMPDIR goes
mkdir -p "$tmp/tmpdir"
TMPDIR="$tmp/tmpdir" "$dmlsim" sweep "$sc" --set training.steps=20000,20001,20002 -j 2 \
    >/dev/null 2>"$tmp/err" &
spid=$!
kids=""
for i in $(seq 600); do
    kids=$(children_of $spid)
    [ "$(wc -w <<<"$kids")" -ge 2 ] && [ -n "$(ls -A "$tmp/tmpdir")" ] && break
    sleep 0.2
done
had_dir=$(ls -A "$tmp/tmpdir")
kill -TERM $spid
wait_exit $spid
alive=""
for k in $kids; do kill -0 "$k" 2>/dev/null && alive="$alive $k"; done
[ -n "$alive" ] && kill -KILL $alive 2>/dev/null
[ $rc -eq 143 ] && [ "$(wc -w <<<"$kids")" -ge 2 ] && [ -n "$had_dir" ] && [ -z "$alive" ] &&
    [ -z "$(ls -A "$tmp/tmpdir")" ] && ok ||
    ko "SIGTERM of a sweep: exit $rc (expected 143), children '$kids' left running '$alive', folder '$had_dir' left: $(ls -A "$tmp/tmpdir")"
# SIGTERM while run writes its outputs: a FIFO nobody reads holds it once the regular outputs
# are in their temporary files; the interrupt leaves none of the set and no temporary file
d="$tmp/sigrun"
mkdir -p "$d"
mkfifo "$d/trace.fifo"
"$dmlsim" run "$sc" --set training.steps=2 --csv "$d/s.csv" --json "$d/s.json" \
    --trace "$d/trace.fifo" >/dev/null 2>"$tmp/err" &
rpid=$!
for i in $(seq 600); do
    [ "$(find "$d" -name '*.tmp.*' | wc -l)" -ge 2 ] && break
    kill -0 $rpid 2>/dev/null || break
    sleep 0.2
done
kill -TERM $rpid 2>/dev/null
wait_exit $rpid
[ $rc -eq 143 ] && [ -p "$d/trace.fifo" ] && [ -z "$(find "$d" -name '*.tmp.*')" ] &&
    [ ! -e "$d/s.csv" ] && [ ! -e "$d/s.json" ] && ok ||
    ko "SIGTERM while writing outputs: exit $rc (expected 143), left: $(ls "$d")"
# SIGTERM at any moment of a run leaves all of its outputs or none, and no temporary file
for delay in 0.05 0.15 0.3 0.5 0.8; do
    rm -f "$d"/s.*
    "$dmlsim" run "$sc" --set training.steps=60 --csv "$d/s.csv" --json "$d/s.json" \
        --trace "$d/s.trace" >/dev/null 2>&1 &
    rpid=$!
    sleep $delay
    kill -TERM $rpid 2>/dev/null
    wait_exit $rpid
    n=$(ls "$d" | grep -c '^s\.\(csv\|json\|trace\)$')
    { [ $rc -eq 0 ] || [ $rc -eq 143 ]; } && { [ "$n" -eq 0 ] || [ "$n" -eq 3 ]; } &&
        [ -z "$(find "$d" -name '*.tmp.*')" ] && ok ||
        ko "SIGTERM after ${delay}s: exit $rc, $n of 3 outputs, left: $(ls "$d")"
done
# SIGINT during the simulation: exit 130, not SimGrid's exit 1. A background job of a script
# starts with SIGINT ignored (and dmlsim keeps an ignored signal ignored), so env resets it.
if env --default-signal=INT true 2>/dev/null; then
    env --default-signal=INT "$dmlsim" run "$sc" --set training.steps=20000 --csv "$d/i.csv" \
        >"$d/i.out" 2>"$tmp/err" &
    rpid=$!
    for i in $(seq 600); do [ -s "$d/i.out" ] && break; sleep 0.2; done
    kill -INT $rpid
    wait_exit $rpid
    [ $rc -eq 130 ] && [ ! -e "$d/i.csv" ] && ok || ko "SIGINT of a run: exit $rc, expected 130"
else
    echo "cli: SIGINT test skipped (env --default-signal needs coreutils 8.31 or later)"
fi

# ---- level="auto" ------------------------------------------------------------------------------
# The main job: 4 buckets (102228128 B / 26214400 B, rounded up) x 16 ranks x 2 (16 - 1) steps x
# 32 channels = 61440 messages at most, <= 2^22: message level. The hybrid Llama 3 8B of
# scenarios/llama3-8b-hybrid.xml without its level: 4 x 16 blocks a stage x 16 microbatches x 16
# ranks x 2 (4 - 1) x 32 = 3145728 tensor-parallel messages plus the data-parallel buckets
# (8030261248 parameters, Meta's count, x 2 B / (tp 4 x pp 2) = 2007565312 B: 77 buckets of
# 25 MiB x 16 x 2 (2 - 1) x 32 = 78848): 3224576, message level; with 32 microbatches
# (6291456 + 78848 = 6370304 > 2^22), flow level.
"$dmlsim" run scenarios/resnet50-ring.xml | grep -q '^# training .*(message level; auto: at most 6.14e+04 messages a step' &&
    ok || ko "auto must pick message level for the main job (61440 messages)"
"$dmlsim" run scenarios/resnet50-ring.xml --set training.level=message | grep -q '^# training .*(message level), ' &&
    ok || ko "a level set by the scenario must say no more than its name"
"$dmlsim" run scenarios/llama3-8b-hybrid.xml --unset training.level --set training.steps=1 |
    grep -q '(message level; auto: at most 3.22e+06 messages a step' && ok ||
    ko "auto must pick message level for llama3-8b-hybrid with 16 microbatches (3224576)"
"$dmlsim" run scenarios/llama3-8b-hybrid.xml --unset training.level --set training.steps=1 \
    --set parallel.microbatches=32 | grep -q '(flow level; auto: at most 6.37e+06 messages a step' &&
    ok || ko "auto must pick flow level for llama3-8b-hybrid with 32 microbatches (6370304)"

# Replay (coll_replay.h): tensor groups that fill their node, no fault planned: the outputs are
# byte-identical with replay="no" (every collective simulated in full).
cat >"$tmp/rp.xml" <<'XML'
<scenario name="rp" seed="1">
  <cluster nodes="2" gpus-per-node="4" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="4"/>
  <model preset="gpt" layers="8" hidden="1024" heads="16" seq="256" vocab="8"/>
  <training strategy="hybrid" batch-per-gpu="1" steps="2" dtype="bf16" optimizer="adam" level="flow">
    <parallel tp="4" pp="2" dp="1" microbatches="4"/>
  </training>
</scenario>
XML
"$dmlsim" run "$tmp/rp.xml" --json "$tmp/rp1.json" >"$tmp/rp1.out" &&
    "$dmlsim" run "$tmp/rp.xml" --set training.replay=no --json "$tmp/rp2.json" >"$tmp/rp2.out" &&
    cmp -s "$tmp/rp1.out" "$tmp/rp2.out" && cmp -s "$tmp/rp1.json" "$tmp/rp2.json" && ok ||
    ko "replay must not change a hybrid run's outputs"

# ---- calibration ------------------------------------------------------------------------------
"$dmlsim" calib --spec h100 -o "$tmp/h100.calib" && head -1 "$tmp/h100.calib" |
    grep -q '^dmlsim-calibration 1$' && ok || ko "calib --spec must write a calibration file"
for g in p100 v100 a100 h100 h200; do
    "$dmlsim" calib --spec $g | cmp -s - "platforms/calib/spec-$g.calib" && ok ||
        ko "platforms/calib/spec-$g.calib is not what 'dmlsim calib --spec $g' writes"
done
# the profile measured on an H200 (kernels/measured/h200-2026-12-04) loads against the h200 catalog
# entry; its 4096^3 FP32 GEMM at 51.47 TFLOP/s is 76.8% of the H200's 67 TFLOP/s FP32 peak (datasheet)
"$dmlsim" calib platforms/calib/measured-h200.calib >"$tmp/mh" &&
    grep -q '^# gpu  *NVIDIA H200 x 1 (catalog: h200)' "$tmp/mh" &&
    grep -q '^ *fp32  *4096  *4096  *4096  *51.47  *76.8%' "$tmp/mh" && ok ||
    ko "the measured H200 profile must load against the h200 catalog entry"
# the shipped spec profile gives the same run as the built-in default (both 0.78 / 0.92)
"$dmlsim" run scenarios/resnet50-ring.xml | grep -v '^# calibration' >"$tmp/d1"
"$dmlsim" run scenarios/resnet50-ring.xml --calib platforms/calib/spec-h100.calib |
    grep -v '^# calibration' >"$tmp/d2"
cmp -s "$tmp/d1" "$tmp/d2" && ok || ko "--calib spec-h100 must match the default profile"
"$dmlsim" validate tests/data/nccl-tests-4gpu-pcie.log --gpu v100 --intra pcie-gen3 >"$tmp/val"
[ $? -eq 0 ] && [ "$(grep -c '^ *allreduce' "$tmp/val")" -eq 12 ] &&
    grep -q 'geometric-mean error allreduce' "$tmp/val" && ok ||
    ko "validate: expected 12 all-reduce rows and a geometric mean"
"$dmlsim" validate tests/data/nccl-tests-4gpu-pcie.log >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'expected --gpu' "$tmp/err" && ok ||
    ko "validate without a known GPU must ask for --gpu"
"$dmlsim" run scenarios/resnet50-ring.xml --calib /no/such/file >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q '^/no/such/file:0: cannot read calibration' "$tmp/err" && ok ||
    ko "--calib with a missing file must exit 1 with FILE:0"
# network calibration: a synthetic log (t = 12 us + S / 180 GB/s, tests/data/nccl/) is fitted on
# every other size and reproduced there; the held-out sizes are reported with their error
syn=tests/data/nccl/synthetic-h100-alpha-beta.log
"$dmlsim" validate "$syn" >"$tmp/syn" && [ "$(grep -c ' fit$' "$tmp/syn")" -eq 6 ] &&
    [ "$(grep -c ' held-out$' "$tmp/syn")" -eq 5 ] &&
    awk '/ fit$/ { e = $(NF-1); if (e < 0) e = -e; if (e > 0.5) bad++ } END { exit bad > 0 }' \
        "$tmp/syn" && grep -q 'calibrated [0-9.]*% over the 5 held-out sizes' "$tmp/syn" && ok ||
    ko "validate: fitted sizes must be reproduced within 0.5% and held-out ones reported"
# --calib with that log: the benchmark's all-reduces take the measured times (all sizes fitted)
"$dmlsim" run tests/data/bench-h100-8.xml --calib "$syn" >"$tmp/cal" &&
    grep -q '^# network cal   allreduce on one node h100: 8 GPU(s) on 1 node(s) measured at 11' \
        "$tmp/cal" &&
    awk '$1 ~ /^[0-9]+$/ { want = 12 + $1 / 180000; e = ($5 - want) / want; if (e < 0) e = -e;
         if (e > 0.005) bad++; n++ } END { exit !(n == 11 && bad == 0) }' "$tmp/cal" && ok ||
    ko "--calib must make the benchmark's all-reduces take the measured times (within 0.5%)"
# ... and training on that scope changes with it
"$dmlsim" run tests/data/train-h100-8.xml | grep '^ *1 ' >"$tmp/t0"
"$dmlsim" run tests/data/train-h100-8.xml --calib "$syn" | grep '^ *1 ' >"$tmp/t1"
[ -s "$tmp/t0" ] && ! cmp -s "$tmp/t0" "$tmp/t1" && ok ||
    ko "--calib with measured collectives must change a training step's time"
# measured collectives of an unknown GPU cannot be fitted: a FILE:0 error, not a silent skip
"$dmlsim" run scenarios/resnet50-ring.xml --calib tests/data/nccl-tests-4gpu-pcie.log \
    >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q '^tests/data/nccl-tests-4gpu-pcie.log:0: cannot tell which catalog GPU' \
    "$tmp/err" && ok || ko "--calib with collectives of an unknown GPU must be a FILE:0 error"
"$dmlsim" shapes --batch 32 | grep -q '^1000 32 2048 ' && ok ||
    ko "shapes: expected ResNet's fc layer 1000 x 32 x 2048 as M N K = 1000 32 2048"

# ---- the kernel model (issue 27) -------------------------------------------------------------
# The seed notes' case: small batches on an A100 (GPU-Util high, power low) are CPU-bound. Eager,
# each of ResNet-50's ~500 kernels a step costs the CPU 5 us, about 2.5 ms, more than the kernels
# take on the GPU at batch 2 (under 2 ms), so the GPU waits a fifth of its step or more; as one
# CUDA graph it waits for one launch (5 us) only: under 1%.
cpu_bound() {
    cat >"$tmp/cpu.xml" <<XML
<scenario name="seed-cpu-bound">
  <cluster nodes="1" gpus-per-node="1" gpu="a100"/>
  <model preset="resnet50"/>
  <training strategy="allreduce" batch-per-gpu="2" steps="2" dtype="bf16" amp="autocast" host="$1"/>
</scenario>
XML
    "$dmlsim" run "$tmp/cpu.xml" --json "$tmp/cpu.json" >/dev/null &&
        sed -n 's/^ *"host_wait_fraction": \([-0-9.e+]*\),$/\1/p' "$tmp/cpu.json"
}
w_eager=$(cpu_bound eager)
w_graphs=$(cpu_bound graphs)
awk -v e="$w_eager" -v g="$w_graphs" 'BEGIN { exit !(e >= 0.2 && g < 0.01) }' && ok ||
    ko "ResNet-50 at batch 2 on an A100: eager must wait for the CPU >= 20% ($w_eager), graphs < 1% ($w_graphs)"
cat >"$tmp/flash.xml" <<XML
<scenario name="flash-on-v100">
  <cluster nodes="1" gpus-per-node="1" gpu="v100"/>
  <model preset="bert-large" attention="flash"/>
  <training strategy="allreduce" batch-per-gpu="2" steps="1" dtype="fp16"/>
</scenario>
XML
"$dmlsim" run "$tmp/flash.xml" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "flash.xml:3: <model attention=\"flash\">: FlashAttention needs compute capability 8.0 or later" "$tmp/err" && ok ||
    ko "attention=flash on a V100 must be a FILE:LINE error: $(cat "$tmp/err")"
sed -i 's/preset="bert-large" attention="flash"/preset="resnet50" head="squad"/' "$tmp/flash.xml"
"$dmlsim" run "$tmp/flash.xml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'flash.xml:3: <model head>: only meaningful with preset="bert-large"' "$tmp/err" &&
    ok || ko "head on resnet50 must be a FILE:LINE error: $(cat "$tmp/err")"
cat >"$tmp/head.xml" <<XML
<scenario name="bert-heads-hybrid">
  <cluster nodes="1" gpus-per-node="2" gpu="h100"/>
  <model preset="bert-large" head="pretraining" seq="128"/>
  <training strategy="hybrid" batch-per-gpu="2" steps="1" dtype="bf16" optimizer="adam">
    <parallel tp="2"/>
  </training>
</scenario>
XML
"$dmlsim" run "$tmp/head.xml" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'head.xml:3: <model head>: the hybrid strategy' "$tmp/err" && ok ||
    ko "a BERT head under the hybrid strategy must be a FILE:LINE error: $(cat "$tmp/err")"
"$dmlsim" shapes --calib platforms/calib/measured-h200.calib >"$tmp/cmp" &&
    [ "$(grep -c '^  *bf16 ' "$tmp/cmp")" -eq 77 ] &&
    grep -q '^# the other rows (205 GEMMs): geometric-mean error' "$tmp/cmp" && ok ||
    ko "shapes --calib must compare the H200 profile's 308 GEMMs with the model"

# ---- presets ---------------------------------------------------------------------------------
for src in platforms/src/*.xml; do
    name=$(basename "$src")
    if "$dmlsim" platform "$src" -o "$tmp/$name" && cmp -s "$tmp/$name" "platforms/$name"; then
        ok
    else
        ko "platforms/$name is not what 'dmlsim platform $src' generates (regenerate it)"
    fi
done

# ---- shipped scenarios -----------------------------------------------------------------------
if ! command -v xmllint >/dev/null; then
    ko "xmllint (libxml2-utils) is needed to validate the shipped scenarios"
fi
for f in scenarios/*.xml platforms/src/*.xml; do
    if command -v xmllint >/dev/null; then
        xmllint --noout --nonet --dtdvalid scenarios/scenario.dtd "$f" 2>"$tmp/lint" && ok ||
            ko "$f does not validate: $(cat "$tmp/lint")"
    fi
    "$dmlsim" run "$f" >"$tmp/out" 2>"$tmp/err" && ok || ko "$f: run failed: $(cat "$tmp/err")"
done
# campaigns (dmlsim campaign: tests/campaign.sh plays the small one): valid, loaded, fit in memory
for f in scenarios/campaigns/*.xml; do
    if command -v xmllint >/dev/null; then
        xmllint --noout --nonet --dtdvalid scenarios/scenario.dtd "$f" 2>"$tmp/lint" && ok ||
            ko "$f does not validate: $(cat "$tmp/lint")"
    fi
    "$dmlsim" run "$f" --memory-only >"$tmp/out" 2>"$tmp/err" && ok ||
        ko "$f: --memory-only failed: $(cat "$tmp/err")"
done

finish cli
