// libFuzzer target: model parsing (stock ModelProto + extension fields 27-29) and the full
// checker with --decode. Invariants: never crash, and a parsed model
// re-serializes into bytes that parse again.
#include <cstdint>

#include "vtensor/format/model_checker.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A directory that does not exist: external locations resolve to NotFound, never to files.
  auto m = vt::ParseCompiledModel(data, size, "/nonexistent-vt-fuzz/model.onnx");
  if (!m.ok()) return 0;
  vt::CheckOptions opts;
  opts.decode = true;
  auto findings = vt::CheckCompiledModel(*m, opts);
  for (const auto& f : findings)
    if (f.rule.empty() || f.message.empty()) __builtin_trap();
  auto bytes = vt::SerializeCompiledModel(*m);
  if (bytes.ok()) {
    auto again = vt::ParseCompiledModel(bytes->data(), bytes->size(), m->path);
    if (!again.ok() || again->ext.SerializeAsString() != m->ext.SerializeAsString()) __builtin_trap();
  }
  return 0;
}
