// `vtensor digest MODEL [--tensor NAME] [--algo blake3|sha256]`: one line "NAME ALGO HEX" per
// tensor that compile may cache, the digest of its canonical stream (docs/digest.md) — the
// source_digest a compiled entry for it carries. First the sources (tools/compile_model.h
// CacheableSources: initializers and Constant-node values of every graph), then the weights the
// passes make from them (docs/compiled-tensors.md, "Tensors the passes make"), found as compile
// finds them: by a prepare-only session of the host's CPU.
#include <fmt/core.h>
#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/commands.h"
#include "tools/compile_model.h"
#include "tools/json_types.h"
#include "vtensor/base/blake3.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/runtime/session.h"

namespace vt::cli {
namespace {

// (name, digest) of each weight a prepare-only session of `model` packs that is not among
// `sources`: the tensors its passes made (folded constants, Conv filters with a
// BatchNormalization folded in), in the order the session packs them.
Expected<std::vector<std::pair<std::string, std::string>>> PassMadeDigests(
    const std::string& model, DigestAlgorithm algo, const std::set<std::string>& sources) {
  Status failure;
  std::set<std::string> seen;
  std::vector<std::pair<std::string, std::string>> out;
  auto observe = [&](const std::string& name, const Tensor& src, const PreparedWeight&) {
    if (!failure.ok() || sources.count(name) || !seen.insert(name).second) return;
    auto d = TensorDigest(src, algo);
    if (!d.ok()) {
      failure = d.take_status().WithContext("weight '" + name + "'");
      return;
    }
    out.emplace_back(name, ToHex(reinterpret_cast<const uint8_t*>(d->data()), d->size()));
  };
  auto s = PrepareWeights(model, HostIsa(), WeightProfile::kExact, observe);
  if (!s.ok()) return s.take_status().WithContext("the passes of " + model);
  VT_RETURN_IF_ERROR(failure);
  return out;
}

}  // namespace

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
  auto print = [&](const std::string& name, const std::string& hex) {
    found = true;
    if (a.json) tensors.push_back({{"name", name}, {"digest", hex}});
    else fmt::print("{} {} {}\n", name, a.algo, hex);
  };
  std::set<std::string> sources;
  for (const SourceTensor& src : CacheableSources((*mp)->graph())) {
    sources.insert(src.name);
    if (!a.tensor.empty() && src.name != a.tensor) continue;
    auto d = TensorProtoDigest(*src.tensor, *algo, &resolver, a.model);
    if (!d.ok()) {
      fmt::print(stderr, "error: {}\n", d.take_status().WithContext("tensor '" + src.name + "'").message());
      return 2;
    }
    print(src.name, ToHex(reinterpret_cast<const uint8_t*>(d->data()), d->size()));
  }
  if (a.tensor.empty() || !found) {
    auto made = PassMadeDigests(a.model, *algo, sources);
    if (!made.ok()) {
      fmt::print(stderr, "error: {}\n", made.status().message());
      return 2;
    }
    for (const auto& [name, hex] : *made)
      if (a.tensor.empty() || name == a.tensor) print(name, hex);
  }
  if (!a.tensor.empty() && !found) {
    fmt::print(stderr, "error: {}: no initializer, Constant or weight the passes make named '{}'\n",
               a.model, a.tensor);
    return 2;
  }
  if (a.json) PrintJson({{"model", a.model}, {"algorithm", a.algo}, {"tensors", tensors}});
  return 0;
}

}  // namespace vt::cli
