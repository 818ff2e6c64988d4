#include "tools/test_data.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <onnx/onnx_pb.h>

#include "tools/npy.h"
#include "vtensor/base/file.h"
#include "vtensor/graph/onnx_import.h"

namespace vt {

namespace {
bool Exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}
}  // namespace

std::string InputFilePath(const std::string& dir, size_t i) {
  return JoinPath(dir, "input_" + std::to_string(i) + ".pb");
}

Expected<Value> LoadInput(const Session& s, const std::string& dir, size_t i) {
  const GraphIO& io = *s.inputs()[i];
  std::string p = InputFilePath(dir, i);
  if (!Exists(p)) return NotFound(p + ": missing input file for model input '" + io.name + "'");
  return LoadValueFile(p, io.spec.type());
}

Expected<std::vector<Value>> LoadInputs(const Session& s, const std::string& dir) {
  std::vector<Value> out;
  for (size_t i = 0; i < s.inputs().size(); ++i) {
    VT_ASSIGN_OR_RETURN(Value v, LoadInput(s, dir, i));
    out.push_back(std::move(v));
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

Status SaveOutputs(const Session& s, const std::vector<Value>& outputs, const std::string& dir,
                   const std::string& format) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return IoError("cannot create directory '" + dir + "': " + std::strerror(errno));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = s.outputs()[i].name;
    if (!outputs[i].is_tensor())
      return InvalidArgument("output '" + name + "' is not a tensor; --save-outputs writes tensors");
    if (format == "npy") {
      VT_RETURN_IF_ERROR(
          WriteNpy(dir + "/output_" + std::to_string(i) + ".npy", outputs[i].tensor()));
      continue;
    }
    onnx::TensorProto tp;
    TensorToProto(outputs[i].tensor().Contiguous(), name, &tp);
    VT_RETURN_IF_ERROR(
        WriteFileAtomic(dir + "/output_" + std::to_string(i) + ".pb", tp.SerializeAsString()));
  }
  return Status::Ok();
}

}  // namespace vt
