#!/usr/bin/env bash
# vtensor-ort-bench (bench/ort/, ONNX Runtime through its C API) on every real model: ORT must
# reproduce the checked-in reference outputs (they are ORT 1.30's own, so the difference shows
# whether the program's TensorProto reader fed the same inputs as vtensor), print every figure
# scripts/compare_ort.sh and `vtensor bench-load` read, and refuse bad input with exit 2.
# Exit 77 (skipped) when node or npm is missing (scripts/build_ort_bench.sh fetches ORT).
# usage: ort_bench_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rc=0
bench="$("$root/scripts/build_ort_bench.sh" --build "$build")" || rc=$?
[[ $rc -eq 77 ]] && { echo "node/npm missing: skipped"; exit 77; }
[[ $rc -eq 0 ]] || { echo "build_ort_bench.sh failed ($rc)" >&2; exit 1; }
cache="$("$root/scripts/fetch_models.sh" --print-cache)"
refcases="$root/tests/data/refcases"
fail() { echo "FAIL: $*" >&2; exit 1; }

mapfile -t cases < <(node -e 'console.log(Object.keys(require(process.argv[1]).models).join("\n"))' \
  "$refcases/index.json")
for case in "${cases[@]}"; do
  out="$("$bench" "$cache/$case/model.onnx" --data "$refcases/$case/test_data_set_0" --runs 3 --warmup 0)" ||
    fail "$case: exit $?"
  for key in session_create_ms first_run_ms first_result_ms first_result_cpu_ms median_ms p90_ms min_ms \
             first_run_cpu_ms median_cpu_ms vm_hwm_kb; do
    grep -Eq "^$key: [0-9.]+$" <<<"$out" || fail "$case: no numeric '$key' in:"$'\n'"$out"
  done
  diffs="$(sed -n 's/^max_abs_diff: *//p' <<<"$out")"
  echo "$case: max |ORT - reference| = $diffs"
  # Every output has a reference, and ORT reproduces its own outputs.
  awk -v d="$diffs" 'BEGIN { n = split(d, a, ", "); for (i = 1; i <= n; ++i)
    if (a[i] !~ /^[0-9.e+-]+$/ || a[i] + 0 > 1e-5) exit 1 }' || fail "$case: max_abs_diff '$diffs'"
done

# --runs 0: session creation only (what bench-load times).
case="${cases[0]}"
out="$("$bench" "$cache/$case/model.onnx" --runs 0)" || fail "--runs 0: exit $?"
grep -Eq '^session_create_ms: [0-9.]+$' <<<"$out" || fail "--runs 0: no session_create_ms"
grep -q '^median_ms' <<<"$out" && fail "--runs 0 must not run the model"

# Bad input: exit 2 with a message naming the problem.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_exit2() {  # PATTERN ARGS...
  local pattern="$1" got=0 msg
  shift
  msg="$("$bench" "$@" 2>&1)" || got=$?
  [[ $got -eq 2 ]] || fail "'$*' exited $got, want 2"
  grep -q -- "$pattern" <<<"$msg" || fail "'$*': message '$msg' lacks '$pattern'"
}
expect_exit2 "usage" 
expect_exit2 "--data DIR is needed" "$cache/$case/model.onnx" --runs 2
expect_exit2 "unknown or incomplete argument" "$cache/$case/model.onnx" --frobnicate
expect_exit2 "$tmp/none.onnx" "$tmp/none.onnx" --runs 0
cp -r "$refcases/$case/test_data_set_0" "$tmp/data"
head -c 100 "$refcases/$case/test_data_set_0/input_0.pb" >"$tmp/data/input_0.pb"
expect_exit2 "$tmp/data/input_0.pb" "$cache/$case/model.onnx" --data "$tmp/data" --runs 1
echo "ok"
