#!/usr/bin/env bash
# gpu-test.sh - the GPU test: measure this machine with small sizes, then check that the result is
# a calibration file dmlsim reads and that every measured operation validates (the simulation
# runs and prints its error). Exit 77 (skipped) without a CUDA device.
#   gpu-test.sh DMLSIM_CALIBRATE DMLSIM OUT_FILE
set -u
calibrate=$1 dmlsim=$2 out=$3
"$calibrate" -b 1M -e 16M -f 4 -n 3 -w 1 -g 1024 -o "$out"
rc=$?
[ $rc -eq 0 ] || exit $rc   # 77: no device, skipped
"$dmlsim" calib "$out" || exit 1
"$dmlsim" validate "$out" | tee "$out.validate" || exit 1
grep -q 'geometric-mean error' "$out.validate" || { echo "validate printed no error figures"; exit 1; }
