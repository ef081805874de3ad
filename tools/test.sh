#!/usr/bin/env bash
# test.sh - set up and build (tools/setup.sh --test), then run the whole test suite with ctest;
# then the sanitizer job (tools/sanitize.sh: the whole suite again under ASan, LSan and UBSan in
# build-asan/) and the fuzz job (tools/fuzz.sh: both libFuzzer harnesses, 20,000 inputs each).
# DMLSIM_SKIP_SANITIZE=1 skips those two jobs (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --test
ctest --test-dir build --output-on-failure
if [ -z "${DMLSIM_SKIP_SANITIZE:-}" ]; then
    tools/sanitize.sh
    tools/fuzz.sh 20000
fi
