#!/usr/bin/env bash
# property.sh - random seeded fault plans on small clusters, under the ring and the parameter
# server: none may deadlock (each run has a wall-clock limit) or abort (a simulated job left with
# no live worker exits 4 and says so; that is a result, any other failed job is not), and the
# accounting
# identities (every gradient applied, dropped or lost; every sample consumed, skipped or
# replayed) must hold in every one. Plans are drawn with bash's RANDOM seeded by the run number,
# plus the scenario's own seeded random processes (MTBF, corrupt batches, jitter), so every run
# is reproducible: the failing scenario is printed.
# Every run must end within its bound (30 s of wall clock here; it simulates well under a second
# of training), and one that cannot continue must say so (exit 4 and why). The longest run is
# printed at the end.
#   tests/property.sh PATH/TO/dmlsim [RUNS_PER_STRATEGY] [ALGO]
# ALGO: the all-reduce; "mixed" (the default) draws ring, tree or hierarchical per plan, on nodes
# of 1 or 2 GPUs (hierarchical: 2). "numerics": the workers really train a small MLP on Debian's
# Fashion-MNIST (<numerics>), ring or hierarchical, with checkpoints under both strategies and
# the state policies drawn too (restore-from, lost-batches, the PS coordinator). Every third
# all-reduce plan has a rendezvous replica per node (rendezvous="per-side": split brain), and
# every fourth plan an input pipeline (<data>: loaders from the NVMe or the remote store, a
# corrupt shard, and a crash of a cache tier without its node).
set -u
dmlsim=${1:?usage: property.sh PATH/TO/dmlsim [RUNS] [ALGO]}
runs=${2:-200}
algo=${3:-mixed}
numerics=0
if [ "$algo" = numerics ]; then numerics=1; algo=mixed; fi
# the real training: a small MLP on part of Fashion-MNIST, evaluated every 5 steps, each step
# with ResNet-50's cost (about 13 ms: the plan's faults, 5-85 ms in, fall inside the run, as they
# would not with the MLP's microseconds), and a watchdog longer than a synchronous checkpoint of
# ResNet-50's state
num='<numerics hidden="16" lr="0.05" eval-every="5" train-examples="2000" test-examples="200" cost-model="resnet50"/>'
watchdog=20ms
(( numerics )) && watchdog=200ms
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "scenarios in $tmp"
pass=0
fail=0
longest=0 longest_plan=""

# Every RANDOM is drawn in this shell, never in a $(...) subshell: bash 5.1 and later reseed
# RANDOM in subshells, which made the plans differ from one run of this script to the next.
faults() { # one to three random faults on nodes 0..N-1 of $gpn GPUs each, into $plan
    local n=$1 kinds=$(( RANDOM % 3 + 1 )) i
    plan=""
    for ((i = 0; i < kinds; i++)); do
        local node=$(( RANDOM % n )) at=$(( RANDOM % 80 + 5 )) dur=$(( RANDOM % 60 + 10 ))
        local ats="$(( at ))ms" durs="$(( dur ))ms" line gpu=$(( RANDOM % gpn ))
        case $(( RANDOM % 8 )) in
        0) line="<crash host=\"node$node.gpu$gpu\" at=\"$ats\"/>" ;;
        1) line="<crash host=\"node$node.gpu$gpu\" at=\"$ats\" restart-after=\"$durs\"/>" ;;
        2) line="<link-down node=\"node$node\" at=\"$ats\" for=\"$durs\"/>" ;;
        3) line="<degrade node=\"node$node\" factor=\"0.$(( RANDOM % 9 + 1 ))\" at=\"$ats\" for=\"$durs\"/>" ;;
        4) line="<partition groups=\"node0|node$(( n - 1 ))\" at=\"$ats\" heal-after=\"$durs\"/>" ;;
        5) line="<straggler host=\"node$node.gpu0\" factor=\"$(( RANDOM % 4 + 2 ))\" from=\"$ats\" until=\"$(( at + dur ))ms\"/>" ;;
        6) line="<corrupt-batch probability=\"0.0$(( RANDOM % 9 + 1 ))\"/>" ;;
        7) line="<mtbf mtbf=\"$(( RANDOM % 200 + 50 ))ms\" repair=\"$durs\" until=\"150ms\"/>" ;;
        esac
        plan+="$line"$'\n'
    done
}

scenario() { # strategy seed
    local strategy=$1 seed=$2 n=$(( RANDOM % 3 + 3 ))
    local train ps="" place=dedicated
    gpn=1
    if [ "$strategy" = ps ]; then
        (( RANDOM % 2 )) && place=colocated
        local mode=sync extra="" split=bytes
        if (( RANDOM % 2 )); then mode=async; extra=" staleness=\"$(( RANDOM % 3 ))\""; fi
        if [ $mode = async ] && (( RANDOM % 2 )); then extra+=" consistency=\"bounded\""; fi
        if (( RANDOM % 2 )); then extra+=" push=\"during-backward\""; split=layer; fi
        (( RANDOM % 2 )) && extra+=" transport=\"grpc-tcp\""
        if [ $mode = sync ] && (( RANDOM % 2 )); then extra+=" prefetch=\"yes\""; fi
        if (( numerics )); then
            local co=no
            (( RANDOM % 2 )) && co=enforce
            extra+=" coordinator=\"$co\""
        fi
        if [ $mode = sync ] && [ $split = bytes ] && (( RANDOM % 2 )); then
            extra+=" local-aggregation=\"yes\""; gpn=2 # a node's 2 GPUs reduce to its first
        fi
        train="<training strategy=\"ps\" batch-per-gpu=\"16\" steps=\"10\" optimizer=\"sgd\" timeout=\"$watchdog\"><ps shards=\"$(( RANDOM % 2 + 1 ))\" placement=\"$place\" split=\"$split\" mode=\"$mode\"$extra/></training>"
        [ $place = dedicated ] && ps=" ps-nodes=\"2\""
        (( numerics )) && train="${train%</training>}$num</training>
  <checkpoint every=\"$(( RANDOM % 3 + 2 )) steps\" target=\"remote\"/>"
    else
        local a=$algo
        if [ "$a" = mixed ]; then
            case $(( RANDOM % 3 )) in 0) a=ring ;; 1) a=tree ;; 2) a=hierarchical ;; esac
            (( numerics )) && [ $a = tree ] && a=ring # the tree carries no data
            (( RANDOM % 2 )) && gpn=2
            [ $a = hierarchical ] && gpn=2
        fi
        local policy=elastic
        (( RANDOM % 2 )) && policy=wait
        local every=$(( RANDOM % 3 + 1 )) cmode=async
        (( RANDOM % 2 )) && cmode=sync
        local state=""
        (( numerics && RANDOM % 2 )) && state+=" restore-from=\"survivor\""
        (( numerics && RANDOM % 2 )) && state+=" lost-batches=\"skip\""
        # split brain on every third plan, drawn without RANDOM so the plans stay as they were
        (( seed % ${SPLIT_EVERY:-3} == 0 )) && state+=" rendezvous=\"per-side\""
        train="<training strategy=\"allreduce\" algo=\"$a\" batch-per-gpu=\"16\" steps=\"10\" optimizer=\"sgd\" timeout=\"$watchdog\">$( (( numerics )) && echo "$num")</training>
  <checkpoint every=\"$every steps\" mode=\"$cmode\" target=\"remote\"/>
  <recovery policy=\"$policy\" rendezvous-timeout=\"10ms\" replacement-timeout=\"200ms\"$state/>"
    fi
    # an input pipeline on every fourth plan (drawn from the plan's number, as split brain): its
    # loaders, their prefetch and their restarts through the same faults
    if (( seed % 4 == 1 )); then
        local src=local-nvme cache=""
        (( seed % 8 == 1 )) && src=remote cache=" cache=\"memory\" cache-capacity=\"100MB\""
        train="${train/<\/training>/<data samples=\"2048\" sample-size=\"200kB\" decode=\"0.2ms\" format=\"webdataset\" shard-samples=\"40\" source=\"$src\"$cache loader-workers=\"$(( seed % 3 ))\" prefetch=\"$(( seed / 4 % 2 + 1 ))\"/></training>}"
    fi
    faults "$n"
    # the pipeline's own faults: a corrupt shard (40 samples: it cuts batches of 16) and, with a
    # cache tier, a crash of node0's tier without its node
    if (( seed % 4 == 1 )); then
        plan+=$'\n'"    <corrupt-shard shard=\"$(( seed % 51 ))\"/>"
        (( seed % 8 == 1 )) && plan+=$'\n'"    <cache-crash node=\"node0\" at=\"0.0$(( seed % 9 + 1 ))s\" restart-after=\"20ms\"/>"
    fi
    cat <<XML
<?xml version="1.0"?>
<scenario name="property-$strategy-$seed" seed="$seed">
  <cluster nodes="$n" gpus-per-node="$gpn" gpu="h100" nic="ib-ndr"$ps/>
  $( (( numerics )) || echo '<model name="two-layer"><layer name="l0" params="5e5" flops="5e9"/><layer name="l1" params="5e5" flops="5e9"/></model>')
  $train
  <faults>
$plan
  </faults>
</scenario>
XML
}

for strategy in allreduce ps; do
    for ((seed = 1; seed <= runs; seed++)); do
        RANDOM=$seed
        f="$tmp/$strategy-$seed.xml"
        scenario "$strategy" "$seed" >"$f"
        t0=$(date +%s%N)
        timeout 30 "$dmlsim" run "$f" >"$tmp/out" 2>&1
        rc=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        (( ms > longest )) && longest=$ms longest_plan="$strategy seed $seed"
        # exit 4 (the simulated job failed) is a result only when no worker was left
        if [ $rc -ne 0 ] && ! { [ $rc -eq 4 ] && grep -qE "the simulated job failed: .*(0 of the last membership|no workers left|; 0 of [0-9]+ workers finished)" "$tmp/out"; }; then
            fail=$((fail + 1))
            echo "FAIL: $strategy seed $seed: exit $rc ($( [ $rc -eq 124 ] && echo deadlock/timeout || tail -n 1 "$tmp/out"))"
            cat "$f"
        elif grep -qE "^#   input .* (1[0-9][0-9]|[2-9][0-9][0-9])\.[0-9]% of the workers' time" "$tmp/out"; then
            fail=$((fail + 1)) # waits counted beyond the run's time
            echo "FAIL: $strategy seed $seed: $(grep '^#   input ' "$tmp/out")"
            cat "$f"
        elif ! grep -q 'accounting       both identities hold' "$tmp/out"; then
            fail=$((fail + 1))
            echo "FAIL: $strategy seed $seed: accounting identities violated"
            grep -E 'gradients .*computed|samples .*read' "$tmp/out"
            cat "$f"
        else
            pass=$((pass + 1))
        fi
    done
done
echo "property: $pass passed, $fail failed; longest run $longest ms ($longest_plan)"
[ "$fail" -eq 0 ]
