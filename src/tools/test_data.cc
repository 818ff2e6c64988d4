#include "tools/test_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

#include <onnx/onnx_pb.h>

#include "vtensor/base/file.h"
#include "vtensor/graph/onnx_import.h"

namespace vt {

namespace {
bool Exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

uint64_t PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{1} << 40;  // unknown: 1 TiB
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
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
    // A declared shape is untrusted model data: refuse what cannot fit in memory instead of
    // letting the allocation throw.
    const uint64_t limit = PhysicalMemoryBytes();
    bool fits = true;
    uint64_t bytes = DTypeSize(dt);
    for (int64_t d : shape) {
      if (d == 0) {  // an empty tensor fits whatever the other dims say
        fits = true;
        break;
      }
      if (bytes > limit / static_cast<uint64_t>(d)) fits = false;
      else bytes *= static_cast<uint64_t>(d);
    }
    if (!fits)
      return InvalidArgument("input '" + io->name + "': zeros of the declared shape " +
                             ShapeToString(shape) + " would not fit in memory (" +
                             std::to_string(limit) + " bytes); pass --data");
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

Status SaveOutputs(const Session& s, const std::vector<Value>& outputs, const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return IoError("cannot create directory '" + dir + "'");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = s.outputs()[i].name;
    if (!outputs[i].is_tensor())
      return InvalidArgument("output '" + name + "' is not a tensor; --save-outputs writes tensors");
    onnx::TensorProto tp;
    TensorToProto(outputs[i].tensor().Contiguous(), name, &tp);
    VT_RETURN_IF_ERROR(
        WriteFileAtomic(dir + "/output_" + std::to_string(i) + ".pb", tp.SerializeAsString()));
  }
  return Status::Ok();
}

}  // namespace vt
