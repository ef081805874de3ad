#!/usr/bin/env bash
# setup.sh - install what is missing (Debian 12, as root), configure and build into build/.
# As a non-root user it prints the exact apt-get line instead and exits 1.
# Used by tools/main.sh and tools/test.sh (--test: with the fuzzers' clang); run it alone to just
# build.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: compiler and build tools (g++ for the one C++ file, sim/engine/net_sendto.cpp), SimGrid 3.32, Check (unit tests), libxml2 (scenario
# parsing and validation), xmllint (independent DTD check in tests), gnuplot (plots), GSL
# (random distributions of the fault plans: exponential, Weibull, lognormal), OpenBLAS and zlib
# (training numerics: matrix products, gzipped IDX files), jemalloc (SimGrid's allocations, 1.5 times
# as fast as glibc's at scale), Fashion-MNIST (the real data), python3 (tools/clicks.py: the
# generated click data of the recommender's numerics; the tests' closed forms).
packages=(gcc g++ make cmake pkg-config libsimgrid-dev check libxml2-dev libxml2-utils gnuplot-nox
    libgsl-dev libopenblas-serial-dev zlib1g-dev libjemalloc2 dataset-fashion-mnist python3)
# tools/setup.sh --test: also clang and its runtimes, for the libFuzzer harnesses (tools/fuzz.sh)
[ "${1:-}" = --test ] && packages+=(clang libclang-rt-14-dev parallel python3-jsonschema)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "dmlsim: missing Debian packages; install them as root with:" >&2
        echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "dmlsim: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DDMLSIM_WERROR=ON >build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >>build.log 2>&1 || { cat build.log; exit 1; }
rm -f build.log
