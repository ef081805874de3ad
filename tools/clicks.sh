#!/bin/bash
# clicks.sh - a recommender trained for real through the simulated parameter server: click data
# from a known model (tools/clicks.py: 1,000 users and 1,000 items with Zipf 1.1 IDs, a user's and
# an item's own effects and a factor interaction; the Bayes classifier's accuracy written beside
# it), an MLP whose first layer over the one-hot user and item is the sum of their embeddings
# (hidden 32, ReLU, two classes), plain SGD, 8 H100 workers and 2 shards: sync, and async at
# staleness 0, 4 and 32. Prints each run's final test accuracy and loss, its simulated time, and
# the Bayes accuracy no model can beat. About 40 CPU s.
# usage: tools/clicks.sh [BUILD/dmlsim [OUT]]   (from the repository root)
set -eu
dmlsim=${1:-build/dmlsim}
out=${2:-out/clicks}
mkdir -p "$out"
python3 tools/clicks.py "$out/data" --seed 1
cat >"$out/clicks.xml" <<XML
<?xml version="1.0"?>
<scenario name="clicks" seed="1">
  <cluster nodes="8" gpus-per-node="1" gpu="h100" nic="ib-hdr" ps-nodes="2"/>
  <training strategy="ps" batch-per-gpu="32" steps="800" optimizer="sgd">
    <ps shards="2" placement="dedicated" mode="sync"/>
    <numerics dataset="idx" dir="data" hidden="32" lr="0.3" lr-scaling="linear"
              eval-every="100" test-examples="10000"/>
  </training>
</scenario>
XML
printf '%-10s %10s %10s %14s\n' run accuracy loss "time (s)"
for v in sync async-0 async-4 async-32; do
    set -- 
    [ "$v" != sync ] && set -- --set ps.mode=async --set ps.staleness="${v#async-}"
    "$dmlsim" run "$out/clicks.xml" "$@" >"$out/$v.txt"
    awk -v v="$v" '/^#   accuracy/ { a = $3; l = $9 } /^#   run time/ { t = $4 }
                   END { printf "%-10s %10s %10s %14s\n", v, a, l, t }' "$out/$v.txt"
done
echo "Bayes classifier's expected accuracy: $(cat "$out/data/bayes.txt")"
