#!/usr/bin/env bash
# property.sh - random seeded fault plans on small clusters, under every strategy: none may
# deadlock (each run has a wall-clock limit) or abort, every failure must be reported, and the
# test checks each run's report with its own arithmetic (issue 28, "every run ends, every failure
# is reported"). Plans are drawn with bash's RANDOM seeded by the plan's number, plus the
# scenario's own seeded random processes (MTBF, corrupt batches, jitter), so every run is
# reproducible: a failing plan is printed whole.
#   tests/property.sh PATH/TO/dmlsim [PLANS] [MODE]
# PLANS: plans in all (default 400), plan K under strategy K mod (the mode's strategies).
# MODE:
#   mixed     (the default) all-reduce (ring, tree or hierarchical on nodes of 1 or 2 GPUs), the
#             parameter server and the hybrid strategy (tensor x pipeline x data parallelism of a
#             small GPT: tp, pp, dp, microbatches, 1f1b / gpipe / interleaved, ZeRO 0-3, sequence
#             parallelism, recomputation drawn), and where Debian's Fashion-MNIST is installed one
#             all-reduce or PS plan in ten really training (<numerics>) through a partition;
#   nccl      all-reduce with the nccl family (channel actors, trees, NVLS);
#   numerics  all-reduce and PS plans really training a small MLP on Fashion-MNIST, ring or
#             hierarchical, checkpoints under both strategies, the state policies drawn too
#             (restore-from, lost-batches, the PS coordinator), a partition in every other plan.
# What is drawn, besides the strategy's own layout: all-reduce elastic or wait policies,
# checkpoints, a rendezvous replica per node on every third all-reduce plan (per-side: split
# brain); PS sync or async (drop or bounded delay), dedicated or colocated shards, transports
# ideal, grpc-tcp and rdma, per-shard or per-tensor RPCs, pushes during the backward, prefetch,
# local aggregation on 2-GPU nodes, backup workers; on every fourth plan an input pipeline
# (<data>: loaders from the NVMe or the remote store, a memory cache, a corrupt shard and a crash
# of a cache tier without its node); and one to three faults: GPU crashes with and without
# restart, at a time or at a step, crashes of a whole node (<crash host="nodeN">), link-downs,
# degradations, partitions, stragglers, lognormal jitter, corrupt batches and MTBF processes.
#
# What every run must show (checked from its --json report, its stdout and its stderr):
#   - it ends within 30 s of wall clock (it simulates well under a second of training), with
#     exit 0 or 4: anything else (a timeout, an abort, a signal, a bad input drawn) fails;
#   - the verdict: exit 0 exactly when every requested step was committed (steps_completed >=
#     steps_planned) and at least one gradient was applied; otherwise exit 4, a "the simulated job
#     failed:" line on stderr, job_failed true and a failure in the JSON; the stdout "job" line
#     agrees; no SimGrid backtrace on stderr;
#   - the accounting identities, by this test's own sums: computed = applied + dropped stale +
#     dropped late + lost; read = consumed + skipped + dropped + replayed; every term >= 0; the
#     program's accounting_ok and its stdout lines agree with them;
#   - goodput = consumed samples / run time, mean step = run time / step rows, the steps metric
#     is the step rows, and the workers' wait for input is at most all of their time.
# The longest run and the plans' total time are printed at the end. KEEP=1 keeps the scenarios;
# FROM=K starts at plan K (FROM=881 KEEP=1 property.sh dmlsim 881: plan 881 alone).
set -u
dmlsim=${1:?usage: property.sh PATH/TO/dmlsim [PLANS] [MODE]}
plans=${2:-400}
mode=${3:-mixed}
numerics=0
data_dir=/usr/share/datasets/fashion-mnist
case $mode in
mixed) strategies=(allreduce ps hybrid) ;;
nccl) strategies=(allreduce) ;;
numerics) strategies=(allreduce ps); numerics=1 ;;
*) echo "property.sh: unknown mode $mode; expected mixed, nccl or numerics" >&2; exit 1 ;;
esac
command -v python3 >/dev/null || { echo "property.sh: python3 is needed to check the reports" >&2; exit 1; }
# the real training: a small MLP on part of Fashion-MNIST, evaluated every 5 steps, each step
# with ResNet-50's cost (about 13 ms: the plan's faults, 5-85 ms in, fall inside the run, as they
# would not with the MLP's microseconds), and a watchdog longer than a synchronous checkpoint of
# ResNet-50's state
num='<numerics hidden="16" lr="0.05" eval-every="5" train-examples="2000" test-examples="200" cost-model="resnet50"/>'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "scenarios in $tmp"

# Every RANDOM is drawn in this shell, never in a $(...) subshell: bash 5.1 and later reseed
# RANDOM in subshells, which made the plans differ from one run of this script to the next.
faults() { # one to three random faults on nodes 0..N-1 of $gpn GPUs each, into $plan
    local n=$1 kinds=$(( RANDOM % 3 + 1 )) i
    plan=""
    for ((i = 0; i < kinds; i++)); do
        local node=$(( RANDOM % n )) at=$(( RANDOM % 80 + 5 )) dur=$(( RANDOM % 60 + 10 ))
        local ats="$(( at ))ms" durs="$(( dur ))ms" line gpu=$(( RANDOM % gpn ))
        case $(( RANDOM % 11 )) in
        0) line="<crash host=\"node$node.gpu$gpu\" at=\"$ats\"/>" ;;
        1) line="<crash host=\"node$node.gpu$gpu\" at=\"$ats\" restart-after=\"$durs\"/>" ;;
        2) line="<link-down node=\"node$node\" at=\"$ats\" for=\"$durs\"/>" ;;
        3) line="<degrade node=\"node$node\" factor=\"0.$(( RANDOM % 9 + 1 ))\" at=\"$ats\" for=\"$durs\"/>" ;;
        4) line="<partition groups=\"node0|node$(( n - 1 ))\" at=\"$ats\" heal-after=\"$durs\"/>" ;;
        5) line="<straggler host=\"node$node.gpu0\" factor=\"$(( RANDOM % 4 + 2 ))\" from=\"$ats\" until=\"$(( at + dur ))ms\"/>" ;;
        6) line="<corrupt-batch probability=\"0.0$(( RANDOM % 9 + 1 ))\"/>" ;;
        7) line="<mtbf mtbf=\"$(( RANDOM % 200 + 50 ))ms\" repair=\"$durs\" until=\"150ms\"/>" ;;
        8) # a whole node: every GPU of it (and its CPU, loaders, cache), with or without restart
            line="<crash host=\"node$node\" at=\"$ats\"$( (( dur % 2 )) && echo " restart-after=\"$durs\"")/>" ;;
        9) line="<crash host=\"node$node.gpu$gpu\" step=\"$(( at % (steps - 1) + 1 ))\" restart-after=\"$durs\"/>" ;;
        10) line="<straggler jitter=\"lognormal\" sigma=\"0.$(( RANDOM % 5 + 1 ))\"/>" ;;
        esac
        plan+="    $line"$'\n'
    done
}

partition() { # a partition into the plan (numerics plans: the state policies meet a split)
    local at=$(( RANDOM % 60 + 20 )) dur=$(( RANDOM % 60 + 20 ))
    plan+="    <partition groups=\"node0|node$(( n - 1 ))\" at=\"${at}ms\" heal-after=\"${dur}ms\"/>"$'\n'
}

train_ps() { # the parameter server's <training>, into $train, $ps and $gpn
    local place=dedicated mode=sync extra="" split=bytes
    (( RANDOM % 2 )) && place=colocated
    if (( RANDOM % 2 )); then mode=async; extra=" staleness=\"$(( RANDOM % 3 ))\""; fi
    if [ $mode = async ] && (( RANDOM % 2 )); then extra+=" consistency=\"bounded\""; fi
    if (( RANDOM % 2 )); then extra+=" push=\"during-backward\""; split=layer; fi
    case $(( RANDOM % 3 )) in 1) extra+=" transport=\"grpc-tcp\"" ;; 2) extra+=" transport=\"rdma\"" ;; esac
    (( RANDOM % 4 == 0 )) && extra+=" rpc=\"per-tensor\""
    if [ $mode = sync ] && (( RANDOM % 2 )); then extra+=" prefetch=\"yes\""; fi
    if (( num_plan )); then
        local co=no
        (( RANDOM % 2 )) && co=enforce
        extra+=" coordinator=\"$co\""
    fi
    if [ $mode = sync ] && [ $split = bytes ] && (( RANDOM % 2 )); then
        extra+=" local-aggregation=\"yes\""; gpn=2 # a node's 2 GPUs reduce to its first
    elif [ $mode = sync ] && (( RANDOM % 4 == 0 )); then
        extra+=" backup-workers=\"1\""
    fi
    train="<training strategy=\"ps\" batch-per-gpu=\"16\" steps=\"$steps\" optimizer=\"sgd\" timeout=\"$watchdog\"><ps shards=\"$(( RANDOM % 2 + 1 ))\" placement=\"$place\" split=\"$split\" mode=\"$mode\"$extra/></training>"
    [ $place = dedicated ] && ps=" ps-nodes=\"2\""
    if (( num_plan )); then
        train="${train%</training>}$num</training>"
        train+=$'\n'"  <checkpoint every=\"$(( RANDOM % 3 + 2 )) steps\" target=\"remote\"/>"
    elif (( RANDOM % 3 == 0 )); then
        train+=$'\n'"  <checkpoint every=\"$(( RANDOM % 3 + 2 )) steps\" target=\"remote\"/>"
    fi
}

train_allreduce() { # all-reduce's <training>, checkpoints and recovery, into $train and $gpn
    local a=$algo
    if [ "$a" = mixed ]; then
        case $(( RANDOM % 3 )) in 0) a=ring ;; 1) a=tree ;; 2) a=hierarchical ;; esac
        (( num_plan )) && [ $a = tree ] && a=ring # the tree carries no data
        (( RANDOM % 2 )) && gpn=2
        [ $a = hierarchical ] && gpn=2
    fi
    local policy=elastic
    (( RANDOM % 2 )) && policy=wait
    local every=$(( RANDOM % 3 + 1 )) cmode=async
    (( RANDOM % 2 )) && cmode=sync
    local state=""
    (( num_plan && RANDOM % 2 )) && state+=" restore-from=\"survivor\""
    (( num_plan && RANDOM % 2 )) && state+=" lost-batches=\"skip\""
    # split brain on every third plan, drawn without RANDOM
    (( seed % ${SPLIT_EVERY:-3} == 0 )) && state+=" rendezvous=\"per-side\""
    train="<training strategy=\"allreduce\" algo=\"$a\" batch-per-gpu=\"16\" steps=\"$steps\" optimizer=\"sgd\" timeout=\"$watchdog\">$( (( num_plan )) && echo "$num")</training>
  <checkpoint every=\"$every steps\" mode=\"$cmode\" target=\"remote\"/>
  <recovery policy=\"$policy\" rendezvous-timeout=\"10ms\" replacement-timeout=\"200ms\"$state/>"
}

train_hybrid() { # tp x pp x dp of a small GPT (8 blocks) over n nodes of gpn GPUs, into $train
    local total=$(( n * gpn )) tp=1 pp=1 dp m sched=1f1b extra=""
    case $(( RANDOM % 3 )) in 1) tp=2 ;; 2) tp=$gpn ;; esac
    case $(( RANDOM % 3 )) in 1) pp=2 ;; 2) pp=4 ;; esac
    (( total % (tp * pp) )) && pp=1
    dp=$(( total / (tp * pp) ))
    m=$(( RANDOM % 4 + 1 ))
    case $(( RANDOM % 3 )) in
    1) sched=gpipe ;;
    2) if (( pp > 1 )); then sched=interleaved; m=$(( pp * (RANDOM % 2 + 1) )); fi ;;
    esac
    extra+=" zero=\"$(( RANDOM % 4 ))\""
    (( tp > 1 && RANDOM % 2 )) && extra+=" sequence-parallel=\"yes\""
    case $(( RANDOM % 3 )) in 1) extra+=" recompute=\"selective\"" ;; 2) extra+=" recompute=\"full\"" ;; esac
    (( RANDOM % 2 )) && extra+=" order=\"tp-pp-dp\""
    train="<training strategy=\"hybrid\" algo=\"ring\" batch-per-gpu=\"1\" steps=\"$steps\" dtype=\"bf16\" optimizer=\"adam\" timeout=\"$watchdog\">
    <parallel tp=\"$tp\" pp=\"$pp\" dp=\"$dp\" microbatches=\"$m\" schedule=\"$sched\"$extra/>
  </training>"
    if (( RANDOM % 3 == 0 )); then
        local cmode=async
        (( RANDOM % 2 )) && cmode=sync
        train+=$'\n'"  <checkpoint every=\"$(( RANDOM % 3 + 2 )) steps\" mode=\"$cmode\" target=\"local-nvme\"/>"
    fi
}

scenario() { # strategy seed
    local strategy=$1 train ps="" model
    n=$(( RANDOM % 3 + 3 ))
    gpn=1 steps=10 watchdog=20ms num_plan=$numerics
    # one all-reduce or PS plan in ten of the mixed mode trains for real, through a partition
    if [ "$mode" = mixed ] && [ "$strategy" != hybrid ] && [ -d "$data_dir" ] && (( RANDOM % 10 == 0 )); then
        num_plan=1
    fi
    (( num_plan )) && watchdog=200ms
    model='<model name="two-layer"><layer name="l0" params="5e5" flops="5e9"/><layer name="l1" params="5e5" flops="5e9"/></model>'
    case $strategy in
    ps) train_ps ;;
    allreduce) train_allreduce ;;
    hybrid)
        # steps of about 3 ms: 20 of them span the plan's faults (5-85 ms)
        n=$(( RANDOM % 3 + 2 )) gpn=$(( RANDOM % 2 ? 4 : 2 )) steps=20 watchdog=100ms
        model='<model preset="gpt" layers="8" hidden="512" heads="8" seq="128" vocab="8"/>'
        train_hybrid ;;
    esac
    (( num_plan )) && model=""
    # an input pipeline on every fourth plan (drawn from the plan's number): its loaders, their
    # prefetch and their restarts through the same faults
    if (( seed % 4 == 1 )); then
        local src=local-nvme cache=""
        (( seed % 8 == 1 )) && src=remote cache=" cache=\"memory\" cache-capacity=\"100MB\""
        train="${train/<\/training>/<data samples=\"2048\" sample-size=\"200kB\" decode=\"0.2ms\" format=\"webdataset\" shard-samples=\"40\" source=\"$src\"$cache loader-workers=\"$(( seed % 3 ))\" prefetch=\"$(( seed / 4 % 2 + 1 ))\"/></training>}"
    fi
    faults "$n"
    if (( num_plan )) && { [ "$mode" != numerics ] || (( RANDOM % 2 )); }; then partition; fi
    # the pipeline's own faults: a corrupt shard (40 samples: it cuts batches of 16) and, with a
    # cache tier, a crash of node0's tier without its node
    if (( seed % 4 == 1 )); then
        plan+="    <corrupt-shard shard=\"$(( seed % 51 ))\"/>"$'\n'
        (( seed % 8 == 1 )) && plan+="    <cache-crash node=\"node0\" at=\"0.0$(( seed % 9 + 1 ))s\" restart-after=\"20ms\"/>"$'\n'
    fi
    cat <<XML
<?xml version="1.0"?>
<scenario name="property-$strategy-$seed" seed="$seed">
  <cluster nodes="$n" gpus-per-node="$gpn" gpu="h100" nic="ib-ndr"$ps/>
  $model
  $train
  <faults>
$plan  </faults>
</scenario>
XML
}

algo=mixed
[ "$mode" = nccl ] && algo=nccl
# Run every plan; record what the checker needs: strategy, seed, exit status, wall ms.
: >"$tmp/manifest"
t_all=$(date +%s%N)
for ((seed = ${FROM:-1}; seed <= plans; seed++)); do
    strategy=${strategies[(seed - 1) % ${#strategies[@]}]}
    RANDOM=$seed
    f="$tmp/$strategy-$seed"
    scenario "$strategy" "$seed" >"$f.xml"
    t0=$(date +%s%N)
    timeout 30 "$dmlsim" run "$f.xml" --json "$f.json" >"$f.out" 2>"$f.err"
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '%s\t%s\t%s\t%s\t%s\n' "$strategy" "$seed" "$rc" "$ms" "$f" >>"$tmp/manifest"
done
total_s=$(( ($(date +%s%N) - t_all) / 1000000000 ))

# The checker: the verdict and the identities by its own arithmetic, from the JSON report.
cat >"$tmp/check.py" <<'PY'
import json, math, re, sys

def close(a, b, rel=1e-6, abs_=1e-9):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))

def check(strategy, seed, rc, path):
    """The list of what is wrong with one run (empty: it passed)."""
    out = open(path + ".out", errors="replace").read()
    err = open(path + ".err", errors="replace").read()
    if rc == 124:
        return ["deadlock: no end within 30 s of wall clock"]
    if rc not in (0, 4):
        last = (err.strip().splitlines() or out.strip().splitlines() or ["(no output)"])[-1]
        return ["exit %d (%s)" % (rc, last)]
    bad = []
    if re.search(r"Backtrace|xbt_backtrace|terminate called|Aborted|\*\*\* ", err):
        bad.append("SimGrid's abort or a backtrace on stderr")
    try:
        with open(path + ".json") as f:
            d = json.load(f, parse_constant=lambda c: float("nan"))
    except Exception as e:
        return bad + ["exit %d but no readable JSON report (%s)" % (rc, e)]
    s = d["summary"]
    g = {k: s[k] for k in ("computed", "applied", "dropped_stale", "dropped_late",
                           "lost_gradients", "read_samples", "consumed_samples",
                           "skipped_samples", "dropped_samples", "replayed_samples")}
    neg = [k for k, v in g.items() if not (v >= 0)]
    if neg:
        bad.append("negative or NaN counts: " + ", ".join("%s=%s" % (k, g[k]) for k in neg))
    grads = g["applied"] + g["dropped_stale"] + g["dropped_late"] + g["lost_gradients"]
    samples = (g["consumed_samples"] + g["skipped_samples"] + g["dropped_samples"]
               + g["replayed_samples"])
    ident = abs(g["computed"] - grads) < 0.5 and abs(g["read_samples"] - samples) < 0.5
    if abs(g["computed"] - grads) >= 0.5:
        bad.append("gradients: %g computed != %g applied + %g stale + %g late + %g lost (= %g)"
                   % (g["computed"], g["applied"], g["dropped_stale"], g["dropped_late"],
                      g["lost_gradients"], grads))
    if abs(g["read_samples"] - samples) >= 0.5:
        bad.append("samples: %g read != %g consumed + %g skipped + %g dropped + %g replayed (= %g)"
                   % (g["read_samples"], g["consumed_samples"], g["skipped_samples"],
                      g["dropped_samples"], g["replayed_samples"], samples))
    if bool(s["accounting_ok"]) != ident:
        bad.append("accounting_ok %s but the sums say %s" % (s["accounting_ok"], int(ident)))
    m = re.search(r"^#   gradients +(\d+) computed = (\d+) applied \+ (\d+) dropped stale \+ "
                  r"(\d+) dropped late \+ (\d+) lost", out, re.M)
    if not m or [float(x) for x in m.groups()] != [round(g[k]) for k in
            ("computed", "applied", "dropped_stale", "dropped_late", "lost_gradients")]:
        bad.append("the stdout gradients line disagrees with the JSON")
    m = re.search(r"^#   samples +(\d+) read = (\d+) consumed \+ (\d+) skipped corrupt \+ "
                  r"(\d+) dropped stale or late \+ (\d+) replayed", out, re.M)
    if not m or [float(x) for x in m.groups()] != [round(g[k]) for k in
            ("read_samples", "consumed_samples", "skipped_samples", "dropped_samples",
             "replayed_samples")]:
        bad.append("the stdout samples line disagrees with the JSON")
    # the verdict
    planned, committed = d["steps_planned"], s["steps_completed"]
    complete = committed >= planned and g["applied"] >= 1
    said = "the simulated job failed:" in err
    if complete and rc != 0:
        bad.append("exit %d although %g of %d steps were committed and %g gradients applied (%s)"
                   % (rc, committed, planned, g["applied"], d.get("failure", "no failure in JSON")))
    if not complete and rc != 4:
        bad.append("exit %d but the job did not complete: %g of %d steps committed, %g gradients "
                   "applied" % (rc, committed, planned, g["applied"]))
    if rc == 4 and not said:
        bad.append("exit 4 without a \"the simulated job failed:\" line on stderr")
    if rc == 0 and said:
        bad.append("exit 0 with a \"the simulated job failed:\" line on stderr")
    if bool(d["job_failed"]) != (rc == 4) or bool(s["job_failed"]) != (rc == 4):
        bad.append("JSON job_failed %s with exit %d" % (d["job_failed"], rc))
    if bool(d["job_failed"]) != ("failure" in d):
        bad.append("JSON job_failed %s but failure %s" % (d["job_failed"], d.get("failure")))
    job = re.search(r"^#   job +(\S+)", out, re.M)
    if not job or (job.group(1) == "completed") != (rc == 0):
        bad.append("the stdout job line (%s) disagrees with exit %d" % (job and job.group(1), rc))
    # goodput, mean step, step rows, input wait
    t = s["time_s"]
    rows = len(d["steps"])
    if s["steps"] != rows:
        bad.append("steps metric %g but %d step rows" % (s["steps"], rows))
    if t > 0 and not close(s["goodput"], g["consumed_samples"] / t):
        bad.append("goodput %g != consumed %g / time %g s" % (s["goodput"], g["consumed_samples"], t))
    if rows > 0 and not close(s["mean_step_s"], t / rows):
        bad.append("mean step %g s != time %g s / %d rows" % (s["mean_step_s"], t, rows))
    if s.get("input_fraction", 0) > 1 + 1e-9:
        bad.append("input wait %.1f%% of the workers' time" % (100 * s["input_fraction"]))
    return bad

fails = 0
total = 0
longest = (0, "")
for line in open(sys.argv[1]):
    strategy, seed, rc, ms, path = line.rstrip("\n").split("\t")
    total += 1
    if int(ms) > longest[0]:
        longest = (int(ms), "%s seed %s" % (strategy, seed))
    bad = check(strategy, int(seed), int(rc), path)
    if bad:
        fails += 1
        errl = open(path + ".err", errors="replace").read().strip().splitlines()
        print("FAIL: %s seed %s: exit %s: %s" % (strategy, seed, rc, "; ".join(bad)))
        print("  stderr: %s" % (errl[-1] if errl else "(empty)"))
        sys.stdout.write(open(path + ".xml").read())
print("property: %d passed, %d failed; longest run %d ms (%s)"
      % (total - fails, fails, longest[0], longest[1]))
sys.exit(1 if fails else 0)
PY
python3 "$tmp/check.py" "$tmp/manifest"
rc=$?
echo "property: $plans plan(s) ($mode) in $total_s s of wall clock"
exit $rc
