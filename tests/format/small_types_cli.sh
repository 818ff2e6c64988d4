#!/bin/bash
# The small element types (docs/dtypes.md) through the CLI: `digest` (raw_data and int32_data
# forms digest alike), `compile` (initializers kept byte for byte, digests unchanged), `check
# --decode`, `run` (Identity of every type) and the StableHLO export (parsed by mlir-opt-16 when
# installed; the fnuz float8 types and float4e2m1, which MLIR 16 lacks, refused with exit 2).
# usage: tests/format/small_types_cli.sh BUILD_DIR
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
vt="$build/vtensor"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
expect_rc() {  # expect_rc NAME WANT CMD...
  local name=$1 want=$2; shift 2
  "$@" > "$out/stdout" 2> "$out/stderr"
  local rc=$?
  if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"; else bad "$name: exit $rc, want $want"; cat "$out/stdout" "$out/stderr"; fi
}

/usr/bin/python3 "$here/small_types_models.py" "$out" || { echo "cannot write models"; exit 1; }

expect_rc "digest raw_data" 0 "$vt" digest "$out/small.onnx"
raw=$(sort "$out/stdout")
[ "$(echo "$raw" | wc -l)" = 7 ] && ok "seven digests" || bad "digest lines: $raw"
expect_rc "digest int32_data" 0 "$vt" digest "$out/small_int32.onnx"
[ "$raw" = "$(sort "$out/stdout")" ] && ok "raw_data and int32_data digest alike" || bad "digests differ"

expect_rc "compile" 0 "$vt" compile "$out/small.onnx" -o "$out/small.vt.onnx"
expect_rc "digest compiled" 0 "$vt" digest "$out/small.vt.onnx"
[ "$raw" = "$(sort "$out/stdout")" ] && ok "compile keeps the digests" || bad "compiled digests differ"
/usr/bin/python3 - "$out/small.onnx" "$out/small.vt.onnx" <<'PY' && ok "compile keeps the initializers byte for byte" || bad "initializers changed"
import sys
import onnx
a, b = (onnx.load(p, load_external_data=False) for p in sys.argv[1:3])
ia = {t.name: t.SerializeToString() for t in a.graph.initializer}
ib = {t.name: t.SerializeToString() for t in b.graph.initializer}
sys.exit(0 if ia == ib else 1)
PY
expect_rc "check --decode" 0 "$vt" check "$out/small.vt.onnx" --decode
expect_rc "run every type" 0 "$vt" run "$out/small.onnx"
expect_rc "run int32_data model" 0 "$vt" run "$out/small_int32.onnx"

expect_rc "export stablehlo" 0 "$vt" export "$out/hlo.onnx" --format stablehlo -o "$out/hlo.mlir"
for ty in f8E4M3FN f8E5M2 xi4 ui4; do
  grep -q "$ty>" "$out/hlo.mlir" && ok "export has $ty" || bad "export lacks $ty"
done
if command -v mlir-opt-16 > /dev/null; then
  expect_rc "mlir-opt-16 parses" 0 mlir-opt-16 --allow-unregistered-dialect "$out/hlo.mlir" -o /dev/null
else
  echo "mlir-opt-16 not installed: parse check skipped"
fi
for ty in f8e4m3fnuz f8e5m2fnuz f4; do
  expect_rc "export $ty refused" 2 "$vt" export "$out/refused_$ty.onnx" --format stablehlo -o "$out/$ty.mlir"
  grep -q "has no MLIR element type" "$out/stderr" && ok "refusal names the dtype" || bad "refusal: $(cat "$out/stderr")"
  [ ! -e "$out/$ty.mlir" ] && ok "nothing written" || bad "partial $ty.mlir left"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
