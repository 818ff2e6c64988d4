// `vtensor digest MODEL [--tensor NAME] [--algo blake3|sha256]`: one line "NAME ALGO HEX" per
// tensor that compile may cache (tools/compile_model.h CacheableSources: initializers and
// Constant-node values of every graph), the digest of its canonical stream (docs/digest.md;
// docs/design.md §4) — the source_digest a compiled entry for it carries.
#include <fmt/core.h>
#include <onnx/onnx_pb.h>

#include "tools/commands.h"
#include "tools/compile_model.h"
#include "tools/json_types.h"
#include "vtensor/base/blake3.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/format/tensor_digest.h"

namespace vt::cli {

int DigestCommand(const DigestArgs& a) {
  auto algo = DigestAlgorithmFromName(a.algo);
  if (!algo) {
    fmt::print(stderr, "error: unknown digest algorithm '{}' (blake3 or sha256)\n", a.algo);
    return 2;
  }
  auto mp = ParseModelFile(a.model);
  if (!mp.ok()) {
    fmt::print(stderr, "error: {}\n", mp.status().message());
    return 2;
  }
  ExternalDataResolver resolver(DirName(a.model));
  bool found = false;
  nlohmann::json tensors = nlohmann::json::array();
  for (const SourceTensor& src : CacheableSources((*mp)->graph())) {
    if (!a.tensor.empty() && src.name != a.tensor) continue;
    found = true;
    auto d = TensorProtoDigest(*src.tensor, *algo, &resolver, a.model);
    if (!d.ok()) {
      fmt::print(stderr, "error: {}\n", d.take_status().WithContext("tensor '" + src.name + "'").message());
      return 2;
    }
    const std::string hex = ToHex(reinterpret_cast<const uint8_t*>(d->data()), d->size());
    if (a.json) tensors.push_back({{"name", src.name}, {"digest", hex}});
    else fmt::print("{} {} {}\n", src.name, a.algo, hex);
  }
  if (!a.tensor.empty() && !found) {
    fmt::print(stderr, "error: {}: no initializer or Constant named '{}'\n", a.model, a.tensor);
    return 2;
  }
  if (a.json) PrintJson({{"model", a.model}, {"algorithm", a.algo}, {"tensors", tensors}});
  return 0;
}

}  // namespace vt::cli
