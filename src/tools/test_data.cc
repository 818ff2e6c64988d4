#include "tools/test_data.h"

#include <sys/stat.h>

#include "vtensor/format/onnx_import.h"

namespace vt {

namespace {
bool Exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}
}  // namespace

Expected<std::vector<Value>> LoadInputs(const Session& s, const std::string& dir) {
  std::vector<Value> out;
  auto ins = s.inputs();
  for (size_t i = 0; i < ins.size(); ++i) {
    std::string p = JoinPath(dir, "input_" + std::to_string(i) + ".pb");
    if (!Exists(p))
      return NotFound(p + ": missing input file for model input '" + ins[i]->name + "'");
    VT_ASSIGN_OR_RETURN(Value v, LoadValueFile(p, ins[i]->spec.type()));
    out.push_back(std::move(v));
  }
  return out;
}

Expected<std::vector<Value>> ZeroInputs(const Session& s) {
  std::vector<Value> out;
  for (const GraphIO* io : s.inputs()) {
    const TypeInfo& t = io->spec.type();
    if (t.kind != TypeInfo::Kind::kTensor)
      return Unimplemented("input '" + io->name + "': zero inputs only for tensors; pass --data");
    Shape shape;
    if (t.shape)
      for (const Dim& d : *t.shape) shape.push_back(d.known() ? d.value : 1);
    DType dt = t.elem == DType::kUndefined ? DType::kFloat32 : t.elem;
    out.emplace_back(Tensor::Zeros(dt, shape));
  }
  return out;
}

Expected<std::vector<std::optional<Value>>> LoadExpectedOutputs(const Session& s,
                                                                const std::string& dir) {
  std::vector<std::optional<Value>> out;
  const auto& outs = s.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string p = JoinPath(dir, "output_" + std::to_string(i) + ".pb");
    if (!Exists(p)) {
      out.emplace_back(std::nullopt);
      continue;
    }
    VT_ASSIGN_OR_RETURN(Value v, LoadValueFile(p, outs[i].spec.type()));
    out.emplace_back(std::move(v));
  }
  return out;
}

}  // namespace vt
