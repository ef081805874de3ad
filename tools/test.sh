#!/usr/bin/env bash
# test.sh - set up and build (tools/setup.sh), then run the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
ctest --test-dir build --output-on-failure
