#!/usr/bin/env bash
# Every model under BAD_DIR (default: tests/contrib_ops/bad) must be refused by `vtensor run`
# with exit code 2 and an error holding each line of its expect.txt (the node, the input by name and index, the
# shapes; for missing kernels every operator with its node count).
# usage: bad_inputs.sh BUILD_DIR [BAD_DIR]
set -uo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail=0 n=0
bad=${2:-$here/bad}
for d in "$bad"/*/; do
  name=$(basename "$d")
  n=$((n + 1))
  out=$("$build/vtensor" run "$d/model.onnx" --data "$d/test_data_set_0" 2>&1)
  rc=$?
  if [[ $rc -ne 2 ]]; then
    echo "FAIL $name: exit $rc (want 2): $out"
    fail=1
    continue
  fi
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    if [[ "$out" != *"$line"* ]]; then
      echo "FAIL $name: error lacks \"$line\": $out"
      fail=1
    fi
  done < "$d/expect.txt"
done
echo "bad_inputs: $n models checked"
exit $fail
