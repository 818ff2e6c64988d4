#!/usr/bin/env bash
# `vtensor digest` lists every tensor `vtensor compile` caches (sources and the weights the passes
# make, e.g. Conv filters with a BatchNormalization folded in): on each real model (the PaddleOCR
# ones keep all weights in Constant nodes), each compiled entry's source_name and source_digest
# (`inspect --json`) appear as a line "NAME blake3 HEX" of `digest`, and `digest --tensor NAME`
# finds a Constant-node weight.
# usage: digest_matches_compile.sh VTENSOR_BIN
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 VTENSOR_BIN" >&2; exit 2; }
vtensor="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="$("$root/scripts/fetch_models.sh" --print-cache)"
command -v /usr/bin/python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for case in ch_PP-OCRv4_det_infer ch_PP-OCRv4_rec_infer ch_ppocr_mobile_v2.0_cls_infer silero_vad_16k_op15; do
  model="$cache/$case/model.onnx"
  [[ -f "$model" ]] || { echo "FAIL: model not in the cache: $model" >&2; exit 1; }
  "$vtensor" compile "$model" -o "$tmp/$case.onnx" --no-progress
  "$vtensor" inspect "$tmp/$case.onnx" --json >"$tmp/$case.json"
  "$vtensor" digest "$model" >"$tmp/$case.digest"
  /usr/bin/python3 - "$tmp/$case.json" "$tmp/$case.digest" "$case" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["compiled_tensors"]
lines = set(open(sys.argv[2]).read().splitlines())
assert entries, f"{sys.argv[3]}: compile cached nothing"
missing = [e["source_name"] for e in entries
           if f'{e["source_name"]} {e["digest_algorithm"]} {e["source_digest"]}' not in lines]
assert not missing, f"{sys.argv[3]}: digest lacks {len(missing)} of {len(entries)}: {missing[:5]}"
print(f"ok: {sys.argv[3]}: {len(entries)} compiled entries, all listed by digest ({len(lines)} lines)")
PY
  first="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["compiled_tensors"][0]["source_name"])' "$tmp/$case.json")"
  got="$("$vtensor" digest "$model" --tensor "$first")"
  grep -qxF "$got" "$tmp/$case.digest" || { echo "FAIL: digest --tensor $first: '$got'" >&2; exit 1; }
done
echo PASS
