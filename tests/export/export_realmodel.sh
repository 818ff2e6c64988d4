#!/usr/bin/env bash
# Exports one cached real model as StableHLO (without a target, and with targets,
# external parameters and per-type layouts) and as JSON, and checks every .mlir parses with
# `mlir-opt-16 --allow-unregistered-dialect` (skipped, exit 77, when mlir-opt-16 is missing).
# Also checks that a failing export leaves no file behind, and what an export without
# --input-shape (dynamic dims) does.
# usage: export_realmodel.sh VTENSOR_BIN CASE
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 VTENSOR_BIN CASE" >&2; exit 2; }
vtensor="$1" case="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
model="$("$root/scripts/fetch_models.sh" --print-cache)/$case/model.onnx"
[[ -f "$model" ]] || { echo "model not in the cache: $model" >&2; exit 2; }

# Static input shapes: those of the checked-in test inputs (tests/data/refcases/<case>).
case "$case" in
  ch_PP-OCRv4_det_infer) shapes=(--input-shape x=1x3x640x640); bad=(--input-shape x=1x3x100x100) ;;
  ch_PP-OCRv4_rec_infer) shapes=(--input-shape x=1x3x48x320); bad=(--input-shape x=1x3x48) ;;
  ch_ppocr_mobile_v2.0_cls_infer) shapes=(--input-shape x=1x3x48x192); bad=(--input-shape x=1x3x48) ;;
  silero_vad_16k_op15) shapes=(--input-shape input=1x512 --input-shape state=2x1x128); bad=() ;;
  silero_vad_v5) shapes=(--input-shape input=1x512 --input-shape state=2x1x128 --input-value sr=16000)
                 bad=(--input-shape input=1x512 --input-shape state=2x1x128) ;;
  *) echo "no input shapes known for case $case" >&2; exit 2 ;;
esac

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
run() { echo "+ vtensor $*"; "$vtensor" "$@"; }

run export "$model" --format stablehlo "${shapes[@]}" -o "$out/plain.mlir"
if grep -q "vt.tensor_layouts\|#vt.layout" "$out/plain.mlir"; then
  echo "FAIL: an export without --target carries layouts" >&2; exit 1
fi
run export "$model" --format stablehlo "${shapes[@]}" --target x86_64-avx512 \
    --params "$out/avx512.irpa" -o "$out/avx512.mlir"
grep -q "vt.tensor_layouts" "$out/avx512.mlir" || { echo "FAIL: no vt.tensor_layouts" >&2; exit 1; }
[[ "$(head -c 4 "$out/avx512.irpa")" == "IRPA" ]] || { echo "FAIL: bad .irpa magic" >&2; exit 1; }
run export "$model" --format stablehlo "${shapes[@]}" --target iree-llvm-cpu --per-type-layouts \
    --params "$out/iree.irpa" --param-scope vt --externalize-above 0 -o "$out/iree.mlir"
run export "$model" --format json --target x86_64-avx2 -o "$out/graph.json"
if command -v node >/dev/null; then
  node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$out/graph.json"
fi

# `vtensor passes` prints the graph after every pass, with layouts in text form.
"$vtensor" passes "$model" --target x86_64-avx2 --print-after-all >"$out/passes.txt"
grep -q -- "----- after layout-assignment -----" "$out/passes.txt" || { echo "FAIL: passes" >&2; exit 1; }
grep -q "vt.layout=vt.layout.v1<" "$out/passes.txt" || { echo "FAIL: no layout printed" >&2; exit 1; }
"$vtensor" passes "$model" >"$out/passes_none.txt"
if grep -q "vt.layout=" "$out/passes_none.txt"; then
  echo "FAIL: passes without a target printed a layout" >&2; exit 1
fi

# A failing export writes nothing.
if [[ ${#bad[@]} -gt 0 ]]; then
  if "$vtensor" export "$model" --format stablehlo "${bad[@]}" --params "$out/bad.irpa" \
       -o "$out/bad.mlir" 2>"$out/bad.err"; then
    echo "FAIL: export with bad shapes succeeded" >&2; exit 1
  fi
  [[ ! -e "$out/bad.mlir" && ! -e "$out/bad.irpa" ]] || { echo "FAIL: partial output left" >&2; exit 1; }
  echo "expected failure: $(head -c 300 "$out/bad.err")"
fi

# A partial shape keeps the batch dynamic (`?` in --input-shape).
case "$case" in
  ch_PP-OCRv4_rec_infer|ch_ppocr_mobile_v2.0_cls_infer)
    partial=("${shapes[@]/x=1x/x=?x}")
    run export "$model" --format stablehlo "${partial[@]}" --target x86_64-avx512 \
        --params "$out/batch.irpa" -o "$out/batch.mlir"
    grep -q "%arg0: tensor<?x3x48x" "$out/batch.mlir" || { echo "FAIL: no dynamic batch" >&2; exit 1; }
    ;;
esac

# Without --input-shape the model's symbolic dims stay dynamic: the export either keeps them
# (`?` in the module, parsed below) or is refused naming --input-shape, writing nothing.
if "$vtensor" export "$model" --format stablehlo -o "$out/dynamic.mlir" 2>"$out/dynamic.err"; then
  grep -q "?x\|x?" "$out/dynamic.mlir" || { echo "FAIL: a dynamic export without a dynamic dim" >&2; exit 1; }
else
  [[ ! -e "$out/dynamic.mlir" ]] || { echo "FAIL: partial output left" >&2; exit 1; }
  grep -q -- "--input-shape" "$out/dynamic.err" || { cat "$out/dynamic.err" >&2; exit 1; }
  echo "refused with dynamic dims: $(head -c 300 "$out/dynamic.err")"
fi

if ! command -v mlir-opt-16 >/dev/null; then
  echo "mlir-opt-16 not installed: parse check skipped"
  exit 77
fi
for f in "$out"/*.mlir; do
  echo "+ mlir-opt-16 --allow-unregistered-dialect $(basename "$f")"
  mlir-opt-16 --allow-unregistered-dialect "$f" -o /dev/null
done
echo "OK: $case"
