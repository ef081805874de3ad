#!/usr/bin/env bash
# harden_ps.sh - issue 28's regressions (ps): each reproducer, kept small, broke a promise of the
# README before its fix (a crash, a hang, a silent exit 0 or a wrong count).
#   tests/harden_ps.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: harden_ps.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

finish harden_ps
