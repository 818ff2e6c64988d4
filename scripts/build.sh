#!/usr/bin/env bash
# Configures (Release, Ninja) and builds vtensor in ${VTENSOR_BUILD_DIR:-build}.
# usage: scripts/build.sh [TARGET...]   (default: every target, tests included)
# VTENSOR_JOBS overrides the number of parallel compile jobs (default: all cores).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
JOBS="${VTENSOR_JOBS:-$(nproc)}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD" -j "$JOBS" "$@"
