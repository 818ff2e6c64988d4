#!/bin/bash
# End-to-end checks of `vtensor digest`, `vtensor check` and `vtensor inspect`.
# usage: tests/format/cli_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
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

"$build/vtensor-make-compiled-model" "$out" > /dev/null || { echo "cannot build models"; exit 1; }

# digest: one line per initializer, the same for the stock and the compiled model, b3sum-style hex.
expect_rc "digest stock" 0 "$vt" digest "$out/stock.onnx"
stock=$(cat "$out/stdout")
expect_rc "digest compiled" 0 "$vt" digest "$out/compiled.onnx"
[ "$stock" = "$(cat "$out/stdout")" ] && ok "digest independent of compiled entries" || bad "digest differs"
echo "$stock" | grep -Eq '^W blake3 [0-9a-f]{64}$' && ok "digest line format" || bad "digest line: $stock"
expect_rc "digest --tensor --algo sha256" 0 "$vt" digest "$out/stock.onnx" --tensor W --algo sha256
grep -Eq '^W sha256 [0-9a-f]{64}$' "$out/stdout" && ok "sha256 line" || bad "sha256 line"
expect_rc "digest unknown tensor" 2 "$vt" digest "$out/stock.onnx" --tensor nope
# The digest recorded in the model is the one the CLI prints.
"$vt" inspect "$out/compiled.onnx" --json > "$out/inspect.json"
want=$(echo "$stock" | cut -d' ' -f3)
grep -q "\"source_digest\": \"$want\"" "$out/inspect.json" && ok "inspect shows the CLI digest" || bad "inspect digest"

# check: exit 0 clean, 1 errors, 2 unreadable; --json is machine readable.
expect_rc "check well-formed" 0 "$vt" check "$out/compiled.onnx"
expect_rc "check --decode" 0 "$vt" check "$out/compiled.onnx" --decode
expect_rc "check stock" 0 "$vt" check "$out/stock.onnx"
cp "$out/compiled.onnx" "$out/broken.onnx"
printf '\xea\x01\x00' >> "$out/broken.onnx"  # an empty CompiledTensorProto appended as field 29
expect_rc "check malformed entry" 1 "$vt" check "$out/broken.onnx" --json
grep -q '"rule": "source-missing"' "$out/stdout" && ok "json names the rule" || bad "json rule"
grep -q '"entry": 3' "$out/stdout" && ok "json names the entry" || bad "json entry"
printf 'not a model' > "$out/junk.onnx"
expect_rc "check unreadable" 2 "$vt" check "$out/junk.onnx"
expect_rc "check missing file" 2 "$vt" check "$out/none.onnx"

# inspect: layouts in text form.
expect_rc "inspect" 0 "$vt" inspect "$out/compiled.onnx"
grep -q 'vt.layout.v1<\[64,40\],f32,levels=\[(1,16,1024),(0,1,16),(1,1,1)\]>' "$out/stdout" \
  && ok "inspect prints layouts" || bad "inspect layouts"
grep -q 'compiled.vtw @0' "$out/stdout" && ok "inspect prints external payloads" || bad "inspect external"
expect_rc "inspect unreadable" 2 "$vt" inspect "$out/junk.onnx"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
