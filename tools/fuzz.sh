#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan into
# build-fuzz/, then runs each for a fixed count of inputs from the seed corpus tests/fuzz/corpus
# (every shipped and bad scenario, and tiny-*.xml: small fault plans fuzz_sim simulates; new
# inputs go to a scratch copy, not the repository) with a dictionary made from the scenario DTD.
# fuzz_scenario loads, fuzz_plan builds the platform and the fault plan, fuzz_sim also simulates
# every tiny accepted input in a child process (at most 8 GPUs and 8 steps; 5 s each), so it
# runs a quarter of the count. Any crash (of a child too), sanitizer report, leak, timeout (10 s
# per input) or out-of-memory (2 GiB) fails it; the finding is written to build-fuzz/findings/.
#   tools/fuzz.sh [RUNS]   (default 20000 per harness; fuzz_sim RUNS / 4)
# Needs clang and its runtimes (Debian: clang, libclang-rt-14-dev; tools/test.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DDMLSIM_FUZZ=ON -DDMLSIM_WITH_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
cmake --build build-fuzz -j"$(nproc)" --target fuzz_scenario fuzz_plan fuzz_sim \
    >>build-fuzz.log 2>&1 ||
    { cat build-fuzz.log; exit 1; }
rm -f build-fuzz.log

# The dictionary: every element as "<name", every attribute as name=", every enumerated value.
dict=build-fuzz/scenario.dict
dtd=scenarios/scenario.dtd
{
    grep -o '<!ELEMENT [a-z-]*' "$dtd" | awk '{printf "\"<%s\"\n", $2}'
    grep -E '^\s+[a-z][a-z0-9-]*\s+(CDATA|\()' "$dtd" | awk '{printf "\"%s=\\\"\"\n", $1}'
    grep -oE '\([a-z0-9 |._-]+\)' "$dtd" | tr -d '() ' | tr '|' '\n' | awk 'NF {printf "\"%s\"\n", $1}'
} | sort -u >"$dict"

mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for h in fuzz_scenario fuzz_plan fuzz_sim; do
    n=$runs
    [ $h = fuzz_sim ] && n=$(( runs / 4 > 0 ? runs / 4 : 1 )) # a simulation per tiny input
    work=$(mktemp -d)
    cp tests/fuzz/corpus/* "$work/"
    log=build-fuzz/$h.log
    if ! build-fuzz/tests/fuzz/$h -runs="$n" -dict="$dict" -max_len=8192 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix=build-fuzz/findings/ "$work" >"$log" 2>&1; then
        tail -n 40 "$log"
        rm -rf "$work"
        echo "fuzz: $h found a problem (input in build-fuzz/findings/)" >&2
        exit 1
    fi
    rm -rf "$work"
    echo "fuzz: $h: $(grep -E '^Done [0-9]+ runs' "$log")$(grep -E '^fuzz_sim: [0-9]+ of' "$log" |
        sed 's/^fuzz_sim:/;/')"
done
