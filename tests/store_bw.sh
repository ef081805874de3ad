#!/bin/bash
# store_bw.sh - <cluster store-bw> (the checkpoint store's aggregate sustained rate, e.g. a
# parallel file system such as Llama 3's Tectonic at 2 TB/s) against closed forms written here.
#
# The job: a hybrid tp 1 x pp 1 x dp 2 GPT on the first two of three one-GPU H100 nodes (ib-ndr;
# node2 a spare), a sync checkpoint to the store every 5 steps. Without ZeRO the first replica
# alone writes, so one writer (node0.gpu0) sends the whole checkpoint, S bytes (the run's
# checkpoint_bytes), to storage.cpu, which writes it to its disk; the writer blocks until it counts:
#     blocked = a + S / min(N, B) + S / D
#   N  47 GB/s: the writer's own path, ib-ndr's effective rate (the smallest of its PCIe gen5,
#      52.8 GB/s, its NIC, 47 GB/s, and its switch port, 50 GB/s: `dmlsim catalog`);
#   B  the store's network side: store-bw when given, else the same classes' 47 GB/s;
#   D  the store's disk: store-bw when given, else 3 GB/s (CATALOG_STORE_BPS);
#   a  the route's latency: PCIe gen5 1 us and ib-ndr 2.7 us a hop, half a hop on each of the
#      writer's and the store's links, and a switch's 150 ns: 2 x 0.5 + 2 x 1.35 + 0.15 = 3.85 us.
# The blocking is the step-5 row's time less the step-4 row's (`dmlsim run --csv`): the sync
# write is inside its step (hybrid.c: checkpoint before the step ends), the other steps alike.
#
# The restart (the hybrid-restart-spare.xml pattern): node1 dies at step 12; after detection and
# restart-time both ranks (one on the spare) read the step-10 checkpoint's shard of their (tensor,
# stage), the whole checkpoint R = S, from the store at once: the disk reads dp R, then each rank
# gets R over the store's network side, shared by dp flows, and its own NIC:
#     L = dp R / D + R / min(B / dp, N) + a
# from the event "restart 1 from step 10" to "checkpoint of step 10 reloaded". Where the store is
# the bottleneck (store-bw 12 GB/s: below the NIC's 47) the reload must get faster than the
# default store by the ratio of the two closed forms, within 0.5%.
#
# Also: `dmlsim platform` writes store-bw onto the storage host's disk (read and write), its PCIe
# and NIC links and its switch port, and nothing else; without store-bw the default's rates.
# usage: store_bw.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: store_bw.sh PATH/TO/dmlsim}
. tests/lib.sh
command -v python3 >/dev/null || { echo "store_bw.sh: python3 is needed" >&2; exit 1; }

cat >"$tmp/job.xml" <<'EOF'
<?xml version="1.0"?>
<scenario name="store-bw" seed="1">
  <cluster nodes="3" gpus-per-node="1" gpu="h100" nic="ib-ndr"/>
  <model preset="gpt" layers="8" hidden="1024" heads="16" seq="256" vocab="8"/>
  <training strategy="hybrid" algo="ring" batch-per-gpu="1" steps="20" dtype="bf16"
            optimizer="adam" timeout="2s" gpus="2">
    <parallel tp="1" pp="1" dp="2" microbatches="1"/>
  </training>
  <checkpoint every="5 steps" mode="sync" target="remote"/>
  <recovery restart-time="2s"/>
  <faults>
    <crash host="node1" step="12"/>
  </faults>
</scenario>
EOF
sed '/<recovery/d; /<faults>/,/<\/faults>/d' "$tmp/job.xml" >"$tmp/nofault.xml"

# run NAME FILE [--set ...]: CSV and JSON of the run into $tmp/NAME.{csv,json}
run() {
    local name=$1 file=$2
    shift 2
    "$dmlsim" run "$file" "$@" --csv "$tmp/$name.csv" --json "$tmp/$name.json" >/dev/null \
        2>"$tmp/$name.err" || ko "$name: exited $?: $(cat "$tmp/$name.err")"
}
# label, store-bw (B/s; 0: absent)
cases="default:0 pfs12:12e9 tectonic:2e12"
for c in $cases; do
    name=${c%%:*} bw=${c#*:}
    set=()
    [ "$bw" != 0 ] && set=(--set "cluster.store-bw=${bw}Bps")
    run "ck-$name" "$tmp/nofault.xml" "${set[@]}"
    run "rs-$name" "$tmp/job.xml" "${set[@]}"
done

verdict=$(python3 - "$tmp" $cases <<'EOF'
import csv, json, sys
tmp, cases = sys.argv[1], [c.split(":") for c in sys.argv[2:]]
N, a, dp = 47e9, 3.85e-6, 2
out, L = [], {}
for name, bw in cases:
    bw = float(bw)
    B, D = (bw, bw) if bw > 0 else (47e9, 3e9)
    S = json.load(open(f"{tmp}/ck-{name}.json"))["summary"]["checkpoint_bytes"]
    rows = {int(r["step"]): float(r["time_s"]) for r in csv.DictReader(l for l in open(f"{tmp}/ck-{name}.csv") if not l.startswith("#"))
            if r["kind"] == "step"}
    blocked = rows[5] - rows[4]
    closed = a + S / min(N, B) + S / D
    good = abs(blocked - closed) <= 1e-6 + 1e-6 * closed
    out.append(f"{'ok' if good else 'bad'} {name}: checkpoint of {S:.0f} B blocks {blocked:.9f} s,"
               f" closed form {closed:.9f} s")
    ev = {}
    for r in csv.DictReader(l for l in open(f"{tmp}/rs-{name}.csv") if not l.startswith("#")):
        for key in ("restart 1 from step 10", "checkpoint of step 10 reloaded"):
            if r["kind"] == "recovery" and r["what"].startswith(key):
                ev[key] = float(r["t_s"])
    if len(ev) != 2:
        out.append(f"bad {name}: restart events missing: {sorted(ev)}")
        continue
    L[name] = ev["checkpoint of step 10 reloaded"] - ev["restart 1 from step 10"]
    closed = dp * S / D + S / min(B / dp, N) + a
    good = abs(L[name] - closed) <= 1e-6 + 1e-6 * closed
    out.append(f"{'ok' if good else 'bad'} {name}: reload {L[name]:.9f} s, closed form {closed:.9f} s")
    L[name + "-closed"] = closed
if "default" in L and "pfs12" in L:
    want = L["default-closed"] / L["pfs12-closed"]
    got = L["default"] / L["pfs12"]
    good = abs(got / want - 1) <= 0.005
    out.append(f"{'ok' if good else 'bad'} reload speed-up at 12 GB/s: {got:.4f}, bandwidths predict"
               f" {want:.4f}")
print("\n".join(out))
EOF
)
echo "$verdict"
n=$(grep -c '^ok' <<<"$verdict")
[ "$n" -eq 7 ] && ok || ko "$((7 - n)) closed-form check(s) off"

# the platform file: store-bw on the store's disk, PCIe, NIC and switch port, and only there
"$dmlsim" platform "$tmp/nofault.xml" -o "$tmp/default.plat.xml" 2>"$tmp/p.err" ||
    ko "platform: exited $?: $(cat "$tmp/p.err")"
sed 's/nic="ib-ndr"/nic="ib-ndr" store-bw="2TBps"/' "$tmp/nofault.xml" >"$tmp/tectonic.xml"
"$dmlsim" platform "$tmp/tectonic.xml" -o "$tmp/tectonic.plat.xml" 2>"$tmp/p.err" ||
    ko "platform store-bw: exited $?: $(cat "$tmp/p.err")"
verdict=$(python3 - "$tmp/default.plat.xml" "$tmp/tectonic.plat.xml" <<'EOF'
import re, sys
def rates(path):
    text = open(path).read()
    r = {m[0]: float(m[1]) for m in re.findall(r'<link id="([^"]+)" bandwidth="([^"]+)Bps"', text)}
    d = re.search(r'<disk id="store" read_bw="([^"]+)Bps" write_bw="([^"]+)Bps"', text)
    r["disk.read"], r["disk.write"] = float(d[1]), float(d[2])
    return r
base, pfs = rates(sys.argv[1]), rates(sys.argv[2])
store = {"disk.read", "disk.write", "storage.cpu.pcie-gen5", "storage.nic0.ib-ndr",
         "storage.port.ib-ndr_UP", "storage.port.ib-ndr_DOWN"}
want = {"disk.read": 3e9, "disk.write": 3e9, "storage.cpu.pcie-gen5": 52.8e9,
        "storage.nic0.ib-ndr": 47e9, "storage.port.ib-ndr_UP": 50e9,
        "storage.port.ib-ndr_DOWN": 50e9}
bad = [k for k in store if base.get(k) != want[k]] + [k for k in store if pfs.get(k) != 2e12]
bad += [k for k in base if k not in store and pfs.get(k) != base[k]]
bad += [k for k in pfs if k not in base]
print(("ok" if not bad and store <= set(pfs) else "bad") + f" platform: {len(pfs)} rates; off: {bad}")
EOF
)
echo "$verdict"
[[ $verdict == ok* ]] && ok || ko "$verdict"
grep -q "store-bw: storage.cpu stands for a parallel file system" "$tmp/tectonic.plat.xml" && ok ||
    ko "platform store-bw: no header line"
finish store_bw
