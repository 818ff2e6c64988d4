#!/usr/bin/env bash
# The plugins are loaded on demand (base/plugin.h, docs/install.md): a run of a model whose
# every operator has a kernel maps neither libvtensor-onnxdefs.so nor libonnx, while `vtensor
# check`, which runs ONNX's checker, loads the ONNX operator definitions plugin and passes;
# without the plugin check exits 2 and passes notes the missing shape inference. The
# dynamic loader's own trace (LD_DEBUG=files) says which files a process opened.
#
# usage: tests/cli/plugins_on_demand.sh BUILD_DIR     (ctest: cli_plugins_on_demand)
set -euo pipefail
BUILD="$(cd "${1:?usage: plugins_on_demand.sh BUILD_DIR}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
die() { echo "plugins_on_demand: FAIL: $*" >&2; exit 1; }

"$BUILD/vtensor-make-compiled-model" "$WORK" >/dev/null
MODEL="$WORK/stock.onnx"

LD_DEBUG=files "$BUILD/vtensor" run "$MODEL" --random-inputs >"$WORK/run.log" 2>&1 ||
  { cat "$WORK/run.log"; die "vtensor run failed"; }
grep -q "file=.*libonnx_proto.so" "$WORK/run.log" || die "the trace lists no libonnx_proto: LD_DEBUG not honoured?"
if grep -E "file=.*(libvtensor-onnxdefs|libonnx\.so)" "$WORK/run.log"; then
  die "a plain run loaded ONNX's operator definitions"
fi

LD_DEBUG=files "$BUILD/vtensor" check "$MODEL" >"$WORK/check.log" 2>&1 ||
  { cat "$WORK/check.log"; die "vtensor check failed"; }
grep -q "file=.*libvtensor-onnxdefs.so" "$WORK/check.log" || die "check did not load the plugin"

# Without the plugin, check cannot be made: an error of the tool (exit 2, not 1 for findings)
# that says what is missing and where it looked.
rc=0
VTENSOR_ONNXDEFS=/nonexistent/libvtensor-onnxdefs.so "$BUILD/vtensor" check "$MODEL" \
  >"$WORK/missing.log" 2>&1 || rc=$?
[[ $rc == 2 ]] || { cat "$WORK/missing.log"; die "check without the plugin exited $rc, not 2"; }
grep -q "needs vtensor's ONNX operator definitions plugin (libvtensor-onnxdefs.so)" "$WORK/missing.log" ||
  { cat "$WORK/missing.log"; die "no clear error without the plugin"; }
# passes infers shapes with it; without it, a note says the types are the model's own.
VTENSOR_ONNXDEFS=/nonexistent/libvtensor-onnxdefs.so "$BUILD/vtensor" passes "$MODEL" \
  >/dev/null 2>"$WORK/passes.log" || { cat "$WORK/passes.log"; die "passes failed without the plugin"; }
grep -q "note: values keep the types the model declares: shape inference needs" "$WORK/passes.log" ||
  { cat "$WORK/passes.log"; die "passes said nothing of the missing shape inference"; }
echo "plugins_on_demand: ok"
