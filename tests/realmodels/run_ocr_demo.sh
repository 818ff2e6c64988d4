#!/usr/bin/env bash
# The OCR demo on its checked-in line image must read "Hello World 2024".
# usage: run_ocr_demo.sh VTENSOR_OCR_BIN
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 VTENSOR_OCR_BIN" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
model="$("$root/scripts/fetch_models.sh" --print-cache)/ch_PP-OCRv4_rec_infer/model.onnx"
if [[ ! -f "$model" ]]; then
  echo "model not in the cache: $model (the realmodels_fetch test or scripts/fetch_models.sh fetches it)" >&2
  exit 2
fi
exec "$1" "$model" "$root/tests/data/refcases/ch_PP-OCRv4_rec_infer/test_data_set_0/input_0.pb" \
  "$root/examples/data/ppocr_keys_v1.txt" --runs 3 --expect "Hello World 2024"
