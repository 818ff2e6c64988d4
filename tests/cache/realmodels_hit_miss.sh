#!/usr/bin/env bash
# On real models, a compiled model hits every entry and its session plan, and computes byte for
# byte what the same model computes without its cache (weights packed and passes run at load). For each profile (exact, compact):
#   vtensor compile MODEL -o T/P.onnx --profile P          (external payload T/P.onnx.vtpack)
#   vtensor inspect T/P.onnx --cache --profile P           -> every entry HIT (at least one)
#   vtensor run T/P.onnx --profile P --save-outputs T/hit  \  every output_N.pb identical
#   vtensor run T/P.onnx --profile P --no-cache ...  T/miss/  (cmp)
# Profile exact must also pass the checked-in ONNX Runtime references (run exit 0); compact
# changes results by its quantization error, so only hit == miss is required there.
#
# usage: realmodels_hit_miss.sh VTENSOR_BIN CASE DATA_DIR
#        realmodels_hit_miss.sh VTENSOR_BIN --synthetic GEN_BIN ["EXTRA GENERATOR FLAGS"]
# The second form does the same on a small vtensor-gen-transformer model (external weights)
# with a deterministic non-zero input (extra flags, e.g. "--nbits-block 32 --nbits-zero-points"
# for com.microsoft MatMulNBits projections, are passed to the generator). Exit 77 (skipped) when the real model is not in the
# model cache, or GEN_BIN / python3 (used to write the input) is missing.
set -euo pipefail
[[ $# -eq 3 || ( $# -eq 4 && "$2" == "--synthetic" ) ]] || { echo "usage: $0 VTENSOR_BIN CASE DATA_DIR | VTENSOR_BIN --synthetic GEN_BIN [FLAGS]" >&2; exit 2; }
vtensor="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run() { echo "+ $*"; "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

if [[ "$2" == "--synthetic" ]]; then
  gen="$3"
  [[ -x "$gen" ]] || { echo "$gen not built: skipped"; exit 77; }
  command -v python3 >/dev/null || { echo "python3 not installed (writes the input): skipped"; exit 77; }
  model="$tmp/src/synth.onnx"
  mkdir -p "$tmp/src" "$tmp/data"
  # Hidden 64 (two 32-blocks for the compact int4 form), FFN 192, 2 layers, weights in synth.onnx.data.
  # shellcheck disable=SC2086
  run "$gen" -o "$model" --hidden 64 --ffn 192 --heads 4 --layers 2 --seq 5 --external --seed 5 ${4:-}
  # input_0.pb: TensorProto x f32 [1,5,64], x[i] = sin(0.37 i + 0.1).
  python3 - "$tmp/data/input_0.pb" <<'EOF'
import math, struct, sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f; v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v: return bytes(out)
dims = [1, 5, 64]
raw = b"".join(struct.pack("<f", math.sin(0.37 * i + 0.1)) for i in range(1 * 5 * 64))
msg = b"".join(b"\x08" + varint(d) for d in dims) + b"\x10\x01"
msg += b"\x42" + varint(1) + b"x" + b"\x4a" + varint(len(raw)) + raw
open(sys.argv[1], "wb").write(msg)
EOF
  data="$tmp/data"
  label="synthetic transformer${4:+ ($4)}"
else
  case="$2" data="$3"
  model="$("$root/scripts/fetch_models.sh" --print-cache)/$case/model.onnx"
  [[ -f "$model" ]] || { echo "model not in the cache: $model (scripts/fetch_models.sh fetches it): skipped"; exit 77; }
  label="$case"
fi

for profile in exact compact; do
  echo "== $label, profile $profile"
  out="$tmp/$profile"
  mkdir -p "$out"
  run "$vtensor" compile "$model" -o "$out/m.onnx" --profile "$profile" --no-progress
  [[ -f "$out/m.onnx.vtpack" ]] || fail "no payload file $out/m.onnx.vtpack"
  "$vtensor" inspect "$out/m.onnx" --cache --profile "$profile" --verify always >"$out/inspect.txt"
  cat "$out/inspect.txt"
  summary="$(tail -n 1 "$out/inspect.txt")"
  [[ "$summary" =~ ^compiled\ tensors:\ ([0-9]+)\ entries,\ ([0-9]+)\ hit,\ ([0-9]+)\ miss$ ]] ||
    fail "unexpected inspect summary: $summary"
  entries="${BASH_REMATCH[1]}" hits="${BASH_REMATCH[2]}" misses="${BASH_REMATCH[3]}"
  [[ "$entries" -gt 0 ]] || fail "$label/$profile: compile wrote no entries"
  [[ "$misses" -eq 0 && "$hits" -eq "$entries" ]] || fail "$label/$profile: $misses of $entries entries MISS"
  if grep -q "(not verified)" "$out/inspect.txt"; then fail "$label/$profile: a hit was not verified under --verify always"; fi
  # The session plan (docs/compiled-tensors.md, "Session plans") hits too: the hit run below
  # skips the graph passes, the --no-cache run makes them, and their outputs must be identical.
  grep -Eq "^session plan [0-9]+ vt.session_plan .*: HIT  \(verified\)$" "$out/inspect.txt" ||
    fail "$label/$profile: the session plan is not a verified HIT"

  for mode in hit miss; do
    flags=(--profile "$profile" --save-outputs "$out/$mode")
    [[ "$mode" == miss ]] && flags+=(--no-cache)
    set +e
    "$vtensor" run "$out/m.onnx" --data "$data" --atol 2e-3 --rtol 1e-3 "${flags[@]}" >"$out/$mode.txt" 2>&1
    rc=$?
    set -e
    cat "$out/$mode.txt"
    # 1 = outputs differ from the references (allowed for compact and for the synthetic model,
    # which has none); 2 = an error.
    [[ $rc -eq 0 || ( $rc -eq 1 && "$profile" == compact ) ]] || fail "$label/$profile/$mode: vtensor run exited $rc"
  done
  n=0
  for f in "$out/hit"/*; do
    b="$(basename "$f")"
    [[ -f "$out/miss/$b" ]] || fail "$label/$profile: $b saved with the cache but not without"
    cmp "$f" "$out/miss/$b" || fail "$label/$profile: $b differs between HIT and --no-cache"
    n=$((n + 1))
  done
  [[ $n -gt 0 && $n -eq $(ls "$out/miss" | wc -l) ]] || fail "$label/$profile: output counts differ ($n)"
  echo "OK: $label/$profile: $hits/$entries entries HIT; $n outputs byte-identical with --no-cache"
done
