#!/bin/bash
# junit.sh - dmlsim run --junit: the report is valid against the JUnit schema CI systems read
# (tests/data/junit/junit.xsd, a transcription of Jenkins xunit's junit-10.xsd), counted by
# tests/junit_validate.c from the elements, and compared with the scenario: one test case per
# <expect> (counted here with grep), a failure per broken bound with its value and bound in the
# message, an error case for a failed job, no file when the run is refused, the same bytes twice.
#   tests/junit.sh PATH/TO/dmlsim PATH/TO/junit_validate      (run from the repository root)
set -u
dmlsim=${1:?usage: junit.sh PATH/TO/dmlsim PATH/TO/junit_validate}
validate=${2:?usage: junit.sh PATH/TO/dmlsim PATH/TO/junit_validate}
xsd=tests/data/junit/junit.xsd
. "$(dirname "$0")/lib.sh"
# The value the text report prints for metric $2 ("# expect NAME in [..]: VALUE ok|FAILED").
textval() { sed -n "s/^# expect $2 .*: \([^ ]*\) \(ok\|FAILED\) .*/\1/p" "$1" | head -1; }

# 1. A passing CI scenario: valid; tests = its <expect> elements, none failed, no error.
s=scenarios/ci/ring-crash-elastic.xml
n=$(grep -c '<expect' $s)
"$dmlsim" run $s --junit $tmp/pass.xml >$tmp/pass.out
rc=$?
"$validate" $xsd $tmp/pass.xml >$tmp/pass.sum 2>$tmp/pass.err && ok || ko "passing: invalid report: $(cat $tmp/pass.err)"
[ $rc -eq 0 ] && grep -qx "suite ring-crash-elastic tests=$n failures=0 errors=0 skipped=0" $tmp/pass.sum &&
    grep -qx "cases=$n failed=0 errored=0" $tmp/pass.sum && ok ||
    ko "passing: exit $rc, expected $n cases and none failed: $(cat $tmp/pass.sum)"
# names and class from the scenario's own bounds; properties with the seed and the version
grep -q '<testcase name="steps_completed == 10" classname="scenarios/ci/ring-crash-elastic" time="0"/>' $tmp/pass.xml &&
    grep -q '<testcase name="failures_detected &gt;= 1"' $tmp/pass.xml &&
    grep -q '<property name="scenario.seed" value="2"/>' $tmp/pass.xml &&
    grep -q "<property name=\"dmlsim.version\" value=\"$("$dmlsim" --version | sed 's/^dmlsim //')\"/>" $tmp/pass.xml &&
    ok || ko "passing: test case names, class or properties: $(cat $tmp/pass.xml)"
"$dmlsim" run $s --junit $tmp/pass2.xml >/dev/null && cmp -s $tmp/pass.xml $tmp/pass2.xml &&
    ok || ko "passing: two runs wrote different reports"

# 2. Five bounds broken, in every form (== , <=, >=, in [a, b], a bound %g would round to 1);
#    exit 3 and the report still written, each failure with the value and the bound. The values:
#    steps_completed 10, final_workers 3, accounting_ok 1 (the passing scenario's == bounds),
#    failures_detected and lost_gradients as the text report printed them in run 1.
fd=$(textval $tmp/pass.out failures_detected)
lg=$(textval $tmp/pass.out lost_gradients)
sed -e 's/"steps_completed" min="10" max="10"/"steps_completed" min="11" max="12"/' \
    -e 's/"final_workers" min="3" max="3"/"final_workers" min="4" max="4"/' \
    -e 's/"failures_detected" min="1"/"failures_detected" max="0"/' \
    -e 's/"lost_gradients" min="1"/"lost_gradients" min="1000"/' \
    -e 's/"accounting_ok" min="1" max="1"/"accounting_ok" min="1.0000001" max="2"/' \
    $s >$tmp/broken.xml
f=$tmp/broken.xml
"$dmlsim" run $f --junit $tmp/fail.xml >$tmp/fail.out
rc=$?
"$validate" $xsd $tmp/fail.xml >$tmp/fail.sum 2>$tmp/fail.err && ok || ko "failing: invalid report: $(cat $tmp/fail.err)"
[ $rc -eq 3 ] && grep -qx "suite ring-crash-elastic tests=$n failures=5 errors=0 skipped=0" $tmp/fail.sum &&
    grep -qx "cases=$n failed=5 errored=0" $tmp/fail.sum && ok ||
    ko "failing: exit $rc, expected $n cases, 5 failed: $(cat $tmp/fail.sum)"
for want in "failure steps_completed in [11, 12] | value 10, expected in [11, 12]" \
    "failure final_workers == 4 | value 3, expected == 4" \
    "failure failures_detected <= 0 | value $fd, expected <= 0" \
    "failure lost_gradients >= 1000 | value $lg, expected >= 1000" \
    "failure accounting_ok in [1.0000001, 2] | value 1, expected in [1.0000001, 2]"; do
    grep -qxF "$want" $tmp/fail.sum && ok || ko "failing: no line '$want' in: $(cat $tmp/fail.sum)"
done
line=$(grep -n '"final_workers"' $f | cut -d: -f1)
grep -qF "$f:$line: final_workers = 3; expected == 4</failure>" $tmp/fail.xml &&
    ok || ko "failing: the failure's text should name the <expect>'s line"

# 3. The simulated job fails and no <expect> names job_failed: exit 4, one more case, an error.
sed '/metric="job_failed"/d; /metric="final_workers"/d' scenarios/ci/ring-all-dead.xml >$tmp/dead.xml
n=$(grep -c '<expect' $tmp/dead.xml)
"$dmlsim" run $tmp/dead.xml --junit $tmp/dead.junit >/dev/null 2>$tmp/dead.stderr
rc=$?
"$validate" $xsd $tmp/dead.junit >$tmp/dead.sum 2>$tmp/dead.err && ok || ko "dead: invalid report: $(cat $tmp/dead.err)"
why=$(sed -n 's/.*: the simulated job failed: //p' $tmp/dead.stderr)
[ $rc -eq 4 ] && grep -qx "suite ring-all-dead tests=$((n + 1)) failures=0 errors=1 skipped=0" $tmp/dead.sum &&
    grep -qx "cases=$((n + 1)) failed=0 errored=1" $tmp/dead.sum &&
    grep -qxF "error job completes | the simulated job failed: $why" $tmp/dead.sum && [ -n "$why" ] &&
    ok || ko "dead: exit $rc, expected $n expectations and the job's error: $(cat $tmp/dead.sum)"
# with job_failed expected, the shipped scenario passes: no error case
"$dmlsim" run scenarios/ci/ring-all-dead.xml --junit $tmp/dead2.junit >/dev/null 2>&1
n=$(grep -c '<expect' scenarios/ci/ring-all-dead.xml)
"$validate" $xsd $tmp/dead2.junit | grep -qx "cases=$n failed=0 errored=0" && ok || ko "ring-all-dead: expected $n cases, no error"

# 4. Refused runs write nothing, and leave an existing file as it was.
"$dmlsim" run $s --set training.steps=-1 --junit $tmp/refused.xml >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && [ ! -e $tmp/refused.xml ] && ok || ko "refused: exit $rc, or the report was written"
echo keep >$tmp/kept.xml
"$dmlsim" run $s --set expect.metric=nonesuch --junit $tmp/kept.xml >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && [ "$(cat $tmp/kept.xml)" = keep ] && ok || ko "refused: exit $rc, or the existing file changed"
"$dmlsim" run scenarios/allreduce.xml --junit $tmp/bench.xml >/dev/null 2>$tmp/bench.err
rc=$?
[ $rc -eq 1 ] && [ ! -e $tmp/bench.xml ] && grep -q -- '--junit describe training' $tmp/bench.err &&
    ok || ko "benchmark: exit $rc, $(cat $tmp/bench.err)"
# a path that is not UTF-8 cannot be XML text: refused before the run
cp $s $tmp/$'caf\xe9.xml'
"$dmlsim" run $tmp/$'caf\xe9.xml' --junit $tmp/latin1.xml >/dev/null 2>$tmp/latin1.err
rc=$?
[ $rc -eq 1 ] && [ ! -e $tmp/latin1.xml ] && grep -q ':0: --junit: .* not UTF-8' $tmp/latin1.err &&
    ok || ko "latin-1 path: exit $rc, $(cat $tmp/latin1.err)"
# a write error is the output's, as for --json: one line, exit 1
"$dmlsim" run $s --junit /dev/full >/dev/null 2>$tmp/full.err
rc=$?
[ $rc -eq 1 ] && [ "$(cat $tmp/full.err)" = "/dev/full:0: cannot write: No space left on device" ] &&
    ok || ko "/dev/full: exit $rc, $(cat $tmp/full.err)"
# the outputs are one set: another output's write error leaves the report unwritten
"$dmlsim" run $s --junit $tmp/set.xml --json /dev/full >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] && [ ! -e $tmp/set.xml ] && ok || ko "--json /dev/full: exit $rc, or the report was written"
ls $tmp | grep -q '\.tmp\.' && ko "refused: a temporary file was left" || ok

# 5. Escaping is libxml2's: a name with <, & and " reads back as it was written.
sed 's/name="ring-crash-elastic"/name="a\&lt;b\&amp;c\&quot;d"/' $s >$tmp/esc.xml
"$dmlsim" run $tmp/esc.xml --junit $tmp/esc.junit >/dev/null 2>&1
"$validate" $xsd $tmp/esc.junit 2>/dev/null | grep -qxF "suite a<b&c\"d tests=$(grep -c '<expect' $s) failures=0 errors=0 skipped=0" &&
    ok || ko "escaping: $(cat $tmp/esc.junit)"

# 6. The schema can fail: a misspelt attribute, a missing count, a stray element are invalid.
sed 's/ skipped="0"/ skips="0"/' $tmp/pass.xml >$tmp/m1.xml
sed 's/ errors="0" skipped/ skipped/' $tmp/pass.xml >$tmp/m2.xml
sed 's|<properties>|<properties><bogus/>|' $tmp/pass.xml >$tmp/m3.xml
for m in m1 m2 m3; do
    "$validate" $xsd $tmp/$m.xml >/dev/null 2>&1
    [ $? -eq 1 ] && ok || ko "schema: mutant $m should be invalid"
done

# 7. sweep --point K passes --junit to its point; without --point it is refused.
"$dmlsim" sweep $s --set training.steps=10,11 --point 2 -o $tmp/p.sum --junit $tmp/p2.xml >/dev/null 2>&1
"$validate" $xsd $tmp/p2.xml 2>/dev/null | grep -q "^failure steps_completed == 10 | value 11, expected == 10$" &&
    ok || ko "sweep --point: the point's report: $(cat $tmp/p2.xml 2>&1)"
"$dmlsim" sweep $s --set training.steps=10,11 --junit $tmp/p.xml >/dev/null 2>$tmp/p.err
[ $? -eq 1 ] && [ ! -e $tmp/p.xml ] && ok || ko "sweep: --junit without --point: $(cat $tmp/p.err)"
finish junit
