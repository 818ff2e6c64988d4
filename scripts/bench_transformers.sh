#!/usr/bin/env bash
# Latency of vtensor against ONNX Runtime 1.30 (C API, one thread) on transformer graphs as
# PyTorch's exporter writes them: generates the models of tests/transformers/generate.py (BERT
# encoder hidden 256 seq 128 batch 2; the same at opset 17 with LayerNormalization and tanh GELU;
# Llama-style prefill of 32 tokens and a decode step after 31 cached ones, hidden 256, GQA),
# checks vtensor's outputs against the generator's numpy reference, then times both runtimes
# with scripts/compare_ort.sh (alternating fresh processes, medians; see docs/benchmarks.md).
# Prints the table vtensor ms | ORT ms | ratio in wall-clock and thread CPU time.
#
# usage: scripts/bench_transformers.sh [--runs N] [--rounds R] [--compiled] [--build DIR]
#                                      [--layers L] [CASE...]
#   --layers L   layers per model (default: the generator's, 2)
#   --compiled   also compile each model and time its first result (compare_ort.sh --compiled)
#   other options and CASEs as scripts/compare_ort.sh (CASE: bert, bert_ln17_tanh,
#   llama_prefill, llama_decode; default all)
# Models go to ${VTENSOR_MODEL_CACHE:-$HOME/.cache/vtensor/models}/transformers-L<layers>/ and
# are regenerated when the generator is newer than them.
# Exit 77 when node/npm (ONNX Runtime) are missing, 2 on any other failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
LAYERS=0
PASS=()
CASES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs|--rounds) PASS+=("$1" "$2"); shift 2 ;;
    --compiled) PASS+=("$1"); shift ;;
    --build) BUILD="$2"; shift 2 ;;
    --layers) LAYERS="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "bench_transformers: unknown option $1" >&2; exit 2 ;;
    *) CASES+=("$1"); shift ;;
  esac
done
[[ "$LAYERS" =~ ^[0-9]+$ ]] || { echo "bench_transformers: --layers needs an integer" >&2; exit 2; }
VTENSOR="$BUILD/vtensor"
[[ -x "$VTENSOR" ]] || { echo "bench_transformers: $VTENSOR not found; build first (scripts/build.sh vtensor)" >&2; exit 2; }
PY=/usr/bin/python3
"$PY" -c 'import onnx, numpy' 2>/dev/null ||
  { echo "bench_transformers: $PY with onnx and numpy is required (apt-get install python3-onnx)" >&2; exit 2; }

GEN="$ROOT/tests/transformers/generate.py"
DIR="${VTENSOR_MODEL_CACHE:-$HOME/.cache/vtensor/models}/transformers-L${LAYERS}"
mkdir -p "$DIR"
stamp="$DIR/.generated"
if [[ ! -f "$stamp" || "$GEN" -nt "$stamp" ]]; then
  "$PY" "$GEN" --out "$DIR" --layers "$LAYERS" >&2 || { echo "bench_transformers: generator failed" >&2; exit 2; }
  touch "$stamp"
fi
if [[ ${#CASES[@]} -eq 0 ]]; then
  mapfile -t CASES < <(cd "$DIR" && for d in */; do [[ -f "$d/model.onnx" ]] && echo "${d%/}"; done)
fi

# Outputs against the numpy reference (float64 forward pass of the same weights).
for c in "${CASES[@]}"; do
  [[ -f "$DIR/$c/model.onnx" ]] || { echo "bench_transformers: unknown case $c" >&2; exit 2; }
  if ! out="$("$VTENSOR" run "$DIR/$c/model.onnx" --data "$DIR/$c/test_data_set_0" --rtol 1e-3 --atol 1e-4 2>&1)"; then
    echo "$out" >&2
    echo "bench_transformers: $c: vtensor's outputs differ from the reference" >&2
    exit 2
  fi
done
echo "bench_transformers: vtensor's outputs match the numpy reference (rtol 1e-3, atol 1e-4)" >&2

set +e
"$ROOT/scripts/compare_ort.sh" --build "$BUILD" --cases-dir "$DIR" "${PASS[@]}" "${CASES[@]}"
rc=$?
set -e
exit $rc
