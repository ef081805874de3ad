#!/usr/bin/env bash
# main.sh - the main job: set up and build (tools/setup.sh), then run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
build/dmlsim run scenarios/p2p.xml
