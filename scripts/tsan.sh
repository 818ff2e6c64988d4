#!/usr/bin/env bash
# ThreadSanitizer check of concurrent Session::Run (docs/design.md, "Concurrent runs"): builds
# the concurrency test (tests/concurrency) in its own build directory with
# -DVTENSOR_SANITIZE=thread and runs it. Intra-op threads stay at 1: libgomp is not
# instrumented, so races between OpenMP team threads would be reported falsely; the threads
# under test are the test's own callers. Under TSan each model gets 8 threads x
# ${VTENSOR_TSAN_RUNS:-1} run, all 8 at once (the regular test does 8 x 200; at -O0 under TSan
# one PP-OCRv4 det run costs about 17 s of CPU, so CI keeps to one run per thread). Models come
# from the model cache (scripts/fetch_models.sh); a model not fetched is skipped. Any TSan report
# fails the run.
#
# usage: scripts/tsan.sh [GTEST_ARGS...]   e.g. scripts/tsan.sh --gtest_filter=*Silero*
# VTENSOR_TSAN_BUILD_DIR (default build-tsan), VTENSOR_JOBS (default: all cores).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_TSAN_BUILD_DIR:-$ROOT/build-tsan}"
JOBS="${VTENSOR_JOBS:-$(nproc)}"

mkdir -p "$BUILD"
# -O0: the test is short, and compiling every module with TSan is the long part (-O0 compiles
# faster than -O1). -g (VTENSOR_SANITIZE adds it) names the lines in reports.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -g" \
  -DVTENSOR_SANITIZE=thread >"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log"; exit 2; }
ninja -C "$BUILD" -j "$JOBS" vt_concurrency_tests

export OMP_NUM_THREADS=1
export VTENSOR_CONCURRENCY_THREADS=8
export VTENSOR_CONCURRENCY_RUNS="${VTENSOR_TSAN_RUNS:-1}"
export VTENSOR_CONCURRENCY_INTRA_THREADS=1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
"$BUILD/vt_concurrency_tests" "$@"
echo "tsan: no data race reported (8 threads x $VTENSOR_CONCURRENCY_RUNS runs per model)"
