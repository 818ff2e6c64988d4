#!/usr/bin/env bash
# Latency of vtensor against ONNX Runtime 1.30 (npm onnxruntime-node) on the real-model cases,
# single thread, measured in one run of this script, and printed as a table:
#   model | vtensor ms | ORT ms | ratio (vtensor / ORT)
# Both sides take the median of RUNS timed runs after warmup runs, on the checked-in inputs.
#
# usage: scripts/compare_ort.sh [--runs N] [--build DIR] [CASE...]
#   --runs N     timed runs per model and runtime (default 20)
#   --build DIR  build directory holding `vtensor` (default: $VTENSOR_BUILD_DIR or ./build)
# onnxruntime-node is installed once into ${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# CI may run without HOME; fall back to the account's home directory.
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
ORT_VERSION=1.30.0
RUNS=20
BUILD="${VTENSOR_BUILD_DIR:-$ROOT/build}"
CASES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "compare_ort: unknown option $1" >&2; exit 2 ;;
    *) CASES+=("$1"); shift ;;
  esac
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "compare_ort: --runs needs a positive integer" >&2; exit 2; }
VTENSOR="$BUILD/vtensor"
[[ -x "$VTENSOR" ]] || { echo "compare_ort: $VTENSOR not found; build first (scripts/build.sh)" >&2; exit 2; }

# --- ONNX Runtime ------------------------------------------------------------------------------
ORT_DIR="${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}/onnxruntime-node-$ORT_VERSION"
ORT_MODULE="$ORT_DIR/node_modules/onnxruntime-node"
if [[ ! -f "$ORT_MODULE/package.json" ]]; then
  echo "compare_ort: installing onnxruntime-node@$ORT_VERSION into $ORT_DIR" >&2
  mkdir -p "$ORT_DIR"
  [[ -f "$ORT_DIR/package.json" ]] || echo '{"name":"vtensor-ort-bench","private":true}' >"$ORT_DIR/package.json"
  # ONNXRUNTIME_NODE_INSTALL=skip: the CPU binaries ship in the package; the install script would
  # only download GPU providers.
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --loglevel=error \
    "onnxruntime-node@$ORT_VERSION" >&2)
fi
got_version="$(node -p "require('$ORT_MODULE/package.json').version")"
[[ "$got_version" == "$ORT_VERSION" ]] || { echo "compare_ort: found onnxruntime-node $got_version, want $ORT_VERSION" >&2; exit 2; }

# --- Models ------------------------------------------------------------------------------------
"$ROOT/scripts/fetch_models.sh" "${CASES[@]}" >&2
CACHE="$("$ROOT/scripts/fetch_models.sh" --print-cache)"
if [[ ${#CASES[@]} -eq 0 ]]; then
  mapfile -t CASES < <(node -e 'console.log(Object.keys(require(process.argv[1]).models).join("\n"))' \
    "$ROOT/tests/data/refcases/index.json")
fi

# --- Measure -----------------------------------------------------------------------------------
echo "compare_ort: $RUNS timed runs per model after 2 warmups, 1 thread" >&2
rows=()
for case in "${CASES[@]}"; do
  model="$CACHE/$case/model.onnx"
  data="$ROOT/tests/data/refcases/$case/test_data_set_0"
  echo "compare_ort: $case" >&2
  vt_ms="error"
  if vt_out="$("$VTENSOR" bench "$model" --data "$data" --runs "$RUNS" --warmup 2 --threads 1 2>&1)"; then
    vt_ms="$(sed -n 's/^median_ms: *//p' <<<"$vt_out")"
  else
    echo "  vtensor: $(tail -n 1 <<<"$vt_out" | cut -c1-300)" >&2
  fi
  ort_ms="error"
  if ort_out="$(node "$ROOT/scripts/ort_bench.js" "$ORT_MODULE" "$model" "$data" "$RUNS" 2 2>&1)"; then
    ort_ms="$(node -p 'JSON.parse(process.argv[1]).median_ms' "$ort_out")"
    echo "  ORT max |out - reference|: $(node -p 'JSON.parse(process.argv[1]).max_abs_diff.join(", ")' "$ort_out")" >&2
  else
    echo "  ORT: $(tail -n 1 <<<"$ort_out" | cut -c1-300)" >&2
  fi
  rows+=("$case"$'\t'"$vt_ms"$'\t'"$ort_ms")
done

printf '\n%-32s %12s %12s %10s\n' "model" "vtensor ms" "ORT ms" "ratio"
printf '%-32s %12s %12s %10s\n' "-----" "----------" "------" "-----"
for row in "${rows[@]}"; do
  IFS=$'\t' read -r case vt ort <<<"$row"
  if [[ "$vt" != error && "$ort" != error ]]; then
    printf '%-32s %12.3f %12.3f %9.2fx\n' "$case" "$vt" "$ort" "$(awk -v a="$vt" -v b="$ort" 'BEGIN { print a / b }')"
  else
    printf '%-32s %12s %12s %10s\n' "$case" "$vt" "$ort" "-"
  fi
done
echo "(ratio = vtensor / ORT; below 1 means vtensor is faster; onnxruntime-node $ORT_VERSION, intra/inter-op threads 1)"
