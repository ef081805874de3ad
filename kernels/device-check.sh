#!/usr/bin/env bash
# device-check.sh - the whole GPU calibration in one call, for a short loan of a GPU machine:
# builds dmlsim-calibrate with nvcc alone (no CMake, no SimGrid needed), measures every local GPU,
# and, where a dmlsim binary runs on that machine, summarises and validates the profile. All
# output goes to one folder (default out/device-check). Under 5 minutes on one H100/H200.
# The GEMMs measured are a size grid and the model presets' layer shapes: SHAPES_FILE, or what
# `DMLSIM shapes` prints where dmlsim runs. Where python3 has PyTorch, kernels/torch-bench.py also
# measures single-GPU training throughput of the workloads dmlsim's compute model is compared with.
#   kernels/device-check.sh [OUT_DIR] [DMLSIM_BINARY] [SHAPES_FILE]
set -u
cd "$(dirname "$0")/.."
out=${1:-out/device-check}
dmlsim=${2:-build/dmlsim}
shapes=${3:-}
mkdir -p "$out"
if [ -z "$shapes" ] && "$dmlsim" --version >/dev/null 2>&1; then
    shapes=$out/shapes.txt
    "$dmlsim" shapes >"$shapes"
fi
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda_root=$(dirname "$(dirname "$nvcc")")
{
    date -u
    nvidia-smi || true
    nvidia-smi topo -m || true
    "$nvcc" --version
} >"$out/machine.txt" 2>&1

nccl_flags=(-lnccl)
if ! ls "$cuda_root"/lib*/libnccl.so* /usr/lib/x86_64-linux-gnu/libnccl.so* >/dev/null 2>&1; then
    nccl_flags=(-DDMLSIM_NO_NCCL)
fi
start=$(date +%s)
if ! "$nvcc" -O2 -arch=native -o "$out/dmlsim-calibrate" kernels/calibrate.cu \
    -L"$cuda_root/lib" -L"$cuda_root/lib64" -lcublas "${nccl_flags[@]}" >"$out/build.log" 2>&1; then
    echo "device-check: build failed (see $out/build.log)"
    cat "$out/build.log"
    exit 1
fi
export LD_LIBRARY_PATH="$cuda_root/lib:$cuda_root/lib64:${LD_LIBRARY_PATH:-}"
"$out/dmlsim-calibrate" -b 1M -e 512M -f 4 -n 20 -w 5 -g 8192 ${shapes:+-s "$shapes"} \
    -o "$out/calibration.txt" \
    | tee "$out/calibrate.txt"
rc=${PIPESTATUS[0]}
echo "device-check: dmlsim-calibrate exit $rc after $(( $(date +%s) - start )) s" | tee -a "$out/calibrate.txt"
[ "$rc" -eq 0 ] || exit "$rc"
if python3 -c 'import torch' >/dev/null 2>&1; then
    python3 kernels/torch-bench.py -o "$out/frameworks.txt" 2>"$out/frameworks.log"
    echo "device-check: torch-bench exit $? after $(( $(date +%s) - start )) s"
fi
if "$dmlsim" --version >/dev/null 2>&1; then
    "$dmlsim" calib "$out/calibration.txt" >"$out/calib-summary.txt" 2>&1
    "$dmlsim" validate "$out/calibration.txt" >"$out/validate.txt" 2>&1
    cat "$out/calib-summary.txt" "$out/validate.txt"
else
    echo "device-check: no runnable dmlsim here; run: dmlsim validate $out/calibration.txt" \
        | tee "$out/validate.txt"
fi
echo "device-check: done in $(( $(date +%s) - start )) s; results in $out"
