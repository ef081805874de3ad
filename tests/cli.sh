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
"$dmlsim" run scenarios/ci/ring-crash-elastic.xml --set expect.min=11 >/dev/null 2>&1
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
[ "$(grep -c '^step,' "$tmp/s.csv")" -eq 2 ] && head -1 "$tmp/s.csv" | grep -q '^kind,t_s,step,' &&
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
"$dmlsim" run scenarios/p2p.xml --csv "$tmp/p.csv" >/dev/null 2>&1
[ $? -eq 1 ] && [ ! -e "$tmp/p.csv" ] && ok || ko "--csv on a benchmark must exit 1, no file"
for j in 1 2; do
    "$dmlsim" sweep "$sc" --set training.gpus=1,2,8 --set training.steps=1,2 -j $j \
        -o "$tmp/sweep$j.txt" >"$tmp/sweep$j.out" 2>/dev/null || ko "sweep -j $j failed"
done
cmp -s "$tmp/sweep1.txt" "$tmp/sweep2.txt" && cmp -s "$tmp/sweep1.txt" "$tmp/sweep1.out" && ok ||
    ko "sweep: -j 1 and -j 2 tables differ, or -o differs from stdout"
[ "$(grep -vc '^#' "$tmp/sweep1.txt")" -eq 6 ] && ok || ko "sweep: expected 3 x 2 = 6 rows"
"$dmlsim" sweep "$sc" --set training.gpus=1,999 -o "$tmp/bad.txt" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -e "$tmp/bad.txt" ] && grep -q 'point 2 failed' "$tmp/err" && ok ||
    ko "sweep with a bad point must exit 1 and write nothing"

# parameter server: the accounting line adds up (computed = applied + stale + late)
"$dmlsim" run scenarios/staleness.xml --set training.gpus=4 --set ps.staleness=0 >"$tmp/ps.out" 2>&1
# "#   gradients  C computed = A applied + S dropped stale + L dropped late + X lost to failures"
awk '$2 == "gradients" && $4 == "computed" { ok = ($3 == $6 + $9 + $13 + $17) } END { exit !ok }' \
    "$tmp/ps.out" && grep -q 'accounting       both identities hold' "$tmp/ps.out" && ok ||
    ko "ps: gradients do not add up: $(grep -E 'gradients|accounting' "$tmp/ps.out")"
grep -q 'dropped stale' "$tmp/ps.out" && ! grep -q ' 0 dropped stale' "$tmp/ps.out" && ok ||
    ko "ps: async with tau = 0 and 4 workers must drop stale pushes"
# a one-value axis is a fixed override: no column of its own (1 axis + 11 summary columns)
"$dmlsim" sweep scenarios/ps-vs-ring.xml --set training.strategy=allreduce \
    --set training.gpus=1,2 >"$tmp/fixed.txt" 2>/dev/null
grep -q 'fixed: training.strategy=allreduce' "$tmp/fixed.txt" &&
    [ "$(awk '!/^#/ {print NF}' "$tmp/fixed.txt" | sort -u)" = 12 ] && ok ||
    ko "sweep: a one-value axis must be listed as fixed, not as a column"

# trace: 16 workers x 2 steps x (forward, backward, wait, update) = 128 compute slices,
# 16 x 2 steps x 4 buckets = 128 all-reduce slices, and 16 broadcasts of the model at the start
"$dmlsim" run scenarios/resnet50-ring.xml --set training.steps=2 --trace "$tmp/t.json" >/dev/null
[ "$(grep -o '"ph": "X"' "$tmp/t.json" | wc -l)" -eq 272 ] &&
    [ "$(grep -o '"name": "broadcast"' "$tmp/t.json" | wc -l)" -eq 16 ] &&
    [ "$(grep -o '"name": "all-reduce"' "$tmp/t.json" | wc -l)" -eq 128 ] &&
    head -n 1 "$tmp/t.json" | grep -q '^{"displayTimeUnit": "ms", "traceEvents": \[$' && ok ||
    ko "--trace: expected 272 slices, 128 of them all-reduces and 16 broadcasts, in Chrome trace JSON"

# ---- calibration ------------------------------------------------------------------------------
"$dmlsim" calib --spec h100 -o "$tmp/h100.calib" && head -1 "$tmp/h100.calib" |
    grep -q '^dmlsim-calibration 1$' && ok || ko "calib --spec must write a calibration file"
for g in p100 v100 a100 h100 h200; do
    "$dmlsim" calib --spec $g | cmp -s - "platforms/calib/spec-$g.calib" && ok ||
        ko "platforms/calib/spec-$g.calib is not what 'dmlsim calib --spec $g' writes"
done
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

finish cli
