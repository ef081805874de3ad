#!/bin/bash
# recsys.sh - the three recommender layouts users compare, in one `dmlsim sweep`, over 8, 16 and
# 32 H100 (1, 2 and 4 DGX H100 nodes, 8 parameter-server machines): MLPerf's DLRM-DCNv2 at 6,912
# samples a GPU (scenarios/recsys-layouts.xml):
#   ps      the sparse parameter server (tables and dense part on the shards);
#   persia  Persia's hybrid (tables on the shards, the dense part all-reduced among the workers);
#   torchrec the DLRM / TorchRec layout (tables model-parallel with all-to-alls, dense on DDP).
# Writes OUT/recsys.txt and OUT/recsys.csv (the sweep's table, as text and as CSV with a header
# row), its rows a layout (OUT/ps.csv, persia.csv, torchrec.csv: the CSV's header and that
# layout's rows) and OUT/recsys.png (plots/recsys.gp).
# usage: tools/recsys.sh [BUILD/dmlsim [OUT]]   (from the repository root; about 1 CPU minute)
set -eu
dmlsim=${1:-build/dmlsim}
out=${2:-out/recsys}
mkdir -p "$out"
"$dmlsim" sweep scenarios/recsys-layouts.xml -j "$(nproc)" --set training.gpus=8,16,32 \
    --zip training.strategy=ps,ps,allreduce --zip ps.dense=shards,allreduce,shards \
    --zip training.embeddings=replicated,replicated,sharded -o "$out/recsys.txt" \
    --csv "$out/recsys.csv"
# one CSV a layout (the header, and the sweep's rows with those axes' values: fields 2 to 4, which
# hold no comma) for the plot's lines
pick() {
    awk -F, -v s="$1" -v d="$2" -v e="$3" 'NR == 1 || ($2 == s && $3 == d && $4 == e)' \
        "$out/recsys.csv"
}
pick ps shards replicated >"$out/ps.csv"
pick ps allreduce replicated >"$out/persia.csv"
pick allreduce shards sharded >"$out/torchrec.csv"
gnuplot -e "dir='$out'; out='$out/recsys.png'" plots/recsys.gp
echo "recsys.sh: wrote $out/recsys.txt and $out/recsys.png"
