#!/usr/bin/env bash
# plan.sh - `dmlsim plan` (sim/cli/plan.h): on a small GPT over 2 nodes of 8 H100 it sets aside
# what does not divide or fit with counts that add up, simulates the best 3, ranks them by their
# simulated step, and writes each ranked layout's scenario: run alone, rank-1.xml gives the step
# the table printed (so the file is the layout that was simulated); every layout it kept divides
# the GPUs and the global batch; --under with node0's GPUs at half speed gives
# steps at least as long; bad input is one line and exit 1.
#   tests/plan.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: plan.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

cat >"$tmp/s.xml" <<XML
<?xml version="1.0"?>
<scenario name="small" seed="1">
  <cluster nodes="2" gpus-per-node="8" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="8"/>
  <model preset="gpt" layers="8" hidden="1024" heads="16" seq="1024" vocab="32000"/>
  <training strategy="hybrid" batch-per-gpu="1" steps="1" dtype="bf16" optimizer="adam"
            level="flow">
    <parallel tp="2" pp="2" dp="4" microbatches="8"/>
  </training>
</scenario>
XML
cat >"$tmp/slow.xml" <<XML
<faults><straggler host="node0" factor="2"/></faults>
XML
"$dmlsim" plan "$tmp/s.xml" --top 3 -j 2 -o "$tmp/p" --under "$tmp/slow.xml" >"$tmp/out" \
    2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && ok || ko "plan exit $rc: $(cat "$tmp/err")"
# the counts add up: considered = kept + twins + set aside, the reasons' sum = set aside
read -r cons kept twins aside < <(sed -n 's/^# layouts *\([0-9]*\) considered, \([0-9]*\) kept, \([0-9]*\) twins.*, \([0-9]*\) set aside/\1 \2 \3 \4/p' "$tmp/out")
sum=$(awk '/^# set aside/ { s += $4 } END { print s + 0 }' "$tmp/out")
[ -n "$cons" ] && [ "$cons" -eq $((kept + twins + aside)) ] && [ "$sum" -eq "$aside" ] && ok ||
    ko "counts: considered $cons kept $kept twins $twins aside $aside reasons $sum"
# three ranked rows, steps ascending under the faults (--under ranks by that step)
rows=$(awk '$1 ~ /^[0-9]+$/' "$tmp/out")
[ "$(echo "$rows" | wc -l)" -eq 3 ] && ok || ko "rows: $rows"
echo "$rows" | awk '{ u = $(NF - 1); if (NR > 1 && u < prev) bad = 1; prev = u } END { exit bad }' &&
    ok || ko "not ranked by the step under the faults: $rows"
# a straggling node cannot make a step shorter
echo "$rows" | awk '{ step = $(NF - 7); u = $(NF - 1); if (u < step) bad = 1 } END { exit bad }' &&
    ok || ko "a step under the straggler is shorter: $rows"
# each kept layout divides: tp x cp x pp x dp = 16 GPUs, dp x b x m = the global batch 32 (the
# layout's words name their numbers: tp 2 pp 2 dp 4 [ep N] [cp N] b 1 m 8 ...)
echo "$rows" | awk '{ v["cp"] = 1; for (i = 2; i < NF; i++) if ($i ~ /^(tp|pp|dp|cp|b|m)$/) v[$i] = $(i + 1)
    if (v["tp"] * v["cp"] * v["pp"] * v["dp"] != 16 || v["dp"] * v["b"] * v["m"] != 32) bad = 1 }
    END { exit bad }' && ok || ko "a layout that does not divide: $rows"
# rank-1.xml run alone gives the table's step (to the printed 0.1 ms)
step1=$(echo "$rows" | awk 'NR == 1 { print $(NF - 7) }')
[ -f "$tmp/p/rank-1.xml" ] && [ -f "$tmp/p/rank-3.xml" ] && [ -f "$tmp/p/plan.txt" ] && ok ||
    ko "files: $(ls "$tmp/p")"
"$dmlsim" run "$tmp/p/rank-1.xml" --summary "$tmp/r1.sum" >/dev/null 2>&1
alone=$(awk 'NR == 2 { printf "%.1f", $3 }' "$tmp/r1.sum")
[ "$alone" = "$step1" ] && ok || ko "rank-1.xml alone: $alone ms, the table: $step1 ms"
# deterministic: the same plan twice, the same table
"$dmlsim" plan "$tmp/s.xml" --top 3 -j 2 -o "$tmp/p2" --under "$tmp/slow.xml" 2>/dev/null |
    sed "s|$tmp/p2|$tmp/p|" | cmp -s - "$tmp/out" && ok || ko "a second plan printed another table"
# bad input: one line, exit 1
sed 's/strategy="hybrid"/strategy="allreduce"/; /<parallel/d' "$tmp/s.xml" >"$tmp/ar.xml"
"$dmlsim" plan "$tmp/ar.xml" -o "$tmp/q" >/dev/null 2>"$tmp/e1"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] && grep -q 'expected strategy="hybrid"' "$tmp/e1" &&
    [ ! -e "$tmp/q" ] && ok || ko "non-hybrid scenario: exit $rc, $(cat "$tmp/e1")"
"$dmlsim" plan "$tmp/s.xml" --top 0 >/dev/null 2>"$tmp/e2"
rc=$?
[ "$rc" -eq 1 ] && grep -q -- '--top' "$tmp/e2" && ok || ko "--top 0: exit $rc"
echo '<crash at="1s"/>' >"$tmp/nofaults.xml"
"$dmlsim" plan "$tmp/s.xml" --top 1 -o "$tmp/r" --under "$tmp/nofaults.xml" >/dev/null 2>"$tmp/e3"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'expected a <faults> element' "$tmp/e3" && ok ||
    ko "--under without <faults>: exit $rc, $(cat "$tmp/e3")"
finish plan
