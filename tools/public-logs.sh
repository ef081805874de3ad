#!/usr/bin/env bash
# public-logs.sh - communication fidelity against every public nccl-tests log we hold (issue 29):
# `dmlsim validate` on each log of tests/data/nccl/public/ (options from its OPTIONS file: the
# system as the log's source states it), uncalibrated with NCCL's model and calibrated out of
# sample, and once more with the textbook ring. Prints one row per log: the geometric-mean error
# over all sizes and over the sizes under 1 MiB (uncalibrated), the calibrated held-out error, the
# textbook ring's, and the wall seconds; a log dmlsim refuses prints its reason instead. Nothing
# is asserted: the README quotes the table. Build first (tools/setup.sh).
#   tools/public-logs.sh [DMLSIM] [LOG...]
# Environment: TEXTBOOK (the textbook ring's --algo value, default textbook-ring); TIMEOUT (s a
# log, default 600).
set -uo pipefail
cd "$(dirname "$0")/.."
dmlsim=${1:-build/dmlsim}
shift || true
dir=tests/data/nccl/public
textbook=${TEXTBOOK:-textbook-ring}
limit=${TIMEOUT:-600}
logs=("$@")
[ ${#logs[@]} -gt 0 ] || logs=("$dir"/*.log)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

options() { # LOG: its options from OPTIONS
    awk -v f="$(basename "$1")" '$1 == f { $1 = ""; print }' "$dir/OPTIONS"
}

# From validate's output: the geometric-mean errors its summary lines print (uncalibrated over
# all sizes, calibrated over the held-out ones; the sizes of several operations pooled by their
# counts), and over the sizes under 1 MiB from its rows (operation, ranks, nodes, size, measured,
# simulated, error %, ...; an error printed as 0.0 counts as 0.05%, half the print's step); "-"
# where there is none.
summarise() { # OUT
    awk '/^# geometric-mean error/ {
            for (i = 1; i <= NF; i++) {
                if ($i == "uncalibrated") { u = $(i + 1); nu = $(i + 3) }
                if ($i == "calibrated") { c = $(i + 1); nc = $(i + 4) }
            }
            sub(/%;?/, "", u); sub(/%;?/, "", c)
            lu += nu * log(u > 0 ? u : 0.05); na += nu
            if (nc > 0) { lc += nc * log(c > 0 ? c : 0.05); ncal += nc }
         }
         $1 !~ /^#/ && $4 ~ /^[0-9]+$/ && NF >= 10 && $4 < 1048576 {
            e = ($7 < 0 ? -$7 : $7); if (e < 0.05) e = 0.05
            ls += log(e); ns++
         }
         END {
            printf "%s %s %s %d %d\n", na ? sprintf("%.1f%%", exp(lu / na)) : "-",
                   ns ? sprintf("%.1f%%", exp(ls / ns)) : "-",
                   ncal ? sprintf("%.1f%%", exp(lc / ncal)) : "-", na, ns
         }' "$1"
}

printf '%-40s %7s %6s %9s %9s %9s %9s %6s\n' "# log" sizes "<1MiB" nccl "nccl<1MiB" calibrated textbook wall_s
for log in "${logs[@]}"; do
    name=$(basename "$log" .log)
    read -r -a opt <<<"$(options "$log")"
    t0=$(date +%s%N)
    timeout "$limit" "$dmlsim" validate "$log" "${opt[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    wall=$(( ($(date +%s%N) - t0) / 10000000 ))
    if [ $rc -ne 0 ] || ! grep -q "geometric-mean error" "$tmp/out"; then
        printf '%-40s refused or failed (exit %d): %s\n' "$name" $rc "$(head -c 160 "$tmp/err" | head -1)"
        continue
    fi
    read -r all small cal n nsmall <<<"$(summarise "$tmp/out")"
    timeout "$limit" "$dmlsim" validate "$log" "${opt[@]}" --algo "$textbook" >"$tmp/ring" 2>/dev/null
    read -r ring _ <<<"$(summarise "$tmp/ring")"
    printf '%-40s %7d %6d %9s %9s %9s %9s %6d.%02d\n' "$name" "$n" "$nsmall" "$all" "$small" "$cal" \
        "${ring:--}" $((wall / 100)) $((wall % 100))
done
