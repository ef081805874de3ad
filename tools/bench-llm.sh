#!/usr/bin/env bash
# bench-llm.sh - simulator cost of LLM training steps (issue 26's targets): CPU seconds (user +
# system, median of REPS runs, default 3) and peak memory of one hybrid step, on 8-GPU H100 nodes
# with 8 NDR NICs each, bf16, Adam, ZeRO-1. Prints a table; nothing is asserted. Build first.
#   tools/bench-llm.sh [ROWS]   ROWS: a space-separated subset of the row names below
#   REPS=1 tools/bench-llm.sh "gpt3-4608 llama405-16352"
#   PLOT=out/simcost.png tools/bench-llm.sh   also draws CPU time against GPUs (plots/simcost.gp)
# Rows (name: model, tp x pp x dp, microbatches, level and algorithm):
#   llama70-64           Llama 3 70B, 8 x 2 x 4, 8 microbatches, every default (auto, nccl)
#   llama70-64-ring      the same, flow level, textbook ring
#   gpt3-64 / -ring      GPT-3 175B, 8 x 8 x 1, 16 microbatches, flow, nccl / textbook ring
#   llama8-16 / -ring    scenarios/llama3-8b-hybrid.xml, nccl / textbook ring
#   gpt3-N               GPT-3 175B, 8 x 8 x N/64, 16 microbatches of one 2,048-token sequence
#                        (global batch 1,152 at N = 4,608, Megatron-LM's strong-scaling runs),
#                        sequence parallelism, selective recomputation; N = 576 1152 2304 4608
#   llama405-N           Llama 3 405B, 8 x 14 x N/112, 16 microbatches of 8,192 tokens, full
#                        recomputation (126 blocks: Meta's 16 stages need uneven stages, which
#                        the hybrid strategy does not split; 14 divide them); N = 1008 16352
#   llama405-1008-2steps the 1,008-GPU row for two steps (a second step must cost no more)
# Also the growth exponent of CPU time in GPUs from llama405-1008 to llama405-16352.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}
[ -x /usr/bin/time ] || { echo "bench-llm.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

scenario() { # name -> $tmp/NAME.xml
    local n=$1 nodes model tp pp dp m extra="" train=""
    case $n in
    llama70-64*) model=llama3-70b tp=8 pp=2 dp=4 m=8 extra='zero="1" recompute="full"' ;;
    gpt3-64*) model=gpt3-175b tp=8 pp=8 dp=1 m=16 extra='zero="1" recompute="full"' ;;
    gpt3-*) model=gpt3-175b tp=8 pp=8 dp=$((${n#gpt3-} / 64)) m=16
        extra='zero="1" recompute="selective" sequence-parallel="yes"' ;;
    llama405-*) model=llama3-405b tp=8 pp=14 m=16 extra='zero="1" recompute="full"'
        local g=${n#llama405-}
        dp=$((${g%-2steps} / 112)) ;;
    llama8-16*) cp scenarios/llama3-8b-hybrid.xml "$tmp/$n.xml"
        if [[ $n == *-ring ]]; then sed -i 's/level="flow">/level="flow" algo="ring">/' "$tmp/$n.xml"; fi
        return 0 ;;
    *) echo "bench-llm.sh: unknown row $n" >&2; exit 1 ;;
    esac
    [[ $n == *-ring ]] && train=' level="flow" algo="ring"'
    [[ $n == gpt3-64 ]] && train=' level="flow"'
    local steps=1
    [[ $n == *-2steps ]] && steps=2
    nodes=$((tp * pp * dp / 8))
    cat >"$tmp/$n.xml" <<XML
<scenario name="$n" seed="1">
  <cluster nodes="$nodes" gpus-per-node="8" gpu="h100" intra="nvlink4" nic="ib-ndr" nics-per-node="8"/>
  <model preset="$model"/>
  <training strategy="hybrid" batch-per-gpu="1" steps="$steps" dtype="bf16" optimizer="adam"$train>
    <parallel tp="$tp" pp="$pp" dp="$dp" microbatches="$m" $extra/>
  </training>
</scenario>
XML
}

declare -A cpu
row() { # name
    local n=$1 times=() rss=0
    scenario "$n"
    for ((i = 0; i < reps; i++)); do
        /usr/bin/time -f "%U %S %M" -o "$tmp/time" build/dmlsim run "$tmp/$n.xml" >"$tmp/out"
        read -r u s m <"$tmp/time"
        times+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')")
        rss=$m
    done
    local med
    med=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    cpu[$n]=$med
    local gpus step level
    gpus=$(awk '/^# gpus/ {print $3}' "$tmp/out")
    step=$(awk '$1 == 1 && NF == 6 {print $2}' "$tmp/out")
    level=$(grep -o '(flow level\|(message level' "$tmp/out" | head -1 | tr -d '(')
    printf " %-22s %6s %10s %10s %10s %-14s\n" "$n" "$gpus" "$med" "$((rss / 1024))" "$step" \
        "$level" | tee -a "$tmp/table"
}

rows=${1:-"llama70-64 llama70-64-ring gpt3-64 gpt3-64-ring llama8-16 llama8-16-ring gpt3-576
gpt3-1152 gpt3-2304 gpt3-4608 llama405-1008 llama405-1008-2steps llama405-16352"}
printf "#%-22s %6s %10s %10s %10s %-14s\n" row GPUs cpu peak_rss step level
printf "#%-22s %6s %10s %10s %10s %-14s\n" "" "" "(s)" "(MiB)" "(ms)" ""
for n in $rows; do row "$n"; done
if [ -n "${cpu[llama405-1008]:-}" ] && [ -n "${cpu[llama405-16352]:-}" ]; then
    awk -v a="${cpu[llama405-1008]}" -v b="${cpu[llama405-16352]}" \
        'BEGIN {printf "# growth exponent of CPU time in GPUs, 1,008 -> 16,352: %.2f\n", log(b / a) / log(16352 / 1008)}'
fi
for p in "llama70-64 llama70-64-ring" "gpt3-64 gpt3-64-ring" "llama8-16 llama8-16-ring"; do
    set -- $p
    [ -n "${cpu[$1]:-}" ] && [ -n "${cpu[$2]:-}" ] &&
        awk -v a="${cpu[$1]}" -v b="${cpu[$2]}" -v n="$1" \
            'BEGIN {printf "# %s: nccl / textbook ring CPU = %.2f\n", n, a / b}'
done
if [ -n "${PLOT:-}" ]; then
    # the table as a CSV with a header row, for the plot (by column name)
    awk 'BEGIN { print "row,gpus,cpu_s,peak_rss_mib,step_ms,level" }
        !/^#/ { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 " " $7 }' "$tmp/table" >"$tmp/plot.csv"
    gnuplot -e "in='$tmp/plot.csv'; out='$PLOT'" plots/simcost.gp
fi
true
