#!/usr/bin/env bash
# cmdline.sh - the command line as its users meet it (issue 17), run from the repository root by
# ctest:
#   every command's --help exits 0 with its usage; every option its help lists is accepted by the
#     parser and is in the manual page and the bash completion (one table makes them all);
#   options before or after the file, --opt=value, -- ends the options, unknown options and
#     missing values are named, a flag given a value is refused;
#   run --unset removes an attribute (the DTD then reports the required one missing);
#   benchmarks' --csv and --json agree with the table and with nccl-tests' algbw and busbw;
#   sweep: --zip couples axes, \, is a comma inside a value (--list shows the points, checked
#     against the lines written out here), --point K and dmlsim merge give the local sweep's
#     table byte for byte, also run by GNU parallel and by tools/sweep-slurm.sh's array tasks
#     (SLURM_ARRAY_TASK_ID set by hand, sbatch replaced by a stub that records its arguments).
set -u
dmlsim=${1:?usage: cmdline.sh PATH/TO/dmlsim}
dmlsim=$(cd "$(dirname "$dmlsim")" && pwd)/$(basename "$dmlsim")
. "$(dirname "$0")/lib.sh"

# ---- help, and every option the help lists ---------------------------------------------------
cmds=$("$dmlsim" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} /^$/ && on > 0 {on++} on > 2 {exit}')
[ "$(wc -w <<<"$cmds")" -ge 11 ] && ok || ko "--help lists only: $cmds"
"$dmlsim" manpage >"$tmp/man.roff" && sed 's/\\-/-/g' "$tmp/man.roff" >"$tmp/man" &&
    "$dmlsim" completion >"$tmp/comp" && ok || ko "manpage/completion"
for c in $cmds; do
    "$dmlsim" "$c" --help >"$tmp/h" 2>&1 && head -1 "$tmp/h" | grep -q "^usage: dmlsim $c " && ok ||
        ko "$c --help: $(head -1 "$tmp/h")"
    "$dmlsim" help "$c" | cmp -s - "$tmp/h" && ok || ko "help $c differs from $c --help"
    grep -q "^\.SS \"dmlsim $c" "$tmp/man" && ok || ko "$c: not in the manual page"
    for opt in $(sed -n '/^options:/,$p' "$tmp/h" | grep -o -- '^ *\(-., \)\?--[a-z][a-z-]*' |
        grep -o -- '--[a-z-]*'); do
        [ "$opt" = --help ] && continue
        # each option once, with a value: the parser must know it (whatever the run then says)
        "$dmlsim" "$c" "$opt" x >/dev/null 2>"$tmp/e"
        grep -q "unknown option" "$tmp/e" && ko "$c $opt: $(cat "$tmp/e")" || ok
        # in this command's own section of the page (.SS "dmlsim CMD ..." up to the next .SS)
        awk -v c="dmlsim $c" -v o="$opt" 'index($0, ".SS \"" c) == 1 {on = 1; next} /^\.SS/ {on = 0}
            on && /^\.B / && (index($0, o " ") || substr($0, length($0) - length(o) + 1) == o) {f = 1}
            END {exit !f}' "$tmp/man" && ok || ko "$c $opt: not in dmlsim(1)'s section of $c"
        grep -q "^        $c) opts=\".*$opt " "$tmp/comp" && ok || ko "$c $opt: not in the completion"
    done
done
bash -n "$tmp/comp" && ok || ko "the completion script is not valid bash"
grep -q '^\.TH DMLSIM 1' "$tmp/man" && ok || ko "manual page header"

# ---- options anywhere, named errors ----------------------------------------------------------
sc=scenarios/ps-vs-ring.xml
"$dmlsim" run "$sc" --set training.steps=1 >"$tmp/a" 2>&1 &&
    "$dmlsim" run --set=training.steps=1 "$sc" >"$tmp/b" 2>&1 && cmp -s "$tmp/a" "$tmp/b" &&
    "$dmlsim" run --set training.steps=1 -- "$sc" >"$tmp/c" 2>&1 && cmp -s "$tmp/a" "$tmp/c" && ok ||
    ko "run: options before the file, --opt=value and -- must give the same output"
expect_err() { # message-pattern command...: exit 1, nothing on stdout, that one line on stderr
    local pat=$1
    shift
    "$dmlsim" "$@" >"$tmp/o" 2>"$tmp/e"
    [ $? -eq 1 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q -- "$pat" "$tmp/e" &&
        ok || ko "$*: expected '$pat', got: $(cat "$tmp/e")"
}
expect_err "^dmlsim run: unknown option '--bogus'; see 'dmlsim run --help'" run "$sc" --bogus
expect_err "^dmlsim run: unknown option '--bogus'" run --bogus=3 "$sc"
expect_err "^dmlsim run: option '--csv' needs a value (FILE)" run "$sc" --csv
expect_err "^dmlsim run: option '--timing' takes no value" run "$sc" --timing=yes
expect_err "^dmlsim run: expected FILE.xml" run
expect_err "^dmlsim run: too many arguments; expected FILE.xml" run "$sc" "$sc"
expect_err "^dmlsim sweep: unknown option '-x'" sweep -x "$sc"
expect_err "^dmlsim catalog: unknown table 'extra'; expected stores" catalog extra
expect_err "^dmlsim catalog: too many arguments" catalog stores extra
expect_err "^dmlsim: unknown command 'nope'; see 'dmlsim --help'" nope
expect_err "^dmlsim run: too many arguments" run -- "$sc" --set # after --, an argument

# ---- run --unset -----------------------------------------------------------------------------
# strategy is #REQUIRED in the DTD: removing it must make the scenario invalid
expect_err "^$sc:[0-9]*: .*strategy" run "$sc" --unset training.strategy
expect_err "^$sc:[0-9]*: --unset training.nope: <training> has no attribute nope" run "$sc" \
    --unset training.nope

# ---- sweep grids: --zip, escaped commas, --list ----------------------------------------------
"$dmlsim" sweep "$sc" --set training.strategy=ps,allreduce --zip training.gpus=2,4,8 \
    --zip training.batch-per-gpu=16,32,64 --set 'model.name=a\,b,c\\d' --list >"$tmp/list"
: >"$tmp/want"
for s in ps allreduce; do
    for gb in "2 16" "4 32" "8 64"; do
        set -- $gb
        for m in 'a,b' 'c\d'; do
            echo "dmlsim run '$sc' --set 'training.strategy=$s' --set 'training.gpus=$1'" \
                "--set 'training.batch-per-gpu=$2' --set 'model.name=$m'" >>"$tmp/want"
        done
    done
done
cmp -s "$tmp/list" "$tmp/want" && ok || ko "sweep --list: $(diff "$tmp/want" "$tmp/list" | head -5)"
expect_err "batch-per-gpu has 3 value(s), another --zip axis 2; expected as many" sweep "$sc" --zip training.gpus=1,2 \
    --zip training.batch-per-gpu=1,2,3
expect_err "^dmlsim sweep: --set training.gpus: an empty value" sweep "$sc" --set training.gpus=1,,2
expect_err "^dmlsim sweep: --point 5: the grid has 4 points" sweep "$sc" \
    --set training.strategy=ps,allreduce --set training.gpus=2,4 --point 5

# ---- --point and merge: the local sweep's table, byte for byte --------------------------------
grid=(--set training.strategy=ps,allreduce --set training.gpus=2,4 --set training.steps=1)
"$dmlsim" sweep "$sc" "${grid[@]}" -j 2 -o "$tmp/local.txt" >"$tmp/local.out" 2>&1 && ok ||
    ko "local sweep: $(cat "$tmp/local.out")"
mkdir -p "$tmp/pts"
for k in 4 2 3 1; do "$dmlsim" sweep "$sc" "${grid[@]}" --point "$k" -o "$tmp/pts/$k.sum" || ko "point $k"; done
"$dmlsim" merge "$tmp/pts/3.sum" "$tmp/pts/1.sum" "$tmp/pts/4.sum" "$tmp/pts/2.sum" \
    -o "$tmp/merged.txt" >"$tmp/merged.out"
cmp -s "$tmp/merged.txt" "$tmp/local.txt" && cmp -s "$tmp/merged.out" "$tmp/local.out" && ok ||
    ko "merge differs from the local sweep: $(diff "$tmp/local.txt" "$tmp/merged.txt" | head -4)"
# run options pass through: --point 3's CSV is the CSV of the run of that point
"$dmlsim" sweep "$sc" "${grid[@]}" --point 3 --csv "$tmp/p3.csv" -o "$tmp/p3.sum" &&
    "$dmlsim" run "$sc" --set training.strategy=allreduce --set training.gpus=2 --set training.steps=1 \
        --csv "$tmp/r3.csv" >/dev/null && cmp -s "$tmp/p3.csv" "$tmp/r3.csv" && ok ||
    ko "sweep --point 3 --csv differs from the run of point 3"
expect_err "^dmlsim sweep: --trace and --junit name one point's file" sweep "$sc" "${grid[@]}" --trace "$tmp/x.json"
expect_err "^$tmp/dup.txt:0: --csv and --summary name the same file" run "$sc" --csv "$tmp/dup.txt" \
    --summary "$tmp/dup.txt"
cp "$tmp/pts/1.sum" "$tmp/keep.sum"
expect_err "^$tmp/pts/1.sum:0: -o names the point file" merge "$tmp"/pts/{1,2,3,4}.sum -o "$tmp/pts/1.sum"
cmp -s "$tmp/keep.sum" "$tmp/pts/1.sum" && ok || ko "merge -o over an input changed it"
head -c -1 "$tmp/pts/4.sum" >"$tmp/cut.sum" # cut short: no final newline
expect_err "cut.sum:0: cannot read it whole" merge "$tmp"/pts/{1,2,3}.sum "$tmp/cut.sum"
"$dmlsim" sweep "$sc" "${grid[@]}" --point 4 --cfg maxmin/precision:1e-6 -o "$tmp/other.sum" 2>/dev/null
expect_err "other.sum:1: not a point of the same sweep" merge "$tmp"/pts/{1,2,3}.sum "$tmp/other.sum"
expect_err "^dmlsim merge: point 4 of 4 is missing" merge "$tmp"/pts/{1,2,3}.sum
expect_err "2.sum:1: point 2 is given twice" merge "$tmp"/pts/{1,2,2,3,4}.sum
expect_err "local.txt:1: not a sweep point's file" merge "$tmp/local.txt"
if command -v parallel >/dev/null; then
    mkdir -p "$tmp/par"
    seq 4 | parallel -j 2 "$dmlsim" sweep "$sc" "${grid[@]}" --point {} -o "$tmp/par/{}.sum"
    "$dmlsim" merge "$tmp"/par/*.sum | cmp -s - "$tmp/local.out" && ok ||
        ko "GNU parallel + merge differs from the local sweep"
else
    ko "GNU parallel is not installed (tools/setup.sh --test installs it)"
fi

# ---- tools/sweep-slurm.sh: array tasks by hand, sbatch a stub --------------------------------
mkdir -p "$tmp/slurm" "$tmp/bin"
for k in 1 2; do # two arrays of two tasks (ARRAY_MAX=2): offsets 0 and 2
    for off in 0 2; do
        SLURM_ARRAY_TASK_ID=$k DMLSIM=$dmlsim tools/sweep-slurm.sh point "$tmp/slurm" "$off" "$sc" \
            "${grid[@]}" || ko "sweep-slurm.sh point $off + $k"
    done
done
DMLSIM=$dmlsim tools/sweep-slurm.sh merge "$tmp/slurm" && cmp -s "$tmp/slurm/table.txt" "$tmp/local.txt" &&
    ok || ko "sweep-slurm.sh's merged table differs from the local sweep"
printf '#!/bin/sh\necho "$*" >>"%s/sbatch.args"\necho 4242\n' "$tmp" >"$tmp/bin/sbatch"
chmod +x "$tmp/bin/sbatch"
ARRAY_MAX=3 PATH="$tmp/bin:$PATH" DMLSIM=$dmlsim tools/sweep-slurm.sh submit "$tmp/sub" "$sc" \
    "${grid[@]}" >/dev/null &&
    grep -q -- "--array=1-3 .* point $tmp/sub 0 $sc" "$tmp/sbatch.args" &&
    grep -q -- "--array=1-1 .* point $tmp/sub 3 $sc" "$tmp/sbatch.args" &&
    grep -q -- "--dependency=afterok:4242:4242 .* merge $tmp/sub" "$tmp/sbatch.args" && ok ||
    ko "sweep-slurm.sh submit: $(cat "$tmp/sbatch.args" 2>/dev/null)"

# ---- benchmark files: --csv and --json agree with the table and with nccl-tests' formulas --------
# nccl-tests doc/PERFORMANCE.md: algbw = S / t; all-reduce busbw = algbw x 2(n - 1)/n (n = 16 here)
"$dmlsim" run scenarios/allreduce.xml --csv "$tmp/ar.csv" --json "$tmp/ar.json" >"$tmp/ar.txt" &&
    ok || ko "allreduce --csv --json"
[ "$(head -1 "$tmp/ar.csv")" = "size_B,count,type,redop,time_us,algbw_GBps,busbw_GBps,status,algo" ] &&
    ok || ko "allreduce CSV header: $(head -1 "$tmp/ar.csv")"
awk -F, 'NR > 1 { n++; a = $1 / $5 / 1e3; b = a * 2 * 15 / 16
             if ($8 != "ok" || $2 != $1 / 4 || $4 != "sum" || (a - $6) > 1e-12 * a || ($6 - a) > 1e-12 * a ||
                 (b - $7) > 1e-12 * b || ($7 - b) > 1e-12 * b) bad++ }
         END { exit !(n == 16 && bad == 0) }' "$tmp/ar.csv" && ok || ko "allreduce CSV against algbw and busbw"
# the text table's time column is the CSV's, rounded to 0.01 us
paste -d' ' <(awk '!/^#/ {print $1, $5}' "$tmp/ar.txt") <(awk -F, 'NR > 1 {printf "%s %.2f\n", $1, $5}' "$tmp/ar.csv") |
    awk '$1 != $3 || $2 != $4 {bad++} END {exit bad > 0 || NR != 16}' && ok || ko "allreduce CSV differs from the table"
[ "$(grep -c '"size_B"' "$tmp/ar.json")" -eq 16 ] && grep -q '"ranks": 16' "$tmp/ar.json" && ok ||
    ko "allreduce JSON rows"
"$dmlsim" run scenarios/p2p.xml --csv "$tmp/p.csv" --json "$tmp/p.json" >/dev/null &&
    awk -F, 'NR > 1 { n++; a = $3 / $4 / 1e3; if ($6 != "ok" || (a - $5) > 1e-12 * a || ($5 - a) > 1e-12 * a) bad++ }
             END { exit !(n > 0 && bad == 0) }' "$tmp/p.csv" && ok || ko "p2p CSV against algbw = S / t"
expect_err "^scenarios/p2p.xml:0: --summary, --trace and --junit describe training" run scenarios/p2p.xml --trace "$tmp/t.json"

# ---- run --memory-only (issue 32): the memory lines alone, no simulation -----------------------
# the hybrid stages' lines are the run's own "# memory/gpu" figures (the run prints the stage that
# needs the most: here stage 0, with 2 of 16 microbatches in flight under 1F1B on 2 stages)
sc=scenarios/llama3-8b-hybrid.xml
"$dmlsim" run --memory-only "$sc" >"$tmp/m" 2>"$tmp/e" && [ ! -s "$tmp/e" ] &&
    ! grep -qv '^#' "$tmp/m" && [ "$(grep -c '^# memory/gpu ' "$tmp/m")" -eq 2 ] &&
    grep -q '^# memory fits ' "$tmp/m" && ok || ko "run --memory-only $sc: $(cat "$tmp/m" "$tmp/e")"
"$dmlsim" run "$sc" | grep '^# memory/gpu ' | sed 's/ (.*//' >"$tmp/r"
grep '^# memory/gpu .* on stage 0 ' "$tmp/m" | sed 's/ (.*//' | cmp -s - "$tmp/r" && ok ||
    ko "--memory-only's stage 0 differs from the run's: $(cat "$tmp/r")"
grep -q '(2.00 microbatches in flight): 8 GPUs, 16 blocks + the embedding$' "$tmp/m" &&
    grep -q '(1.00 microbatches in flight): 8 GPUs, 16 blocks + the output layer$' "$tmp/m" && ok ||
    ko "--memory-only stage lines: $(cat "$tmp/m")"
# each stage's total is its four terms' sum (to the printed rounding), the fits line its largest
awk '/^# memory\/gpu / { n++; d = $3 - ($10 + $13 + $16 + $19); if (d > 0.02 || d < -0.02) bad++
                          if ($3 > most) most = $3 }
     /^# memory fits / { fits = $4 }
     END { exit !(n == 2 && bad == 0 && fits == most) }' "$tmp/m" && ok ||
    ko "--memory-only: a stage's total is not its terms' sum: $(cat "$tmp/m")"
# uneven stages: 17 and 15 blocks
"$dmlsim" run --memory-only "$sc" --set parallel.stage-layers=17,15 | grep -q ': 8 GPUs, 17 blocks + the embedding$' &&
    ok || ko "--memory-only with stage-layers"
# out of memory: the lines, then the strategy's own message (exit 1) as a run gives it
bad=tests/bad/hybrid-oom.xml
"$dmlsim" run "$bad" >/dev/null 2>"$tmp/want"
"$dmlsim" run --memory-only "$bad" >"$tmp/m" 2>"$tmp/e"
[ $? -eq 1 ] && cmp -s "$tmp/e" "$tmp/want" && grep -q '^# memory/gpu  *152.26 GB on stage 0 ' "$tmp/m" &&
    ! grep -q '^# memory fits' "$tmp/m" && ok || ko "--memory-only $bad: $(cat "$tmp/m" "$tmp/e")"
# other strategies: every GPU a replica, the run's own line
sc=scenarios/resnet50-ring.xml
"$dmlsim" run --memory-only "$sc" >"$tmp/m" && grep -q '^# memory fits ' "$tmp/m" &&
    "$dmlsim" run "$sc" --set training.steps=1 | grep '^# memory/gpu ' | cmp -s - <(grep '^# memory/gpu ' "$tmp/m") &&
    ok || ko "--memory-only $sc: $(cat "$tmp/m")"
# what it cannot read without SimGrid: a <platform> file's GPUs; no <training>
sed 's|<cluster [^>]*/>|<platform file="'"$PWD"'/platforms/dgx-a100-2node.xml"/>|' scenarios/llama3-8b-hybrid.xml >"$tmp/pf.xml"
expect_err "^$tmp/pf.xml:[0-9]*: --memory-only takes the GPU from the catalog; expected a <cluster>" run --memory-only "$tmp/pf.xml"
expect_err "^scenarios/p2p.xml:0: --memory-only checks a training's memory" run --memory-only scenarios/p2p.xml

finish cmdline
