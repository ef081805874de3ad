#!/usr/bin/env bash
# switch.sh - the switch model of issue 16 changes no simulated result: every shipped scenario
# with a generated <cluster> (<numerics> runs excepted: they train for seconds to minutes over
# the same network code) prints the same stdout byte for byte with switch="port" (the default:
# per-machine port links) and with switch="fatpipe" (the switch as one FATPIPE link on every route and every pair
# of machines routed explicitly, the generator before issue 16). Times are compared through
# every figure the run prints (steps, breakdowns, expectations).
# One scenario is known to take another branch (two numerics split-brain runs did too), and
# there only the exit status and the accounting line are compared: SimGrid solves the bandwidth shares of each connected set of
# flows, one switch link joins every inter-node flow into one set and the ports do not, so flow
# completions are computed in another order and differ in their last bits; a run whose course
# depends on which of two near-simultaneous events comes first (an async PS with random crashes
# and jitter, a partition's recovery race, a split brain's rejoin) can then diverge. Their
# fault-free versions are identical (the other scenarios, and tests/switch.sh's count).
#   tests/switch.sh build/dmlsim
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/dmlsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
branchy=" scenarios/ci/ps-mtbf-linkdown.xml "
branchy=${branchy//$'\n'/}
pass=0 fail=0
for f in scenarios/*.xml scenarios/ci/*.xml; do
    grep -q "<cluster" "$f" || continue
    grep -q "<numerics" "$f" && continue # minutes of real training, the same network
    "$bin" run "$f" >"$tmp/port" 2>"$tmp/port.err"
    rc1=$?
    "$bin" run "$f" --set cluster.switch=fatpipe >"$tmp/fat" 2>"$tmp/fat.err"
    rc2=$?
    if [ "${branchy#* $f }" != "$branchy" ]; then
        grep "accounting\|# *job" "$tmp/port" >"$tmp/port.acc"
        grep "accounting\|# *job" "$tmp/fat" >"$tmp/fat.acc"
        cp "$tmp/port.acc" "$tmp/port"
        cp "$tmp/fat.acc" "$tmp/fat"
    fi
    if [ $rc1 -ne $rc2 ] || ! cmp -s "$tmp/port" "$tmp/fat"; then
        echo "FAIL: $f: switch=port and switch=fatpipe differ (exit $rc1 / $rc2):"
        diff "$tmp/port" "$tmp/fat" | head -8
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
echo "switch: $pass scenarios identical, $fail differ"
[ $fail -eq 0 ] && [ $pass -gt 30 ]
