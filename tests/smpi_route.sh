#!/usr/bin/env bash
# smpi_route.sh - platforms written by `dmlsim platform` are usable by other SimGrid programs
# (issue 29): a plain SimGrid C program (tests/route_query.c, no dmlsim code) loads each one and
# asks a route between GPUs of two nodes before any simulation, and SMPI (smpirun) runs a
# trivial MPI program (tests/smpi_mpi.c) on it, which asks the same route during the run. Both
# latencies must equal the sum of the latencies of the route's links as the platform file itself
# defines them (each link_ctn's link, SPLITDUPLEX halves named LINK_UP / LINK_DOWN by SimGrid),
# added up here from the XML, and the route must cross the nodes' NICs. Star (pair by pair, and
# beyond FULL_ROUTED_MAX_ZONES a Dijkstra star, which SimGrid routes only after sealing: asked
# here after sealing), fat-tree and flat clusters. Exit 77 (skip) without smpicc / smpirun.
#   tests/smpi_route.sh DMLSIM ROUTE_QUERY
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/dmlsim}
query=${2:-build/tests/route_query}
for tool in smpicc smpirun python3; do
    command -v $tool >/dev/null || { echo "smpi_route: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
smpicc -o "$tmp/mpi" tests/smpi_mpi.c 2>"$tmp/cc.err" || { cat "$tmp/cc.err"; exit 1; }
fail=0
# link_sum PLATFORM LINK...: the sum of the named links' latencies from the file's <link>s.
link_sum() {
    python3 - "$@" <<'PY'
import re, sys, xml.etree.ElementTree as ET
def secs(v):
    m = re.fullmatch(r'([0-9.eE+-]+)(s|ms|us|ns)?', v)
    return float(m.group(1)) * {'s': 1, None: 1, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9}[m.group(2)]
lat = {}
root = ET.parse(sys.argv[1]).getroot()
for l in root.iter('link'):
    lat[l.get('id')] = secs(l.get('latency'))
# a <cluster>'s links, as SimGrid names them: ID_link_N (each host's private link, lat) and
# ID_backbone (bb_lat)
for c in root.iter('cluster'):
    first, last = map(int, c.get('radical').split('-'))
    for n in range(first, last + 1):
        lat['%s_link_%d' % (c.get('id'), n)] = secs(c.get('lat'))
    if c.get('bb_lat'): lat[c.get('id') + '_backbone'] = secs(c.get('bb_lat'))
total = 0.0
for name in sys.argv[2:]:
    base = name if name in lat else re.sub(r'_(UP|DOWN)$', '', name)
    if base not in lat: sys.exit('no link %s in the platform' % name)
    total += lat[base]
print('%.17g' % total)
PY
}
close() { # A B: A within 1e-9 of B (> 0)
    python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if b > 0 and abs(a - b) <= 1e-9 * b else 1)" "$1" "$2"
}
check() { # NAME CLUSTER-ATTRIBUTES SRC DST [sealed: ask route_query's route after sealing]
    local name=$1 attrs=$2 src=$3 dst=$4 sealed=${5:-} nic_re='\.nic[0-9]'
    [ "$name" = flat ] && nic_re='_link_[0-9]' # a <cluster>'s private links stand for the NICs
    cat >"$tmp/$name.xml" <<XML
<scenario name="$name" seed="1">
  <cluster $attrs/>
  <benchmark kind="allreduce" begin="1MiB" end="1MiB"/>
</scenario>
XML
    if ! "$bin" platform "$tmp/$name.xml" -o "$tmp/$name.p.xml"; then
        echo "FAIL: $name: dmlsim platform"; fail=1; return
    fi
    local q
    q=$(env ${sealed:+ROUTE_QUERY_SEALED=1} "$query" "$tmp/$name.p.xml" "$src" "$dst" \
        --log=root.thres:critical 2>"$tmp/$name.q.err")
    if [ $? -ne 0 ]; then
        echo "FAIL: $name: route_query $src -> $dst aborted:"; head -3 "$tmp/$name.q.err"; fail=1; return
    fi
    local links want got
    links=$(sed -n 's/^LINK //p' <<<"$q")
    got=$(sed -n 's/^LATENCY //p' <<<"$q")
    want=$(link_sum "$tmp/$name.p.xml" $links) || { fail=1; return; }
    if ! grep -q "$nic_re" <<<"$links"; then echo "FAIL: $name: route crosses no NIC: $links"; fail=1; fi
    if ! close "$got" "$want"; then echo "FAIL: $name: route latency $got, links sum to $want"; fail=1; fi
    printf '%s\n%s\n' "$src" "$dst" >"$tmp/hosts"
    local s
    s=$(timeout 60 smpirun -np 2 -platform "$tmp/$name.p.xml" -hostfile "$tmp/hosts" \
        --log=root.thres:critical "$tmp/mpi" 2>"$tmp/$name.smpi.err")
    local smpi_lat
    smpi_lat=$(sed -n 's/^LATENCY //p' <<<"$s")
    if [ -z "$smpi_lat" ] || ! close "$smpi_lat" "$want"; then
        echo "FAIL: $name: smpirun route latency '${smpi_lat}', links sum to $want"; head -5 "$tmp/$name.smpi.err"; fail=1
    else
        echo "ok: $name: $src -> $dst: $(wc -w <<<"$links") links, latency $got s (sum $want s), smpirun $smpi_lat s"
    fi
}
gpu='gpu="h100" intra="nvlink4" nic="ib-ndr"'
check star "nodes=\"2\" gpus-per-node=\"2\" $gpu nics-per-node=\"2\"" node0.gpu0 node1.gpu1
tree='topology="fat-tree" nodes-per-leaf="2" spines="2"'
check fattree "nodes=\"4\" gpus-per-node=\"2\" $gpu nics-per-node=\"2\" $tree" node0.gpu1 node3.gpu0
check flat "nodes=\"3\" gpus-per-node=\"1\" $gpu topology=\"flat\"" node0.gpu0 node2.gpu0
# 256 nodes and the store: 257 machines, a Dijkstra star (platform_gen.c, FULL_ROUTED_MAX_ZONES)
check dijkstra "nodes=\"256\" gpus-per-node=\"1\" $gpu" node0.gpu0 node255.gpu0 sealed
exit $fail
