#!/bin/bash
# `vtensor check --decode` runs every stored decoder function with vtensor's runtime and
# compares with the source initializer: exit 0 for a good model, 1 when a
# payload byte is corrupted (lossless f32 panels inline; lossy q8_0 scale in the external file),
# which each entry's payload digest also reports, with or without --decode.
# usage: tests/format/check_decode_test.sh BUILD_DIR
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
command -v python3 > /dev/null || { echo "skip: python3 missing"; exit 77; }
"$build/vtensor-make-compiled-model" "$out" > /dev/null || { echo "cannot build models"; exit 1; }

expect_rc "check --decode good model" 0 "$vt" check "$out/compiled.onnx" --decode --json
grep -q '"errors": 0' "$out/stdout" && ok "no errors" || bad "errors reported"
# All three types (f32 panels, q4_0, q8_0) carry decoders: none falls back or is skipped.
grep -Eq '"rule": "decode-(layout|skipped)"' "$out/stdout" && bad "a decoder did not run" || ok "every decoder ran"

# Flip one bit of one f32 in the panel payload (the second copy of W's first bytes in the file).
cp "$out/compiled.onnx" "$out/panels_bad.onnx"
python3 - "$out/panels_bad.onnx" "$out/W.bin" <<'PY'
import sys
model, w = sys.argv[1], open(sys.argv[2], 'rb').read(16)
data = bytearray(open(model, 'rb').read())
first = data.find(w)
second = data.find(w, first + 1)
assert first >= 0 and second > first, "payload not found"
data[second + 1] ^= 0x01
open(model, 'wb').write(data)
PY
expect_rc "corrupted lossless payload" 1 "$vt" check "$out/panels_bad.onnx" --decode --json
grep -q '"rule": "decode-mismatch"' "$out/stdout" && grep -q '"entry": 0' "$out/stdout" \
  && ok "decode-mismatch names entry 0" || bad "mismatch finding: $(cat "$out/stdout")"
# The entry's own payload digest (vt.payload_digest) catches the damage too.
grep -q '"rule": "payload-digest"' "$out/stdout" && ok "payload-digest finding" || bad "no payload-digest finding"
grep -c '"severity": "error"' "$out/stdout" | grep -qx 2 && ok "exactly two errors" || bad "error count"

# Exponent bit of the first q8_0 block's f16 scale in the external payload file (entry 2).
cp "$out/compiled.onnx" "$out/q8_bad.onnx"
python3 - "$out/compiled.vtw" <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[1] ^= 0x40
open(sys.argv[1], 'wb').write(data)
PY
expect_rc "corrupted q8_0 scale" 1 "$vt" check "$out/q8_bad.onnx" --decode --json
grep -q '"rule": "decode-mismatch"' "$out/stdout" && grep -q '"entry": 2' "$out/stdout" \
  && ok "decode-mismatch names entry 2" || bad "mismatch finding: $(cat "$out/stdout")"
# Without --decode the payload digest still finds the damaged bytes.
expect_rc "without --decode: payload digest" 1 "$vt" check "$out/q8_bad.onnx"
grep -q 'payload-digest' "$out/stdout" && ok "payload-digest names the damage" || bad "no payload-digest: $(cat "$out/stdout")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
