#!/usr/bin/env bash
# One GroupQueryAttention layer (bench/transformer/gqa_layer_models.py) timed in vtensor and in
# ONNX Runtime 1.30's C API (vtensor-ort-bench, scripts/build_ort_bench.sh), single thread, on the
# same inputs: the figures of docs/attention.md ("Operators"). Each round runs every model once in
# a fresh vtensor process and once in a fresh ORT process, alternating which goes first, so drift
# of a shared machine falls on both. Prints each round's medians and, per model, the medians over
# the rounds and the median of the per-round ratios ORT / vtensor.
#
# usage: bench/transformer/compare_gqa_layer.sh [--rounds R] [--build DIR]
#   --rounds R   rounds (default 5); 40 timed runs per process (15 for the 22 ms chunked prefill)
#   --build DIR  build directory holding `vtensor` (default: $VTENSOR_BUILD_DIR or ./build)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
ROUNDS=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "compare_gqa_layer: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "compare_gqa_layer: --rounds needs a positive integer" >&2; exit 2; }
[[ -x "$BUILD/vtensor" ]] || { echo "compare_gqa_layer: $BUILD/vtensor not found" >&2; exit 2; }
ORT_BENCH="$("$ROOT/scripts/build_ort_bench.sh" --build "$BUILD")"
MODELS="$(mktemp -d)"
trap 'rm -rf "$MODELS"' EXIT
/usr/bin/python3 "$ROOT/bench/transformer/gqa_layer_models.py" "$MODELS" >/dev/null
CASES=(gqa_decode_p511 gqa_decode_p511_rotary gqa_prefill_s128 gqa_prefill_s128_p511)

median_ms() { sed -n 's/^median_ms: *//p'; }
measure() {  # SIDE CASE -> median ms of one fresh process
  local d="$MODELS/$2" runs=40
  [[ "$2" == gqa_prefill_s128_p511 ]] && runs=15
  if [[ "$1" == vt ]]; then
    "$BUILD/vtensor" bench "$d/model.onnx" --data "$d/data" --runs "$runs" --warmup 2 --threads 1 | median_ms
  else
    "$ORT_BENCH" "$d/model.onnx" --data "$d/data" --runs "$runs" --warmup 2 | median_ms
  fi
}

declare -A VT=() ORT=()
for ((r = 1; r <= ROUNDS; ++r)); do
  for c in "${CASES[@]}"; do
    if ((r % 2)); then VT[$c]+="$(measure vt "$c") "; ORT[$c]+="$(measure ort "$c") "
    else ORT[$c]+="$(measure ort "$c") "; VT[$c]+="$(measure vt "$c") "; fi
  done
done
for c in "${CASES[@]}"; do
  echo "$c vtensor ms: ${VT[$c]}| ORT ms: ${ORT[$c]}"
  /usr/bin/python3 -c 'import statistics as s, sys
v = [float(x) for x in sys.argv[1].split()]; o = [float(x) for x in sys.argv[2].split()]
print(f"  median vtensor {s.median(v):.3f} ms, ORT {s.median(o):.3f} ms, ORT / vtensor {s.median([b / a for a, b in zip(v, o)]):.2f}x")' \
    "${VT[$c]}" "${ORT[$c]}"
done
