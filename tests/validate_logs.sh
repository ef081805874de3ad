#!/usr/bin/env bash
# validate_logs.sh - `dmlsim validate` on the nccl-tests logs of issue 29's defects, run from the
# repository root by ctest (each check failed before issue 29):
#   the reader never guesses silently: an all_gather_perf log launched by a wrapper and an
#     alltoall_perf log are validated as what they are (they were all-reduce, or "no result
#     rows"); a 32-rank log whose rank lines were elided asks for its node count (it was 5 GPUs on
#     one node) and takes --nodes; a statement that contradicts the log is an error naming both;
#     an rccl-tests log is refused by name; every inference is printed in a "# read" line;
#   --algo, --proto, --channels are NCCL's NCCL_ALGO, NCCL_PROTO, NCCL_MAX_NCHANNELS: --algo ring
#     simulates exactly what a scenario with algo="nccl" nccl-algo="ring" does, and is calibrated;
#     textbook-ring is the textbook ring, and is not;
#   one thread driving G GPUs (nccl-tests -g G) launches G kernels a call: a call measures at
#     least G x 4.90 us (cudaLaunchKernel, JuliaGPU/CUDAdrv.jl PR #15), 39.20 us for -g 8 where
#     NCCL's model of 8 V100s alone says 15 us; a log of one GPU per process has no floor;
#   validate at scale: on 4 nodes or more, sizes from 256 MiB run at flow level, within 5% of
#     message level on a 4 x 2 machine (and identical below 256 MiB).
set -u
dmlsim=${1:?usage: validate_logs.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"
D=tests/data/nccl

# ---- the operation ---------------------------------------------------------------------------
"$dmlsim" validate $D/b200-2x8-allgather-wrapper.log >"$tmp/ag" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q "^# read          line 31: allgather from the rows' columns" "$tmp/ag" &&
    [ "$(grep -c '^ *allgather  *16  *2 ' "$tmp/ag")" -eq 8 ] && ! grep -q '^ *allreduce' "$tmp/ag" &&
    ok || ko "an all_gather_perf log without its binary's name must validate as all-gather"
"$dmlsim" validate $D/rtx6000d-2x8-alltoall.log --gpu h100 >"$tmp/a2a" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^# read .*alltoall from "Collective test starting" at line 10' "$tmp/a2a" &&
    [ "$(grep -c '^ *alltoall  *16  *2 .* -  *- -$' "$tmp/a2a")" -eq 14 ] &&
    grep -q 'not calibrated: all-to-all is pairwise sends' "$tmp/a2a" && ok ||
    ko "an alltoall_perf log must validate against the all-to-all collective, uncalibrated"
grep -v alltoall_perf $D/rtx6000d-2x8-alltoall.log >"$tmp/a2a-wrapped.log"
"$dmlsim" validate "$tmp/a2a-wrapped.log" --gpu h100 >"$tmp/a2a2" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q "alltoall from the rows' columns .*in-place #wrong N/A" "$tmp/a2a2" &&
    [ "$(grep -c '^ *alltoall  *16  *2 ' "$tmp/a2a2")" -eq 14 ] && ok ||
    ko "an alltoall_perf log without its name must validate as all-to-all (in-place #wrong N/A)"
"$dmlsim" validate "$tmp/a2a-wrapped.log" --gpu h100 --op allreduce >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "a2a-wrapped.log:33: the rows (redop none, count = size / (16 x 4 B), root -1) are not those of allreduce, which --op names" "$tmp/err" &&
    ok || ko "--op allreduce on all-to-all rows must be a FILE:LINE error naming both"

# ---- ranks and nodes --------------------------------------------------------------------------
log=$D/a100-32rank-elided-coreweave.log
"$dmlsim" validate $log >"$tmp/el" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/el" ] &&
    grep -q "^$log:21: cannot tell how many nodes the 32 ranks of this run spanned" "$tmp/err" &&
    ok || ko "32 ranks of elided rank lines, no hosts: validate must ask for --nodes"
"$dmlsim" validate $log --nodes 4 >"$tmp/el" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^# read .*32 ranks from busbw/algbw .*; 4 nodes from --nodes' "$tmp/el" &&
    [ "$(grep -c '^ *allreduce  *32  *4 ' "$tmp/el")" -eq 8 ] && ok ||
    ko "an elided 32-rank log with --nodes 4 must validate 32 GPUs on 4 nodes (it was 5 on 1)"
"$dmlsim" validate $log --nodes 4 --nranks 16 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "^$log:[0-9]*: --nranks gives 16 ranks, but busbw/algbw (lines .*) gives 32" \
    "$tmp/err" && ok || ko "--nranks against the rows' busbw/algbw must be an error naming both"
{ cat $log; printf '# dmlsim-nranks 32\n# dmlsim-nodes 4\n'; } >"$tmp/hinted.log"
"$dmlsim" validate "$tmp/hinted.log" >"$tmp/el" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q '^# read .*32 ranks from the dmlsim-nranks line (line 32), busbw/algbw agrees; 4 nodes from the dmlsim-nodes line' "$tmp/el" && ok ||
    ko "dmlsim-nranks and dmlsim-nodes lines must count although rank lines exist"

# ---- other stacks -----------------------------------------------------------------------------
"$dmlsim" validate $D/rccl-radeon-2node-issue5571.log --gpu h100 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^$D/rccl-radeon-2node-issue5571.log:9: an rccl-tests log (AMD's RCCL" "$tmp/err" && ok ||
    ko "an rccl-tests log must be refused by name, even with --gpu"

# ---- --algo, --proto, --channels: NCCL's own ---------------------------------------------------
syn=$D/synthetic-h100-alpha-beta.log # 8 H100, 1 KiB .. 1 GiB by 4
bench() { # the same machine and sizes as a scenario, with these <benchmark> attributes
    printf '<?xml version="1.0"?>\n<scenario name="b" seed="1">\n  <cluster nodes="1" gpus-per-node="8" gpu="h100" intra="nvlink4"/>\n  <benchmark kind="allreduce" begin="1KiB" end="1GiB" factor="4" %s/>\n</scenario>\n' "$1" >"$tmp/b.xml"
    "$dmlsim" run "$tmp/b.xml" | awk '$1 ~ /^[0-9]+$/ { print $1, $5 }'
}
simulated() { awk '$1 == "allreduce" { print $4, $6 }' "$1"; }
"$dmlsim" validate $syn --algo ring >"$tmp/ring" && grep -q 'collectives with nccl with NCCL_ALGO=ring$' "$tmp/ring" &&
    bench 'algo="nccl" nccl-algo="ring"' >"$tmp/want" && [ "$(wc -l <"$tmp/want")" -eq 11 ] &&
    simulated "$tmp/ring" | cmp -s - "$tmp/want" && ok ||
    ko "validate --algo ring must simulate what algo=\"nccl\" nccl-algo=\"ring\" does"
awk '$1 == "allreduce" && $8 != $6 { d++ } $1 == "allreduce" && $NF == "fit" { e = $(NF-1); if (e < 0) e = -e; if (e > 0.5) bad++ }
     END { exit !(d >= 6 && bad == 0) }' "$tmp/ring" && grep -q 'calibrated [0-9.]*% over the 5 held-out' "$tmp/ring" && ok ||
    ko "validate --algo ring must be calibrated (the calibrated column differs, fit sizes within 0.5%)"
"$dmlsim" validate $syn --algo RING | cmp -s - "$tmp/ring" && ok || ko "--algo takes NCCL_ALGO's names in any case"
"$dmlsim" validate $syn --algo textbook-ring >"$tmp/tb" && grep -q 'collectives with the textbook ring (not calibrated)$' "$tmp/tb" &&
    grep -q 'not calibrated: textbook algorithms are not calibrated' "$tmp/tb" &&
    [ "$(grep -c '^ *allreduce .* -  *- -$' "$tmp/tb")" -eq 11 ] &&
    bench 'algo="ring"' >"$tmp/want" && simulated "$tmp/tb" | cmp -s - "$tmp/want" &&
    ! simulated "$tmp/ring" | cmp -s - "$tmp/want" && ok ||
    ko "validate --algo textbook-ring must be the scenario's algo=\"ring\", uncalibrated, not NCCL's ring"
"$dmlsim" validate $syn --algo ring --proto simple --channels 4 >"$tmp/rs" &&
    grep -q 'NCCL_ALGO=ring NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=4$' "$tmp/rs" &&
    grep -q '^# nccl plans   ring/Simple/1 1024..16384 B, ring/Simple/2 65536..65536 B, ring/Simple/4 262144..1073741824 B$' "$tmp/rs" &&
    bench 'algo="nccl" nccl-algo="ring" proto="Simple" channels="4"' >"$tmp/want" &&
    simulated "$tmp/rs" | cmp -s - "$tmp/want" && ok ||
    ko "--proto simple --channels 4 must be NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=4"
"$dmlsim" validate $syn --algo textbook-ring --proto ll >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q -- '--proto and --channels are NCCL' "$tmp/err" && ok ||
    ko "--proto with a textbook algorithm must be refused"
"$dmlsim" validate $syn --algo bogus >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q -- "--algo expects nccl, NCCL's ring, tree, nvls" "$tmp/err" && ok ||
    ko "an unknown --algo must list the names"

# ---- flow level at scale: agreement with message level -----------------------------------------
# A synthetic 4 x 2 H100 log (t = 30 us + S x factor / 180 GB/s) of OP, 64 MiB .. 2 GiB.
mklog() { # OP RANKS NODES
    awk -v op="$1" -v n="$2" -v nodes="$3" 'BEGIN {
        print "# nThread 1 nGpus 1 minBytes 67108864 maxBytes 2147483648 step: 2(factor)"
        for (r = 0; r < n; r++)
            printf "#  Rank %2d Group  0 Pid %d on node%d device %d [0x%02x] NVIDIA H100 80GB HBM3\n",
                r, 100 + r, int(r / (n / nodes)), r % (n / nodes), r
        print "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
        f = op == "allreduce" ? 2 * (n - 1) / n : (n - 1) / n
        for (s = 67108864; s <= 2147483648; s *= 2) {
            t = 30e-6 + s * f / 180e9
            printf "%12.0f %12.0f float %6s -1 %9.1f %7.2f %7.2f 0 %9.1f %7.2f %7.2f 0\n", s,
                op == "allreduce" ? s / 4 : s / (4 * n), op == "allgather" ? "none" : "sum",
                t * 1e6, s / t / 1e9, s / t / 1e9 * f, t * 1e6, s / t / 1e9, s / t / 1e9 * f
        }
    }'
}
for op in allreduce allgather reducescatter; do
    mklog $op 8 4 >"$tmp/$op.log"
    "$dmlsim" validate "$tmp/$op.log" >"$tmp/$op.auto" 2>&1 &&
        DMLSIM_VALIDATE_LEVEL=message "$dmlsim" validate "$tmp/$op.log" >"$tmp/$op.msg" 2>&1 &&
        grep -q "^# read .*$op from the rows' columns" "$tmp/$op.auto" &&
        grep -q '^# levels       message 67108864..134217728 B, flow 268435456..2147483648 B$' "$tmp/$op.auto" &&
        grep -q '^# levels       message 67108864..2147483648 B$' "$tmp/$op.msg" &&
        paste <(awk -v op=$op '$1 == op { print $4, $6 }' "$tmp/$op.auto") \
            <(awk -v op=$op '$1 == op { print $4, $6 }' "$tmp/$op.msg") |
        awk '{ e = ($2 - $4) / $4; if (e < 0) e = -e; n++
               if ($1 < 268435456 && $2 != $4) bad++; if ($1 >= 268435456 && e > 0.05) bad++ }
             END { exit !(n == 6 && bad == 0) }' && ok ||
        ko "$op on 4 x 2: flow level from 256 MiB within 5% of message level, identical below"
done

# ---- the host's launch floor ------------------------------------------------------------------
# The V100 log ran "nThread 1 nGpus 8": its 8 B call can take no less than 8 x 4.90 = 39.20 us.
# The H100 #309 log ran one GPU a process (nGpus 1): no floor, and no floor line.
"$dmlsim" validate $D/public/v100-8gpu-nvlink-hcm-blog.log >"$tmp/v100" 2>"$tmp/err"
[ $? -eq 0 ] && awk '$1 == "allreduce" && $4 == 8 { exit !($6 == "39.20") } ' "$tmp/v100" &&
    grep -q '^# launch floor 8 GPUs per thread (nGpus 8): 39.2 us a call' "$tmp/v100" && ok ||
    ko "a call of a thread driving 8 GPUs must take at least 8 x 4.90 us"
"$dmlsim" validate $D/public/h100-2x8-ib-ndr-issue309.log >"$tmp/h100" 2>"$tmp/err"
[ $? -eq 0 ] && ! grep -q '^# launch floor' "$tmp/h100" &&
    awk '$1 == "allreduce" && $4 == 8 { exit !($6 < 39.2) }' "$tmp/h100" && ok ||
    ko "one GPU a process: no launch floor"

finish validate_logs
