#!/usr/bin/env bash
# harden_input.sh - issue 28's regressions (input): each reproducer, kept small, broke a promise of the
# README before its fix (a crash, a hang, a silent exit 0 or a wrong count).
#   tests/harden_input.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: harden_input.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

finish harden_input
