#!/usr/bin/env bash
# harden_ring.sh - issue 28's regressions (ring): each reproducer, kept small, broke a promise of the
# README before its fix (a crash, a hang, a silent exit 0 or a wrong count).
#   tests/harden_ring.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: harden_ring.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

finish harden_ring
