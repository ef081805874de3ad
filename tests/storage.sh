#!/bin/bash
# storage.sh - <storage> stores (sim/core/storage.h, sim/engine/storeio.h) against closed forms
# written here, for the input pipeline's reads and a checkpoint's writes.
#
# Reads: ResNet-50, batch b = 8 per GPU on one-GPU H100 nodes (ib-ndr), MDS (a request per
# sample) of S-byte samples, decode 0, one loader worker: the reads are far slower than the
# ~6 ms step's compute and copy, so in the steady state a step lasts as long as its batch's
# read (the worker reads batch k + 1 while the GPU trains on k). A request costs overhead o,
# latency L, then S / C (the connection's rate C; the network and the store's disk are faster):
#   serial      connections 1:        b (o + L + S / C)
#   streams     connections k:        ceil(b / k) (L + S / C)   (k requests in flight)
#   rate-bound  get-rate R, 2 GPUs:   2 b / R   (the store admits one read a 1/R s, shared by
#               both readers; L = 0, no connection limit, 1 kB samples)
#   override    preset s3 (L = 10 ms from the preset) with connection-rate 50 MB/s and
#               connections 1: b (L + S / 50 MB/s)
# Writes: the hybrid job of store_bw.sh (one writer, node0.gpu0), a sync checkpoint of W bytes
# (the run's checkpoint_bytes) to a store of write rate B with no latency and no connection
# limit, in one request: the writer blocks for the snapshot to its node's CPU host over PCIe
# (a = 1 us, P = 52.8 GB/s, pcie-gen5) and then the store's write (its disk at B; the network's
# 47 GB/s is faster, and the flow runs at once):
#     blocked = a + W / P + W / B
# and in parts of size p written one at a time with latency L each (n = ceil(W / p) parts of
# W / n bytes): a + W / P + n L + W / B.
# Restores: the same job with node1 crashing at step 12 (store_bw.sh's restart), a store of
# read and write rate B2 = 2 GB/s (so the storage machine's network side is 2 GB/s too): both
# ranks' CPU hosts read the step-10 checkpoint, R = W bytes each, at once through the store
# (its disk and its side of the network shared by dp = 2 streams, the route's latency
# a' = 3.85 us as in store_bw.sh), then each sends it to its GPU over PCIe:
#     reload = a' + dp R / B2 + a + R / P
# from the event "restart 1 from step 10" to "checkpoint of step 10 reloaded".
# usage: storage.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: storage.sh PATH/TO/dmlsim}
. tests/lib.sh
command -v python3 >/dev/null || { echo "storage.sh: python3 is needed" >&2; exit 1; }

# read NAME GPUS STORAGE-ATTRIBUTES SAMPLE-SIZE: the pipeline's run into $tmp/NAME.csv
read_case() {
    local name=$1 gpus=$2 store=$3 size=$4
    cat >"$tmp/$name.xml" <<EOF2
<?xml version="1.0"?>
<scenario name="$name" seed="1">
  <cluster nodes="2" gpus-per-node="1" gpu="h100" nic="ib-ndr"/>
  <storage name="ds" $store/>
  <model preset="resnet50"/>
  <training strategy="allreduce" batch-per-gpu="8" steps="10" gpus="$gpus">
    <data samples="4096" sample-size="$size" decode="0s" format="mds" store="ds"
          loader-workers="1" prefetch="2" pin-memory="yes"/>
  </training>
</scenario>
EOF2
    "$dmlsim" run "$tmp/$name.xml" --csv "$tmp/$name.csv" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        ko "$name: exited $?: $(cat "$tmp/$name.err")"
}
read_case serial 1 'latency="10ms" request-overhead="2ms" connection-rate="100MBps" connections="1"' 1MB
read_case streams 1 'latency="10ms" connection-rate="100MBps" connections="4"' 1MB
read_case rate 2 'latency="0s" connection-rate="0Bps" connections="8" get-rate="100"' 1kB
read_case override 1 'preset="s3" connection-rate="50MBps" connections="1"' 1MB

cat >"$tmp/ck.xml" <<'EOF'
<?xml version="1.0"?>
<scenario name="store-ckpt" seed="1">
  <cluster nodes="3" gpus-per-node="1" gpu="h100" nic="ib-ndr"/>
  <storage name="ck" write-bw="1GBps" latency="0s" connection-rate="0Bps" part-size="0B"/>
  <model preset="gpt" layers="8" hidden="1024" heads="16" seq="256" vocab="8"/>
  <training strategy="hybrid" algo="ring" batch-per-gpu="1" steps="10" dtype="bf16"
            optimizer="adam" timeout="2s" gpus="2">
    <parallel tp="1" pp="1" dp="2" microbatches="1"/>
  </training>
  <checkpoint every="5 steps" mode="sync" target="remote" store="ck"/>
</scenario>
EOF
sed 's/part-size="0B"/part-size="16MB"/; s/latency="0s"/latency="5ms"/' "$tmp/ck.xml" >"$tmp/ckparts.xml"
sed 's/write-bw="1GBps"/read-bw="2GBps" write-bw="2GBps"/; s/steps="10"/steps="20"/;
     s#</scenario>#<recovery restart-time="2s"/><faults><crash host="node1" step="12"/></faults></scenario>#' \
    "$tmp/ck.xml" >"$tmp/restore.xml"
for n in ck ckparts restore; do
    "$dmlsim" run "$tmp/$n.xml" --csv "$tmp/$n.csv" --json "$tmp/$n.json" >/dev/null \
        2>"$tmp/$n.err" || ko "$n: exited $?: $(cat "$tmp/$n.err")"
done

verdict=$(python3 - "$tmp" <<'EOF'
import csv, json, math, sys
tmp = sys.argv[1]
def steps(name):
    return {int(r["step"]): float(r["time_s"]) for r in csv.DictReader(l for l in open(f"{tmp}/{name}.csv") if not l.startswith("#"))
            if r["kind"] == "step"}
b, out = 8, []
def check(label, got, want, rel=1e-6):
    good = abs(got - want) <= 1e-9 + rel * want
    out.append(f"{'ok' if good else 'bad'} {label}: {got:.9f} s, closed form {want:.9f} s")
S = 1e6
closed = {
    "serial": b * (2e-3 + 10e-3 + S / 100e6),
    "streams": math.ceil(b / 4) * (10e-3 + S / 100e6),
    "rate": 2 * b / 100,
    "override": b * (10e-3 + S / 50e6),
}
for name, want in closed.items():
    r = steps(name)
    for k in (6, 8, 10):
        check(f"{name} step {k}", r[k], want)
a, P, B = 1e-6, 52.8e9, 1e9
for name, L, part in (("ck", 0, 0), ("ckparts", 5e-3, 16e6)):
    W = json.load(open(f"{tmp}/{name}.json"))["summary"]["checkpoint_bytes"]
    r = steps(name)
    n = math.ceil(W / part) if part else 1
    check(f"{name} checkpoint of {W:.0f} B in {n} part(s)", r[5] - r[4], a + W / P + n * L + W / B)
ev = {r["what"].split(":")[0]: float(r["t_s"]) for r in csv.DictReader(l for l in open(f"{tmp}/restore.csv") if not l.startswith("#"))
      if r["kind"] == "recovery"}
W = json.load(open(f"{tmp}/restore.json"))["summary"]["checkpoint_bytes"]
t0, t1 = ev.get("restart 1 from step 10", 0), ev.get("checkpoint of step 10 reloaded", 0)
check(f"restore of {W:.0f} B by 2 ranks", t1 - t0, 3.85e-6 + 2 * W / 2e9 + a + W / P)
print("\n".join(out))
EOF
)
echo "$verdict"
n=$(grep -c '^ok' <<<"$verdict")
[ "$n" -eq 15 ] && ok || ko "$((15 - n)) closed-form check(s) off"

# the catalog lists every preset with a source; an unknown table is refused
"$dmlsim" catalog stores >"$tmp/cat.out" || ko "catalog stores: exited $?"
for p in s3 gcs azure-blob fsx-lustre tectonic nvme-gen4 nvme-gen5 server-ssd; do
    grep -q "^ *$p " "$tmp/cat.out" && grep -q "^# $p " "$tmp/cat.out" && ok ||
        ko "catalog stores: no row or no source for $p"
done
"$dmlsim" catalog nope >/dev/null 2>&1 && ko "catalog nope: accepted" || ok

# the platform: a remote store is a disk of its own on the storage host at its rates; a local
# store sets every node's NVMe; without stores nothing changes
"$dmlsim" platform "$tmp/ck.xml" -o "$tmp/ck.plat.xml" >/dev/null 2>&1 || ko "platform ck: exited $?"
grep -q '<disk id="store.ck" read_bw="3000000000Bps" write_bw="1000000000Bps"/>' "$tmp/ck.plat.xml" &&
    ok || ko "platform: no store.ck disk at 3 GB/s read, 1 GB/s write"
sed 's/<storage name="ck" [^>]*>/<storage name="ck" preset="nvme-gen5"\/>/; s/target="remote"/target="local-nvme"/' \
    "$tmp/ck.xml" >"$tmp/local.xml"
"$dmlsim" platform "$tmp/local.xml" -o "$tmp/local.plat.xml" >/dev/null 2>&1 || ko "platform local: exited $?"
[ "$(grep -c 'disk id="nvme" read_bw="13000000000Bps" write_bw="6600000000Bps"' "$tmp/local.plat.xml")" -eq 3 ] &&
    ok || ko "platform: the nodes' NVMe are not the nvme-gen5 preset's"
finish storage
