#!/usr/bin/env bash
# Decoders in onnxruntime-genai form (vtensor-gen-transformer --form genai) against ONNX Runtime
# 1.30 (npm onnxruntime-node), and `vtensor generate` end to end:
#   - per step (the prefill of 7 tokens and two decode steps, each fed ORT's own presents):
#     `vtensor run --data` agrees with ORT on logits and every present KV cache;
#   - `vtensor generate` (prefill + decode steps with the KV cache fed back) produces the same
#     greedy ids as ORT's loop from the same prompt ids, from the source model and from its
#     compiled form (which must be a full cache hit with no weight packed at load), and so does
#     vtensor-ort-generate (bench/ort) with either KV cache mode;
#   - bad input exits 2 naming the problem: a model not in decoder form, a prompt beyond the
#     rotary cache (max_length).
# Exit 77 (skipped) when node or onnxruntime-node is missing; onnxruntime-node is looked up in
# ${VTENSOR_ORT_CACHE:-~/.cache/vtensor/ort}/onnxruntime-node-1.30.0 (scripts/build_ort_bench.sh
# installs it there).
# usage: genai_ort.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"

command -v node >/dev/null || { echo "node not installed: skipped"; exit 77; }
ort="${VTENSOR_ORT_CACHE:-$HOME/.cache/vtensor/ort}/onnxruntime-node-1.30.0/node_modules/onnxruntime-node"
[[ -f "$ort/package.json" ]] || { echo "onnxruntime-node not installed (see scripts/build_ort_bench.sh): skipped"; exit 77; }

# vtensor-ort-generate (bench/ort, ONNX Runtime's C API) must produce the same ids in both of
# its KV cache modes; skipped without its headers / library (build_ort_bench.sh exit 77).
ortgen=""
rc=0
ortgen="$("$here/../../scripts/build_ort_bench.sh" --build "$build" --program generate 2>/dev/null)" || rc=$?
[[ $rc -eq 0 || $rc -eq 77 ]] || { echo "FAIL: build_ort_bench.sh --program generate exit $rc" >&2; exit 1; }
[[ $rc -eq 0 ]] || ortgen=""

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
key() { sed -n "s/^$1: //p" <<<"$2"; }

# name | generator flags
cases=(
  # GQA 4 query / 2 KV heads, symmetric block 32, accuracy_level 4 (int8 activations), FFN 172
  # (a ragged last block on the down projection).
  "gqa2|--hidden 64 --heads 4 --kv-heads 2 --ffn 172 --layers 2 --vocab 97 --max-length 64 --seed 3 --inline"
  # One KV head for 8 query heads, zero points with block 16, accuracy_level 0, external data.
  "gqa8_zp|--hidden 128 --heads 8 --kv-heads 1 --ffn 100 --layers 3 --vocab 131 --max-length 40 --seed 5 --external --nbits-block 16 --nbits-zero-points --nbits-accuracy-level 0"
  # As many KV heads as query heads (MHA), block 64, head size 48 (ORT wants a multiple of 16).
  "mha|--hidden 96 --heads 2 --kv-heads 2 --ffn 160 --layers 1 --vocab 50 --max-length 32 --seed 7 --inline --nbits-block 64"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name flags <<<"$c"
  echo "== $name"
  m="$out/$name.onnx"
  # shellcheck disable=SC2086
  "$build/vtensor-gen-transformer" --form genai -o "$m" $flags
  (cd "$out" && "$build/vtensor" check "$name.onnx" >/dev/null)
  node "$here/genai_ort_reference.js" "$ort" "$m" "$out/$name.steps" 7 2 >/dev/null
  for step in 0 1 2; do
    "$build/vtensor" run "$m" --data "$out/$name.steps/step_$step" --rtol 1e-3 --atol 1e-4 >/dev/null ||
      fail "$name step $step: vtensor run disagrees with ORT"
  done

  "$build/vtensor" compile "$m" -o "$out/$name.compiled.onnx" --no-progress >/dev/null
  for model in "$m" "$out/$name.compiled.onnx"; do
    g="$("$build/vtensor" generate "$model" --prompt-len 9 --new-tokens 6 --seed 11)" ||
      fail "$name: vtensor generate exit $?"
    for k in session_create_ms prefill_ms first_token_ms decode_median_ms decode_tokens_per_s; do
      [[ "$(key "$k" "$g")" =~ ^[0-9.]+$ ]] || fail "$name: no numeric $k in:"$'\n'"$g"
    done
    [[ "$(key decode_steps "$g")" == 5 ]] || fail "$name: want 5 decode steps"
    prompt="$(key prompt_ids "$g")"
    ids="$(key generated_ids "$g")"
    [[ $(wc -w <<<"$prompt") == 9 && $(wc -w <<<"$ids") == 6 ]] || fail "$name: ids in:"$'\n'"$g"
    want="$(node "$here/genai_ort_reference.js" "$ort" "$m" "$out/$name.gen" "${prompt// /,}" 5 |
            sed -n 's/^ids: //p')"
    [[ "$ids" == "$want" ]] || fail "$name ($model): vtensor generate ids '$ids', ORT '$want'"
  done
  if [[ -n "$ortgen" ]]; then
    for kv in share copy; do
      o="$("$ortgen" "$m" --prompt-len 9 --new-tokens 6 --seed 11 --kv "$kv")" || fail "$name: vtensor-ort-generate --kv $kv exit $?"
      [[ "$(key generated_ids "$o")" == "$ids" ]] || fail "$name: vtensor-ort-generate --kv $kv ids differ:"$'\n'"$o"
    done
  fi
  [[ "$(key compiled_cache "$g")" == hit* ]] || fail "$name: compiled model not a cache hit"
  [[ "$(key weights_packed_at_load "$g")" == 0 ]] || fail "$name: weights packed at load on a hit"
  echo "$name: ids $ids agree with ORT"
done

# Bad input: exit 2 with the reason on stderr.
expect_exit2() {
  local what="$1" pattern="$2"; shift 2
  local rc=0 err
  err="$("$@" 2>&1 >/dev/null)" || rc=$?
  [[ $rc -eq 2 ]] || fail "$what: exit $rc, want 2"
  grep -q -- "$pattern" <<<"$err" || fail "$what: stderr lacks '$pattern': $err"
}
"$build/vtensor-gen-transformer" -o "$out/plain.onnx" --hidden 32 --ffn 64 --heads 2 --layers 1 --seq 2 --inline >/dev/null
expect_exit2 "plain model" "input 'x' is not input_ids" "$build/vtensor" generate "$out/plain.onnx"
expect_exit2 "prompt beyond max_length" "outside input cos_cache" \
  "$build/vtensor" generate "$out/mha.onnx" --prompt-len 33 --new-tokens 1
expect_exit2 "decode beyond max_length" "outside input cos_cache" \
  "$build/vtensor" generate "$out/mha.onnx" --prompt-len 30 --new-tokens 4
echo "OK: ${#cases[@]} genai decoders agree with ONNX Runtime"
