#!/usr/bin/env bash
# One real-model test: runs a cached model on its checked-in inputs and compares with the
# ONNX Runtime reference outputs at the real-model tolerance (atol 2e-3, rtol 1e-3).
# usage: run_realmodel.sh VTENSOR_BIN CASE DATA_DIR
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 VTENSOR_BIN CASE DATA_DIR" >&2; exit 2; }
vtensor="$1" case="$2" data="$3"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
model="$("$root/scripts/fetch_models.sh" --print-cache)/$case/model.onnx"
if [[ ! -f "$model" ]]; then
  echo "model not in the cache: $model (the realmodels_fetch test or scripts/fetch_models.sh fetches it)" >&2
  exit 2
fi
echo "+ vtensor run $model --data $data --atol 2e-3 --rtol 1e-3"
exec "$vtensor" run "$model" --data "$data" --atol 2e-3 --rtol 1e-3
