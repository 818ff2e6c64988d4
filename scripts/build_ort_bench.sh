#!/usr/bin/env bash
# Builds vtensor-ort-bench (bench/ort/: ONNX Runtime timed through its C API) into BUILD and
# prints its path; with --program generate, vtensor-ort-generate (bench/ort/ort_generate_main.cc:
# the greedy decoder loop of `vtensor generate` in ONNX Runtime) instead. The normal build never needs ONNX Runtime; this script fetches, once, into
# ${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}:
#   onnxruntime-node-1.30.0/   npm onnxruntime-node 1.30.0: its bundled libonnxruntime.so.1 is the
#                              library linked (the same binary the Node binding loads)
#   c-api-29/include/          the C API headers (ORT_API_VERSION 29) from the npm package
#                              com.github.asus4.onnxruntime@0.4.9; only the headers are kept
# The program is rebuilt when a bench/ort source is newer than it.
#
# usage: scripts/build_ort_bench.sh [--build DIR] [--program bench|generate]
#        (BUILD default: $VTENSOR_BUILD_DIR or ./build)
# Exit 77 when node or npm is missing (ctest: skipped), 2 on any other failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# CI may run without HOME; fall back to the account's home directory.
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
ORT_VERSION=1.30.0
HEADERS_PACKAGE=com.github.asus4.onnxruntime@0.4.9
HEADERS_IN_PACKAGE='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
PROGRAM=bench
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --program) PROGRAM="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "build_ort_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
die() { echo "build_ort_bench: $*" >&2; exit 2; }
[[ "$PROGRAM" == bench || "$PROGRAM" == generate ]] || die "--program must be bench or generate"
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "build_ort_bench: '$tool' not found; skipped" >&2; exit 77; }
done
CXX="${CXX:-g++}"
command -v "$CXX" >/dev/null || die "C++ compiler '$CXX' not found"

CACHE="${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}"
ORT_DIR="$CACHE/onnxruntime-node-$ORT_VERSION"
ORT_MODULE="$ORT_DIR/node_modules/onnxruntime-node"
LIB_DIR="$ORT_MODULE/bin/napi-v6/linux/x64"
INCLUDE="$CACHE/c-api-29/include"

# --- libonnxruntime.so.1 (onnxruntime-node) ----------------------------------------------------
if [[ ! -f "$ORT_MODULE/package.json" ]]; then
  echo "build_ort_bench: installing onnxruntime-node@$ORT_VERSION into $ORT_DIR" >&2
  mkdir -p "$ORT_DIR"
  [[ -f "$ORT_DIR/package.json" ]] || echo '{"name":"vtensor-ort-bench","private":true}' >"$ORT_DIR/package.json"
  # ONNXRUNTIME_NODE_INSTALL=skip: the CPU binaries ship in the package; the install script would
  # only download GPU providers.
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
    "onnxruntime-node@$ORT_VERSION" >&2) || die "npm install onnxruntime-node@$ORT_VERSION failed"
fi
got_version="$(node -p "require('$ORT_MODULE/package.json').version")"
[[ "$got_version" == "$ORT_VERSION" ]] || die "found onnxruntime-node $got_version in $ORT_DIR, want $ORT_VERSION"
[[ -f "$LIB_DIR/libonnxruntime.so.1" ]] || die "$LIB_DIR/libonnxruntime.so.1 missing (not linux x64?)"

# --- C API headers -----------------------------------------------------------------------------
if [[ ! -f "$INCLUDE/onnxruntime_c_api.h" ]]; then
  echo "build_ort_bench: fetching the C API headers from $HEADERS_PACKAGE (npm pack, ~150 MB)" >&2
  mkdir -p "$CACHE"
  tmp="$(mktemp -d "$CACHE/headers.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --no-fund --no-audit "$HEADERS_PACKAGE" >name) ||
    die "npm pack $HEADERS_PACKAGE failed"
  tar -xzf "$tmp/$(tail -n 1 "$tmp/name")" -C "$tmp" --wildcards "$HEADERS_IN_PACKAGE/*.h" ||
    die "no headers under $HEADERS_IN_PACKAGE in $HEADERS_PACKAGE"
  grep -q '#define ORT_API_VERSION 29' "$tmp/$HEADERS_IN_PACKAGE/onnxruntime_c_api.h" ||
    die "$HEADERS_PACKAGE: onnxruntime_c_api.h is not API version 29"
  mkdir -p "$tmp/include"
  cp "$tmp/$HEADERS_IN_PACKAGE"/*.h "$tmp/include/"
  mkdir -p "$(dirname "$INCLUDE")"
  rm -rf "$INCLUDE"
  mv "$tmp/include" "$INCLUDE"  # atomic within one file system
fi

# --- vtensor-ort-bench / vtensor-ort-generate --------------------------------------------------
# Each program is its *_main.cc with every bench/ort source that is not a main.
mkdir -p "$BUILD"
BIN="$BUILD/vtensor-ort-$PROGRAM"
SRC=("$ROOT/bench/ort/ort_${PROGRAM}_main.cc")
for f in "$ROOT"/bench/ort/*.cc; do
  [[ "$f" == *_main.cc ]] || SRC+=("$f")
done
stale=0
[[ -x "$BIN" ]] || stale=1
for f in "${SRC[@]}" "$ROOT"/bench/ort/*.h "${BASH_SOURCE[0]}"; do
  [[ $stale -eq 1 || "$f" -nt "$BIN" ]] && stale=1
done
if [[ $stale -eq 1 ]]; then
  echo "build_ort_bench: compiling $BIN" >&2
  # -O2 like the Release build; the ORT library itself is the prebuilt one. The rpath pins the
  # exact library the script checked.
  "$CXX" -std=c++20 -O2 -Wall -Wextra -I"$INCLUDE" "${SRC[@]}" -o "$BIN.tmp" \
    "$LIB_DIR/libonnxruntime.so.1" -Wl,-rpath,"$LIB_DIR" || die "compile failed"
  mv "$BIN.tmp" "$BIN"
fi
echo "$BIN"
