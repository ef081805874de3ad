#!/usr/bin/env bash
#SBATCH --job-name=dmlsim-sweep
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
# sweep-slurm.sh - one `dmlsim sweep` shared among the nodes of a Slurm cluster: a job array with
# one task per grid point (`dmlsim sweep ... --point K`), then a job that merges the points'
# files into the table the whole sweep prints locally (`dmlsim merge`), once every task ended
# well (afterok).
#   tools/sweep-slurm.sh submit OUTDIR FILE.xml SWEEP-OPTIONS...   on the login node
#       counts the points (dmlsim sweep --list), submits them as job arrays of at most
#       ARRAY_MAX tasks (default 1000: Slurm's default MaxArraySize is 1001) and the merge job;
#       the table is OUTDIR/table.txt, each point's file OUTDIR/K.sum.
#   The array tasks run "sweep-slurm.sh point OUTDIR OFFSET FILE.xml SWEEP-OPTIONS..." (point
#   OFFSET + $SLURM_ARRAY_TASK_ID), the merge job "sweep-slurm.sh merge OUTDIR".
# DMLSIM names the binary (default: dmlsim on PATH); SBATCH_ARGS adds sbatch options (partition,
# account, time limit). FILE.xml and OUTDIR must be on a file system every node sees.
set -euo pipefail
dmlsim=${DMLSIM:-dmlsim}
mode=${1:?usage: sweep-slurm.sh submit|point|merge OUTDIR [FILE.xml SWEEP-OPTIONS...]}
out=${2:?usage: sweep-slurm.sh submit|point|merge OUTDIR [FILE.xml SWEEP-OPTIONS...]}
shift 2
case $mode in
submit)
    mkdir -p "$out"
    n=$("$dmlsim" sweep "$@" --list | wc -l)
    [ "$n" -ge 1 ] || { echo "sweep-slurm.sh: the grid has no points" >&2; exit 1; }
    max=${ARRAY_MAX:-1000}
    deps=""
    for ((off = 0; off < n; off += max)); do
        m=$((n - off < max ? n - off : max))
        # shellcheck disable=SC2086
        jid=$(sbatch --parsable ${SBATCH_ARGS:-} --array="1-$m" --output="$out/%A_%a.log" \
            "$0" point "$out" "$off" "$@")
        deps="$deps:${jid%%;*}"
    done
    # shellcheck disable=SC2086
    sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterok$deps" \
        --output="$out/merge.log" "$0" merge "$out"
    echo "sweep-slurm.sh: $n points in array job(s) ${deps#:}; the table will be $out/table.txt"
    ;;
point)
    off=${1:?point: expected OUTDIR OFFSET FILE.xml ...}
    shift
    k=$((off + ${SLURM_ARRAY_TASK_ID:?point: run as a task of a Slurm job array}))
    "$dmlsim" sweep "$@" -j 1 --point "$k" -o "$out/$k.sum"
    ;;
merge)
    "$dmlsim" merge "$out"/*.sum -o "$out/table.txt" >/dev/null
    ;;
*)
    echo "sweep-slurm.sh: unknown mode '$mode'; expected submit, point or merge" >&2
    exit 1
    ;;
esac
