#!/usr/bin/env bash
# The synthetic transformer (vtensor-gen-transformer, RMS and layer norm, static
# shapes, and a symbolic seq dim left dynamic or bound with --input-shape) exports as StableHLO without a target
# and with `--target x86_64-avx512 --params OUT.irpa`; every .mlir must parse with
# `mlir-opt-16 --allow-unregistered-dialect` (exit 77, skipped, when mlir-opt-16 is missing).
# usage: export_synthetic.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
gen="$build/vtensor-gen-transformer" vtensor="$build/vtensor"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { echo "+ $*"; "$@"; }
tiny=(--hidden 64 --ffn 172 --heads 4 --layers 2 --seq 5)

run "$gen" -o "$out/rms.onnx" "${tiny[@]}"
run "$gen" -o "$out/ln.onnx" "${tiny[@]}" --norm layer --external
run "$gen" -o "$out/dyn.onnx" "${tiny[@]}" --dynamic-seq --batch 2
for m in rms ln; do
  run "$vtensor" export "$out/$m.onnx" --format stablehlo -o "$out/$m.plain.mlir"
  if grep -q "vt.tensor_layouts\|#vt.layout\|util.global" "$out/$m.plain.mlir"; then
    echo "FAIL: $m: an export without --target/--params carries layouts or parameters" >&2; exit 1
  fi
  run "$vtensor" export "$out/$m.onnx" --format stablehlo --target x86_64-avx512 \
      --params "$out/$m.irpa" -o "$out/$m.avx512.mlir"
  grep -q "vt.tensor_layouts" "$out/$m.avx512.mlir" || { echo "FAIL: $m: no vt.tensor_layouts" >&2; exit 1; }
  grep -q "#flow.parameter.named" "$out/$m.avx512.mlir" || { echo "FAIL: $m: no external parameters" >&2; exit 1; }
  [[ "$(head -c 4 "$out/$m.irpa")" == "IRPA" ]] || { echo "FAIL: $m: bad .irpa magic" >&2; exit 1; }
done
# Every weight matrix became a parameter (4 attention + 3 FFN per layer, 2 layers).
n=$(grep -o '#flow.parameter.named<"[^"]*"::"layers\.[0-9]*\.\(attn\|ffn\)\.w[a-z_]*">' "$out/rms.avx512.mlir" | sort -u | wc -l)
[[ "$n" -eq 14 ]] || { echo "FAIL: want 14 weight-matrix parameters, found $n" >&2; exit 1; }

# A symbolic seq dim stays dynamic (`?`, read at run time by get_dimension_size); with
# --input-shape the module is static.
run "$vtensor" export "$out/dyn.onnx" --target x86_64-avx512 --params "$out/dyn.q.irpa" \
    -o "$out/dyn.dynamic.mlir"
grep -q "%arg0: tensor<2x?x64xf32>" "$out/dyn.dynamic.mlir" || { echo "FAIL: dyn: no 2x?x64 argument" >&2; exit 1; }
grep -q "stablehlo.get_dimension_size" "$out/dyn.dynamic.mlir" || { echo "FAIL: dyn: no run-time extent" >&2; exit 1; }
run "$vtensor" export "$out/dyn.onnx" --input-shape x=2x7x64 --target x86_64-avx512 \
    --params "$out/dyn.irpa" -o "$out/dyn.avx512.mlir"
grep -q "tensor<2x7x64xf32>" "$out/dyn.avx512.mlir" || { echo "FAIL: dyn: no 2x7x64 argument" >&2; exit 1; }
if grep -q "?" "$out/dyn.avx512.mlir"; then echo "FAIL: dyn: --input-shape left a dynamic dim" >&2; exit 1; fi

if ! command -v mlir-opt-16 >/dev/null; then
  echo "mlir-opt-16 not installed: parse check skipped"
  exit 77
fi
for f in "$out"/*.mlir; do
  echo "+ mlir-opt-16 --allow-unregistered-dialect $(basename "$f")"
  mlir-opt-16 --allow-unregistered-dialect "$f" -o /dev/null
done
echo "OK: synthetic transformer exports parse"
