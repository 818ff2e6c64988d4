#!/usr/bin/env bash
# The OCR demo with and without the compiled model (scripts/demo.sh runs it; so does the ocr_demo
# test). Compiles MODEL into COMPILED on first use (`vtensor compile`: when COMPILED is missing
# or older than MODEL or than the vtensor binary), then reads the checked-in text-line image
# with vtensor-ocr twice, each in a fresh process: on MODEL, then on COMPILED. Prints both
# outputs and a table of session-ready time and time to first result from process start
# (VT_SPAWN_REALTIME, the shell's clock just before exec).
#
# usage: scripts/ocr_demo.sh [--build DIR] [--runs N] [--expect TEXT] MODEL COMPILED
#   --build DIR     holds vtensor and vtensor-ocr (default: $VTENSOR_BUILD_DIR or ./build)
#   --runs N        timed runs per process after the first (default 5)
#   --expect TEXT   exit 1 unless both models read TEXT
# Exit status: 0 ok, 1 a text mismatch, 2 any other failure.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
RUNS=5
EXPECT=()
ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --expect) EXPECT=(--expect "$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "ocr_demo: unknown option $1" >&2; exit 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[[ ${#ARGS[@]} -eq 2 ]] || { echo "usage: scripts/ocr_demo.sh [--build DIR] [--runs N] [--expect TEXT] MODEL COMPILED" >&2; exit 2; }
MODEL="${ARGS[0]}"
COMPILED="${ARGS[1]}"
CASE_DATA="$ROOT/tests/data/refcases/ch_PP-OCRv4_rec_infer/test_data_set_0/input_0.pb"
KEYS="$ROOT/examples/data/ppocr_keys_v1.txt"
for f in "$BUILD/vtensor" "$BUILD/vtensor-ocr" "$MODEL"; do
  [[ -f "$f" ]] || { echo "ocr_demo: missing $f" >&2; exit 2; }
done

if [[ ! -f "$COMPILED" || "$MODEL" -nt "$COMPILED" || "$BUILD/vtensor" -nt "$COMPILED" ]]; then
  echo "compiling the model for this CPU (first use): vtensor compile $MODEL -o $COMPILED"
  mkdir -p "$(dirname "$COMPILED")"
  start=$(date +%s.%N)
  "$BUILD/vtensor" compile "$MODEL" -o "$COMPILED" --no-progress >/dev/null || exit 2
  LC_ALL=C awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "compiled in %.2f s\n\n", e - s }'
fi

# One fresh process per model; its output is printed and kept for the table.
run_ocr() {
  local out rc=0
  out="$(LC_ALL=C; VT_SPAWN_REALTIME=$EPOCHREALTIME exec "$BUILD/vtensor-ocr" "$1" "$CASE_DATA" \
         "$KEYS" --runs "$RUNS" "${EXPECT[@]}")" || rc=$?
  printf '%s\n' "$out"
  [[ $rc -eq 0 ]] || exit "$rc"
  # "<session ready ms> <first result ms>"
  awk '/^session ready:/ { r = $3 } /^first result:/ { f = $3 } END { print r, f }' <<<"$out"
}
source_out="$(run_ocr "$MODEL")" || exit $?
sed '$d' <<<"$source_out"
echo
compiled_out="$(run_ocr "$COMPILED")" || exit $?
sed '$d' <<<"$compiled_out"
echo
read -r source_ready source_first <<<"$(tail -n 1 <<<"$source_out")"
read -r compiled_ready compiled_first <<<"$(tail -n 1 <<<"$compiled_out")"
printf '%-15s %14s   %s\n' "" "session ready" "first result (from process start)"
printf '%-15s %11s ms   %9s ms\n' "source model" "$source_ready" "$source_first"
printf '%-15s %11s ms   %9s ms\n' "compiled model" "$compiled_ready" "$compiled_first"
