#!/usr/bin/env bash
# ctest transformer_fusion: the transformer models of generate.py (1 layer each) run fused by a
# Session, outputs within rtol 1e-3 / atol 1e-4 of the float64 numpy reference on every kernel
# architecture (native, AVX2, baseline: each fused operator's vector rows and scalar twin), and
# `vtensor passes --session` shows every pattern fused: the expected fused operators per model
# and none of the ops the decompositions are made of (docs/transformer-fusion.md).
# usage: tests/transformers/fusion_test.sh BUILD_DIR
set -euo pipefail
BUILD="${1:?usage: fusion_test.sh BUILD_DIR}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VTENSOR="$BUILD/vtensor"
PY=/usr/bin/python3
"$PY" -c 'import onnx, numpy' 2>/dev/null || { echo "skip: python3 with onnx and numpy missing"; exit 77; }
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
"$PY" "$ROOT/tests/transformers/generate.py" --out "$DIR" --layers 1 >/dev/null

fail=0
# expect CASE "OP=COUNT ..." : fused operator counts in the printed session graph.
expect() {
  local c="$1" want="$2" graph
  for arch in native x86_64-avx2 x86_64-baseline; do
    if ! "$VTENSOR" run "$DIR/$c/model.onnx" --data "$DIR/$c/test_data_set_0" --rtol 1e-3 --atol 1e-4 \
        --arch "$arch" >"$DIR/$c.run" 2>&1; then
      echo "FAIL $c ($arch): outputs differ from the reference"; cat "$DIR/$c.run"; fail=1
    fi
  done
  graph="$("$VTENSOR" passes --session "$DIR/$c/model.onnx")"
  for kv in $want; do
    local op="${kv%=*}" n="${kv#*=}" got
    got="$(grep -cE "^  node '[^']*' ${op//./\\.}\(" <<<"$graph" || true)"
    [[ "$got" == "$n" ]] || { echo "FAIL $c: $got $op nodes, expected $n"; fail=1; }
  done
  # The ops of the fused decompositions (the pooler's Tanh and the mask and shape subgraphs stay).
  for op in Softmax Erf Sigmoid ReduceMean Pow Sqrt Reciprocal Neg Expand; do
    if grep -qE "^  node '[^']*' $op\(" <<<"$graph"; then echo "FAIL $c: a $op node is left"; fail=1; fi
  done
  echo "ok $c: $(grep -E '^pass fuse' <<<"$graph" | tr '\n' ' ')"
}
expect bert "ai.vtensor.Attention=1 ai.vtensor.Dense=6 com.microsoft.SkipLayerNormalization=2 LayerNormalization=1"
expect bert_ln17_tanh "ai.vtensor.Attention=1 ai.vtensor.Dense=6 com.microsoft.SkipLayerNormalization=2 LayerNormalization=1"
expect llama_prefill "ai.vtensor.Attention=1 ai.vtensor.RotaryEmbedding=2 ai.vtensor.Dense=1 com.microsoft.SkipSimplifiedLayerNormalization=2 RMSNormalization=1"
expect llama_decode "ai.vtensor.Attention=1 ai.vtensor.RotaryEmbedding=2 ai.vtensor.Dense=1 com.microsoft.SkipSimplifiedLayerNormalization=2 RMSNormalization=1"
exit $fail
