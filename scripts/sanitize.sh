#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run: configures a separate build directory with
# -DVTENSOR_SANITIZE=address,undefined (every library and test built with both, UBSan
# non-recovering), builds the test executables below and runs each one.
# Any sanitizer report fails the executable it occurs in, and the script.
#
# What runs: the unit tests of every module (base, layout, tensor, format, graph, kernels,
# forms, exec, ops, passes, runtime, export, api, tools: vt_<module>_tests), then the CLI tests
# (vt_cli_tests: every subcommand, bad inputs, malformed models and payloads), which run the
# sanitized `vtensor` binary of the same build: about 2.5 minutes under the sanitizers.
# VTENSOR_SANITIZE_MODULES="..." narrows the modules (e.g. "base layout"); VTENSOR_SANITIZE_CLI
# =0 leaves the CLI tests out. A cold sanitized build of all of it is about 560 compile steps,
# about 90 minutes on 2 cores (f32_gemm_avx512.cc alone takes minutes under ASan at -O2): CI
# relies on the compiler cache (ccache) of the machine it runs on, as for clang-tidy.
#
# usage: scripts/sanitize.sh [GTEST_ARGS...]    e.g. scripts/sanitize.sh --gtest_filter='Layout*'
# VTENSOR_SANITIZE_BUILD_DIR: build directory (default build-sanitize)
# VTENSOR_SANITIZE_CXX: compiler (default g++, the project's compiler; clang++-14 works too)
# VTENSOR_JOBS: parallel compile jobs (default: all cores)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
JOBS="${VTENSOR_JOBS:-$(nproc)}"
CXX_BIN="${VTENSOR_SANITIZE_CXX:-g++}"
case "$CXX_BIN" in
  clang++*) CC_BIN="${CXX_BIN/clang++/clang}" ;;
  *) CC_BIN="${CXX_BIN/g++/gcc}" ;;
esac
read -r -a MODULES <<< "${VTENSOR_SANITIZE_MODULES:-base layout tensor format graph kernels forms exec ops passes runtime export api tools}"

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_C_COMPILER="$CC_BIN" \
  -DVTENSOR_SANITIZE=address,undefined >/dev/null
TARGETS=()
for m in "${MODULES[@]}"; do TARGETS+=("vt_${m}_tests"); done
# vt_cli_tests runs the vtensor binary of its build directory (VTENSOR_BIN), here the sanitized one.
[ "${VTENSOR_SANITIZE_CLI:-1}" = 0 ] || TARGETS+=(vt_cli_tests)
ninja -C "$BUILD" -j "$JOBS" "${TARGETS[@]}"

# allocator_may_return_null: a model asking for more memory than exists must reach the
# runtime's std::bad_alloc handling as it does without ASan, not an ASan abort.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
for t in "${TARGETS[@]}"; do
  echo "sanitize: $t"
  (cd "$BUILD" && "./$t" --gtest_brief=1 "$@") || failed+=("$t")
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "sanitize: failed: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: ${#TARGETS[@]} test executables clean: ${TARGETS[*]}"
