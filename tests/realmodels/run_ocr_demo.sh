#!/usr/bin/env bash
# The OCR demo (scripts/ocr_demo.sh) on its checked-in line image: the source model and the
# model it compiles on first use must both read "Hello World 2024", the compiled one using every
# compiled tensor and its session plan, and the table must give both models' times.
# usage: run_ocr_demo.sh BUILD_DIR
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
model="$("$root/scripts/fetch_models.sh" --print-cache)/ch_PP-OCRv4_rec_infer/model.onnx"
if [[ ! -f "$model" ]]; then
  echo "model not in the cache: $model (the realmodels_fetch test or scripts/fetch_models.sh fetches it)" >&2
  exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
out="$("$root/scripts/ocr_demo.sh" --build "$1" --runs 3 --expect "Hello World 2024" \
       "$model" "$tmp/rec.vtc.onnx")"
printf '%s\n' "$out"
fail() { echo "run_ocr_demo: $*" >&2; exit 1; }
grep -q '^compiling the model for this CPU (first use)' <<<"$out" || fail "no compile on first use"
[[ -f "$tmp/rec.vtc.onnx" ]] || fail "no compiled model written"
[[ $(grep -c '^text: Hello World 2024$' <<<"$out") -eq 2 ]] || fail "expected the text twice"
grep -qE '^compiled model: ([0-9]+) of \1 compiled tensors and the session plan used' <<<"$out" ||
  fail "the compiled model did not use all its compiled tensors and its plan"
grep -qE '^source model +[0-9.]+ ms +[0-9.]+ ms$' <<<"$out" || fail "no source model timings"
grep -qE '^compiled model +[0-9.]+ ms +[0-9.]+ ms$' <<<"$out" || fail "no compiled model timings"
# A second use finds the compiled model and does not compile again.
again="$("$root/scripts/ocr_demo.sh" --build "$1" --runs 1 "$model" "$tmp/rec.vtc.onnx")"
if grep -q '^compiling' <<<"$again"; then fail "compiled again although up to date"; fi
