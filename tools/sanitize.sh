#!/usr/bin/env bash
# sanitize.sh - the sanitizer job of CI (tools/test.sh runs it after the normal suite): builds the
# whole project with AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer into
# build-asan/ (-DDMLSIM_SANITIZE=ON; any undefined behaviour aborts, as does the first ASan
# error), then runs the whole ctest suite there. A test fails on any sanitizer report; the
# reports are written to build-asan/sanitizer/ (not stderr, which several tests compare) and
# printed at the end. Leaks inside SimGrid itself are suppressed by tests/lsan.supp only.
#   tools/sanitize.sh [CTEST ARGS...]     e.g. tools/sanitize.sh -R check_ps
# Environment: DMLSIM_SANITIZE_JOBS (parallel builds and tests, default: the CPU count).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${DMLSIM_SANITIZE_JOBS:-$(nproc)}
start=$(date +%s)

# No CUDA here: the GPU kernels are not sanitized (nvcc) and the GPU test skips without a device.
cmake -S . -B build-asan -DDMLSIM_SANITIZE=ON -DDMLSIM_WERROR=ON -DDMLSIM_WITH_CUDA=OFF \
    -DDMLSIM_TIMEOUT_SCALE=4 >build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
cmake --build build-asan -j"$jobs" >>build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
rm -f build-asan.log
built=$(date +%s)

logs=$root/build-asan/sanitizer
rm -rf "$logs"
mkdir -p "$logs"
# halt_on_error / abort_on_error=0: the first report ends the process with exit 1 (a failed
# test); detect_leaks: LeakSanitizer at exit; log_path: reports to $logs/asan.PID, not stderr.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=1:strict_string_checks=1:detect_stack_use_after_return=0:check_initialization_order=1:log_path=$logs/asan"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
# Check's per-test timeouts (tcase_set_timeout) are for the plain build: ASan runs slower
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}

rc=0
ctest --test-dir build-asan --output-on-failure -j"$jobs" "$@" || rc=$?

# Every report fails the job, even one a test's own exit status did not show. ASan prints one
# warning per process about SimGrid's context switches (__asan_handle_no_return; harmless):
# files with only that are dropped.
reports=0
for f in "$logs"/*; do
    [ -e "$f" ] || continue
    if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error|SUMMARY: ' "$f"; then
        reports=$((reports + 1))
        echo "==== sanitizer report $f"
        cat "$f"
    else
        rm -f "$f"
    fi
done
end=$(date +%s)
echo "sanitize: build $((built - start)) s, tests $((end - built)) s, $reports report(s)"
[ "$reports" -eq 0 ] || rc=1
exit $rc
