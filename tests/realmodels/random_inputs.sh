#!/usr/bin/env bash
# `vtensor run --random-inputs` and `vtensor bench` on the five real models without --data: the
# bare command must fail naming the input, the dim and the flag; with --free-dim /
# --input-shape it must run and print the outputs' shapes and the latency percentiles. Saved
# .npy outputs must load in NumPy with the printed shape, be identical for one seed and differ
# for another (docs/cli.md, "Inputs").
# usage: random_inputs.sh VTENSOR_BIN
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 VTENSOR_BIN" >&2; exit 2; }
vtensor="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="$("$root/scripts/fetch_models.sh" --print-cache)"
refcases="$root/tests/data/refcases"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_output CODE SUBSTRING CMD...: CMD exits with CODE and prints SUBSTRING.
expect_output() {
  local code="$1" want="$2"; shift 2
  local out rc=0
  out="$("$@" 2>&1)" || rc=$?
  [[ $rc -eq $code ]] || fail "exit $rc (want $code): $*"$'\n'"$out"
  [[ "$out" == *"$want"* ]] || fail "no '$want' in the output of: $*"$'\n'"$out"
  echo "ok: $* -> exit $code, '$want'"
}

# case | message of the bare run | flags | the first output's line
cases=(
  "ch_PP-OCRv4_det_infer|dim 0 is the symbolic 'p2o.DynamicDimension.0': pass --free-dim|--input-shape x=1x3x64x96|sigmoid_0.tmp_0  float32[1,1,64,96]"
  "ch_PP-OCRv4_rec_infer|input 'x' [p2o.DynamicDimension.0,3,48,p2o.DynamicDimension.1]|--free-dim p2o.DynamicDimension.0=1 --free-dim p2o.DynamicDimension.1=160|softmax_11.tmp_0  float32[1,20,6625]"
  "ch_ppocr_mobile_v2.0_cls_infer|--input-shape x=Nx3xNxN|--input-shape x=2x3x48x192|softmax_0.tmp_0  float32[2,2]"
  "silero_vad_16k_op15|dim 0 is the symbolic 'batch': pass --free-dim batch=N|--free-dim batch=1 --free-dim sequence=512|output  float32[1,1]"
  "silero_vad_v5|input 'input' [?,?]: dim 0 is unknown (no dim_param): pass --input-shape input=NxN|--input-shape input=1x512 --input-shape state=2x1x128 --input sr=$refcases/silero_vad_v5/test_data_set_0/input_2.pb|output  float32[1,1]"
)

for row in "${cases[@]}"; do
  IFS='|' read -r case bare flags line <<<"$row"
  model="$cache/$case/model.onnx"
  [[ -f "$model" ]] || fail "model not in the cache: $model (scripts/fetch_models.sh fetches it)"
  read -r -a args <<<"$flags"
  expect_output 2 "$bare" "$vtensor" run "$model"
  expect_output 0 "$line" "$vtensor" run "$model" --random-inputs "${args[@]}"
  expect_output 0 "p99_ms:" "$vtensor" bench "$model" --random-inputs --runs 3 --warmup 0 "${args[@]}"
  for seed in 1 1b 2; do
    expect_output 0 "$line" "$vtensor" run "$model" --random-inputs --seed "${seed%b}" "${args[@]}" \
      --save-outputs "$tmp/$case.$seed" --save-format npy
  done
  cmp -s "$tmp/$case.1/output_0.npy" "$tmp/$case.1b/output_0.npy" || fail "$case: seed 1 twice differs"
  cmp -s "$tmp/$case.1/output_0.npy" "$tmp/$case.2/output_0.npy" && fail "$case: seeds 1 and 2 agree"
  shape="${line##*[}"
  shape="${shape%]}"
  if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    /usr/bin/python3 - "$tmp/$case.1/output_0.npy" "$shape" <<'PY' || fail "$case: NumPy disagrees"
import sys, numpy as np
a = np.load(sys.argv[1])
want = tuple(int(d) for d in sys.argv[2].split(","))
assert a.shape == want and a.dtype == np.float32 and np.isfinite(a).all(), (a.shape, a.dtype)
print("ok: numpy loads", sys.argv[1], a.shape)
PY
  fi
done
echo "PASS"
