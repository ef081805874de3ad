#!/bin/bash
# honest.sh - outputs that say what produced them and what they mean, and a safe default watchdog
# (issue 35, items 5 and 7):
#   1. provenance: the JSON's "provenance" and the CSV's "# key: value" lines carry dmlsim's
#      version (`dmlsim --version`), the SHA-256 of the scenario file's bytes (sha256sum, an
#      independent implementation), the seed, the cluster and the GPU (the scenario's);
#   2. the watchdog: without <training timeout>, a crashed peer is found after PyTorch's NCCL
#      default, 600 s (torch/distributed/constants.py default_pg_nccl_timeout); detection then
#      dominates the run (it is longer than the run outside the recovery) and one warning line
#      says so, in the summary and on stderr; with the scenario's 20 ms timeout no warning;
#   3. efficiency: against one GPU alone at its nominal speed, so a straggler lowers it
#      (a 4x slower GPU in a compute-bound ring: at most 1/4; it once rose with a straggler);
#      no baseline for the hybrid strategy: 0; every per-step table has its legend line.
# usage: tests/honest.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: honest.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"
jnum() { sed -n "s/^ *\"$2\": \([-0-9.e+]*\),\{0,1\}$/\1/p" "$1" | head -1; }
# The value of "KEY": "STRING" (prov) or "KEY": NUMBER (provn) in the JSON's provenance line.
prov() { sed -n "s/^  \"provenance\": .*\"$2\": \"\([^\"]*\)\".*/\1/p" "$1"; }
provn() { sed -n "s/^  \"provenance\": .*\"$2\": \([0-9]*\)[,}].*/\1/p" "$1"; }

# 1. Provenance.
s=scenarios/ci/ring-crash-elastic.xml
"$dmlsim" run $s --json $tmp/a.json --csv $tmp/a.csv >$tmp/a.out 2>$tmp/a.err
sum=$(sha256sum $s | cut -c1-64)
ver=$("$dmlsim" --version | awk '{ print $2 }')
[ "$(prov $tmp/a.json scenario_sha256)" = "$sum" ] && grep -qx "# scenario_sha256: $sum" $tmp/a.csv &&
    ok || ko "provenance: scenario_sha256 '$(prov $tmp/a.json scenario_sha256)', sha256sum says $sum"
[ -n "$ver" ] && [ "$(prov $tmp/a.json dmlsim)" = "$ver" ] && grep -qx "# dmlsim: $ver" $tmp/a.csv &&
    ok || ko "provenance: version '$(prov $tmp/a.json dmlsim)', dmlsim --version says '$ver'"
# the scenario: seed="2", 4 nodes x 1 h100 (NVIDIA's H100 SXM5)
[ "$(provn $tmp/a.json seed)" = 2 ] && [ "$(provn $tmp/a.json nodes)" = 4 ] &&
    [ "$(provn $tmp/a.json gpus)" = 4 ] && [ "$(prov $tmp/a.json gpu)" = h100 ] &&
    grep -q '"gpu_name": "NVIDIA H100' $tmp/a.json && grep -qx '# seed: 2' $tmp/a.csv &&
    grep -qx '# cluster: 4 node(s), 4 GPU(s)' $tmp/a.csv && grep -q '^# gpu: h100 (NVIDIA H100' $tmp/a.csv &&
    ok || ko "provenance: seed, nodes, GPUs or GPU differ from the scenario's 2, 4, 4, h100: $(head -2 $tmp/a.json | tail -1)"
grep -qxF "# platform: $(sed -n 's/^# platform *//p' $tmp/a.out)" $tmp/a.csv && ok ||
    ko "provenance: the CSV's platform line is not the text output's"
# a byte more in the file: another hash (the hash is of the bytes, not of the parsed scenario)
cp $s $tmp/b.xml && echo >>$tmp/b.xml
"$dmlsim" run $tmp/b.xml --json $tmp/b.json >/dev/null 2>&1
[ "$(prov $tmp/b.json scenario_sha256)" = "$(sha256sum $tmp/b.xml | cut -c1-64)" ] &&
    [ "$(prov $tmp/b.json scenario_sha256)" != "$sum" ] && ok ||
    ko "provenance: a changed file must change scenario_sha256 (as sha256sum)"
# the CSV's readers: its rows still follow one header (the provenance lines are comments)
[ "$(grep -v '^#' $tmp/a.csv | head -1 | cut -d, -f1)" = kind ] && ok || ko "CSV: the header must follow the # lines"

# 2. The default watchdog. ring-crash-elastic crashes node2.gpu0 at 30 ms; without its
#    timeout="20ms" its peers' waits time out 600 s after they began (the step's collectives, a
#    few ms before the crash): detection in [600 - 0.05, 600 + 0.05] s. The recovery then waits
#    one more period at the rendezvous, so the run is about 1200 s, of which about 0.1 s outside
#    the recovery: detection dominates, one warning on stdout and one on stderr.
[ ! -s $tmp/a.err ] && ! grep -q warning $tmp/a.out && ok || ko "watchdog 20 ms: no warning expected: $(cat $tmp/a.err)"
sed 's/ *timeout="20ms"//' $s >$tmp/w.xml
"$dmlsim" run $tmp/w.xml --json $tmp/w.json >$tmp/w.out 2>$tmp/w.err
d=$(jnum $tmp/w.json max_detect_s)
awk -v d="$d" 'BEGIN { exit !(d >= 599.95 && d <= 600.05) }' && ok ||
    ko "default watchdog: detection $d s; expected PyTorch's NCCL default 600 s"
[ "$(grep -c '^# warning  detection dominates: .* watchdog is 600 s (<training timeout>' $tmp/w.out)" -eq 1 ] &&
    [ "$(grep -c "^$tmp/w.xml:[0-9]*: warning: detection dominates: .*set <training timeout=" $tmp/w.err)" -eq 1 ] &&
    [ "$(wc -l <$tmp/w.err)" -eq 1 ] && ok ||
    ko "default watchdog: expected one warning line on stdout and one on stderr: $(cat $tmp/w.err)"

# 3. Efficiency and the per-step legend. resnet50-ring (16 H100, compute-bound: efficiency about
#    0.99) with node1.gpu0 4x slower: every step waits for its compute, at least 4 x the nominal
#    compute, so efficiency <= 1/4; and efficiency = throughput x one_gpu_step_s / (16 x 64).
sed 's#</scenario>#<faults><straggler host="node1.gpu0" factor="4"/></faults></scenario>#' \
    scenarios/resnet50-ring.xml >$tmp/s.xml
"$dmlsim" run scenarios/resnet50-ring.xml --json $tmp/s1.json >$tmp/s1.out
"$dmlsim" run $tmp/s.xml --json $tmp/s4.json >$tmp/s4.out
e1=$(jnum $tmp/s1.json efficiency) e4=$(jnum $tmp/s4.json efficiency)
awk -v a="$e1" -v b="$e4" 'BEGIN { exit !(b > 0 && b <= 0.25 && b < a) }' && ok ||
    ko "straggler: efficiency $e1 without, $e4 with a 4x slower GPU; expected at most 1/4 and lower"
awk -v e="$e4" -v x="$(jnum $tmp/s4.json throughput)" -v o="$(jnum $tmp/s4.json one_gpu_step_s)" \
    'BEGIN { v = x * o / (16 * 64); d = v - e; if (d < 0) d = -d; exit !(d <= 1e-6 * v) }' && ok ||
    ko "straggler: efficiency $e4 is not throughput x one_gpu_step_s / (16 x 64)"
grep -q '^# per step: time = .*; compute = the slowest member.s compute' $tmp/s4.out && ok ||
    ko "all-reduce: the per-step table's legend is missing"
h=scenarios/ci/hybrid-input-slow-store.xml
"$dmlsim" run $h --json $tmp/h.json >$tmp/h.out 2>/dev/null
[ "$(jnum $tmp/h.json efficiency)" = 0 ] && [ "$(jnum $tmp/h.json one_gpu_step_s)" = 0 ] &&
    grep -q "^# per step: .*compute = a rank's mean compute.*input = " $tmp/h.out && ok ||
    ko "hybrid: efficiency $(jnum $tmp/h.json efficiency) (no one-GPU baseline: 0), or no legend"

finish honest
