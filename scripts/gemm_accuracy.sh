#!/usr/bin/env bash
# Float32 accuracy of MatMul against float64 sums, vtensor next to ONNX Runtime 1.30 (npm
# onnxruntime-node) on the same inputs: K = 256, 4096, 16384, random and all-positive inputs
# (bench/gemm_accuracy_main.cc describes the cases and the table). An accuracy benchmark: nothing
# is timed. Without node/npm the ORT column is left empty.
#
# usage: scripts/gemm_accuracy.sh [--build DIR] [--baseline VTENSOR]
#   --build DIR          build directory holding `vtensor-gemm-accuracy` (default:
#                        $VTENSOR_BUILD_DIR or ./build)
#   --baseline VTENSOR   another `vtensor` binary (an older build) whose outputs get a column
# onnxruntime-node is installed once into ${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
ORT_VERSION=1.30.0
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
BASELINE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --baseline) BASELINE="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "gemm_accuracy: unknown argument $1" >&2; exit 2 ;;
  esac
done
TOOL="$BUILD/vtensor-gemm-accuracy"
[[ -x "$TOOL" ]] || { echo "gemm_accuracy: $TOOL not found; build it (scripts/build.sh vtensor-gemm-accuracy)" >&2; exit 2; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/vtensor-gemm-accuracy.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
"$TOOL" --write "$TMP"

if command -v node >/dev/null && command -v npm >/dev/null; then
  ORT_DIR="${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}/onnxruntime-node-$ORT_VERSION"
  ORT_MODULE="$ORT_DIR/node_modules/onnxruntime-node"
  if [[ ! -f "$ORT_MODULE/package.json" ]]; then
    echo "gemm_accuracy: installing onnxruntime-node@$ORT_VERSION into $ORT_DIR" >&2
    mkdir -p "$ORT_DIR"
    [[ -f "$ORT_DIR/package.json" ]] || echo '{"name":"vtensor-ort-bench","private":true}' >"$ORT_DIR/package.json"
    # ONNXRUNTIME_NODE_INSTALL=skip: the CPU binaries ship in the package.
    (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
      "onnxruntime-node@$ORT_VERSION" >&2)
  fi
  node "$ROOT/bench/ort_matmul.js" "$ORT_MODULE" "$TMP"/*/
else
  echo "gemm_accuracy: node/npm not found; no ONNX Runtime column" >&2
fi
if [[ -n "$BASELINE" ]]; then
  for case_dir in "$TMP"/*/; do
    "$BASELINE" run "$case_dir/model.onnx" --data "$case_dir" --save-outputs "$case_dir/baseline" >/dev/null
  done
fi
"$TOOL" --report "$TMP"
