#!/bin/bash
# A model with compiled tensors runs in stock ONNX Runtime (npm onnxruntime-node
# 1.30.0, CPU binaries bundled in the package) with outputs identical to the model without them.
# usage: tests/format/ort_stock_compat.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/vtensor-make-compiled-model" "$out"
"$build/vtensor" check "$out/compiled.onnx" --decode
if [ ! -d "$here/ort/node_modules/onnxruntime-node" ]; then
  # Only the bundled CPU binaries are needed: skip the optional GPU download.
  (cd "$here/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund)
fi
node "$here/ort/compare.mjs" "$out"
