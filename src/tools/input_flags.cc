#include "tools/input_flags.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <set>

#include "tools/npy.h"
#include "tools/test_data.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/graph/type_info.h"
#include "vtensor/layout/layout.h"

namespace vt::cli {

namespace {

uint64_t PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{1} << 40;  // unknown: 1 TiB
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

// A shape taken from untrusted model data or flags: refuse what cannot fit in memory instead
// of letting the allocation throw.
Status CheckFitsInMemory(const std::string& input, DType dt, const Shape& shape) {
  const uint64_t limit = PhysicalMemoryBytes();
  uint64_t bytes = DTypeSize(dt);
  for (int64_t d : shape) {
    if (d == 0) return Status::Ok();  // an empty tensor fits whatever the other dims say
    if (bytes > limit / static_cast<uint64_t>(d))
      return InvalidArgument("input '" + input + "': a tensor of shape " + ShapeToString(shape) +
                             " would not fit in memory (" + std::to_string(limit) + " bytes)");
    bytes *= static_cast<uint64_t>(d);
  }
  return Status::Ok();
}

// NAME=VALUE with VALUE a non-negative integer.
Status ParseFreeDim(const std::string& s, std::map<std::string, int64_t>* out) {
  const size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    return InvalidArgument("--free-dim '" + s + "': expected DIM_PARAM=VALUE (e.g. batch=1)");
  const std::string v = s.substr(eq + 1);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || n < 0)
    return InvalidArgument("--free-dim '" + s + "': '" + v + "' is not a non-negative integer");
  (*out)[s.substr(0, eq)] = n;
  return Status::Ok();
}

// Shell-style hint listing what the user could pass for input `io`.
std::string ShapeHint(const GraphIO& io) {
  std::string dims;
  const auto& shape = *io.spec.type().shape;
  for (size_t i = 0; i < shape.size(); ++i)
    dims += (i ? "x" : "") + (shape[i].known() ? std::to_string(shape[i].value) : std::string("N"));
  return "--input-shape " + io.name + "=" + (dims.empty() ? "D0xD1..." : dims);
}

// A tensor read from `path` for input `io`: an element type, rank or dimension the model
// declares otherwise is the file's error, named by the file (the run would name only the model
// and the input).
Expected<Value> CheckedInput(const GraphIO& io, const std::string& path, Value v) {
  const TypeInfo& t = io.spec.type();
  if (t.kind != TypeInfo::Kind::kTensor || !v.is_tensor()) return v;
  const Tensor& x = v.tensor();
  if (t.elem != DType::kUndefined && x.dtype() != t.elem)
    return InvalidArgument(path + ": holds " + DTypeName(x.dtype()) + " but input '" + io.name +
                           "' is " + DTypeName(t.elem));
  if (!t.shape) return v;
  const SymShape& declared = *t.shape;
  const std::string holds = path + ": holds shape " + ShapeToString(x.shape()) + " but input '" +
                            io.name + "' is declared " + SymShapeToString(declared);
  if (static_cast<int>(declared.size()) != x.rank()) return InvalidArgument(holds + " (rank)");
  for (size_t d = 0; d < declared.size(); ++d)
    if (declared[d].known() && declared[d].value != x.dim(static_cast<int>(d)))
      return InvalidArgument(holds + " (dim " + std::to_string(d) + ")");
  return v;
}

Expected<Value> LoadInputFile(const GraphIO& io, const std::string& path) {
  const bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  if (!npy) {
    VT_ASSIGN_OR_RETURN(Value v, LoadValueFile(path, io.spec.type()));
    return CheckedInput(io, path, std::move(v));
  }
  VT_ASSIGN_OR_RETURN(Tensor t, ReadNpy(path));
  return CheckedInput(io, path, Value(std::move(t)));
}

}  // namespace

void AddInputFlags(CLI::App* cmd, InputFlags* f) {
  cmd->add_option("--data", f->data_dir, "directory with input_N.pb (and output_N.pb)");
  auto multi = [](CLI::Option* o) {
    o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };
  multi(cmd->add_option("--input", f->files,
                        "NAME=FILE: input from a .npy file or a TensorProto (.pb) (repeatable)"));
  multi(cmd->add_option("--input-shape", f->input_shapes,
                        "NAME=D0xD1x...: shape of a generated input (repeatable)"));
  multi(cmd->add_option("--free-dim", f->free_dims,
                        "DIM_PARAM=VALUE: bind a symbolic dim in every input (repeatable)"));
  cmd->add_flag("--random-inputs", f->random,
                "generated inputs are random (floats in [-1,1), ints in [-4,4]) instead of zeros");
  cmd->add_option("--seed", f->seed, "seed of --random-inputs (default 0)");
}

Status ParseShapeAssignment(const std::string& flag, const std::string& s,
                            std::map<std::string, Shape>* out) {
  const size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return InvalidArgument(flag + " '" + s + "': expected NAME=D0xD1x... (e.g. x=1x3x224x224)");
  Shape shape;
  const std::string dims = s.substr(eq + 1);
  size_t pos = 0;
  while (!dims.empty() && pos <= dims.size()) {  // "x=" is a scalar
    size_t x = dims.find('x', pos);
    if (x == std::string::npos) x = dims.size();
    const std::string d = dims.substr(pos, x - pos);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(d.c_str(), &end, 10);
    if (d.empty() || *end != '\0' || errno != 0 || v < 0)
      return InvalidArgument(
          fmt::format("{} '{}': dim '{}' is not a non-negative integer", flag, s, d));
    shape.push_back(v);
    pos = x + 1;
  }
  (*out)[s.substr(0, eq)] = shape;
  return Status::Ok();
}

Expected<Shape> ResolveInputShape(const GraphIO& io, const std::map<std::string, Shape>& shapes,
                                  const std::map<std::string, int64_t>& free_dims) {
  const TypeInfo& t = io.spec.type();
  auto given = shapes.find(io.name);
  if (given != shapes.end()) {
    if (!t.shape) return given->second;
    const SymShape& decl = *t.shape;
    if (decl.size() != given->second.size())
      return InvalidArgument("--input-shape " + io.name + ": rank " +
                             std::to_string(given->second.size()) + " but input '" + io.name +
                             "' is declared " + SymShapeToString(decl));
    for (size_t i = 0; i < decl.size(); ++i)
      if (decl[i].known() && decl[i].value != given->second[i])
        return InvalidArgument("--input-shape " + io.name + ": dim " + std::to_string(i) + " is " +
                               std::to_string(given->second[i]) + " but input '" + io.name +
                               "' is declared " + SymShapeToString(decl));
    return given->second;
  }
  if (!t.shape)
    return InvalidArgument("input '" + io.name + "' has an unknown rank: pass --input-shape " +
                           io.name + "=D0xD1x... (or --input " + io.name + "=FILE)");
  Shape shape;
  for (size_t i = 0; i < t.shape->size(); ++i) {
    const Dim& d = (*t.shape)[i];
    if (d.known()) {
      shape.push_back(d.value);
      continue;
    }
    auto f = d.param.empty() ? free_dims.end() : free_dims.find(d.param);
    if (f != free_dims.end()) {
      shape.push_back(f->second);
      continue;
    }
    if (!d.param.empty())
      return InvalidArgument("input '" + io.name + "' " + SymShapeToString(*t.shape) + ": dim " +
                             std::to_string(i) + " is the symbolic '" + d.param +
                             "': pass --free-dim " + d.param + "=N or " + ShapeHint(io));
    return InvalidArgument("input '" + io.name + "' " + SymShapeToString(*t.shape) + ": dim " +
                           std::to_string(i) + " is unknown (no dim_param): pass " + ShapeHint(io));
  }
  return shape;
}

Tensor RandomTensor(DType dtype, const Shape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t = Tensor::Empty(dtype, shape);
  const int64_t n = t.numel();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> sint(-4, 4), uint(0, 8), bit(0, 1), letters(0, 25), len(1, 8);
  auto fill = [&](auto* p, auto gen) {
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<std::remove_pointer_t<decltype(p)>>(gen());
  };
  switch (dtype) {
    case DType::kFloat32: fill(t.mutable_data<float>(), [&] { return real(rng); }); break;
    case DType::kFloat64: fill(t.mutable_data<double>(), [&] { return real(rng); }); break;
    case DType::kFloat16:
      fill(t.mutable_data<uint16_t>(), [&] { return FloatToHalf(static_cast<float>(real(rng))); });
      break;
    case DType::kBFloat16:
      fill(t.mutable_data<uint16_t>(),
           [&] { return FloatToBFloat16(static_cast<float>(real(rng))); });
      break;
    case DType::kComplex64: {
      float* p = t.mutable_data<float>();
      for (int64_t i = 0; i < 2 * n; ++i) p[i] = static_cast<float>(real(rng));
      break;
    }
    case DType::kComplex128: {
      double* p = t.mutable_data<double>();
      for (int64_t i = 0; i < 2 * n; ++i) p[i] = real(rng);
      break;
    }
    case DType::kInt8: fill(t.mutable_data<int8_t>(), [&] { return sint(rng); }); break;
    case DType::kInt16: fill(t.mutable_data<int16_t>(), [&] { return sint(rng); }); break;
    case DType::kInt32: fill(t.mutable_data<int32_t>(), [&] { return sint(rng); }); break;
    case DType::kInt64: fill(t.mutable_data<int64_t>(), [&] { return sint(rng); }); break;
    case DType::kUInt8: fill(t.mutable_data<uint8_t>(), [&] { return uint(rng); }); break;
    case DType::kUInt16: fill(t.mutable_data<uint16_t>(), [&] { return uint(rng); }); break;
    case DType::kUInt32: fill(t.mutable_data<uint32_t>(), [&] { return uint(rng); }); break;
    case DType::kUInt64: fill(t.mutable_data<uint64_t>(), [&] { return uint(rng); }); break;
    case DType::kBool: fill(t.mutable_data<bool>(), [&] { return bit(rng); }); break;
    case DType::kString: {
      std::string* p = t.mutable_data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        p[i].clear();
        for (int k = len(rng); k > 0; --k) p[i] += static_cast<char>('a' + letters(rng));
      }
      break;
    }
    default: break;  // kUndefined never reaches here (callers pick float32)
  }
  return t;
}

Expected<std::vector<Value>> MakeInputs(const Session& s, const InputFlags& f) {
  std::map<std::string, Shape> shapes;
  std::map<std::string, int64_t> free_dims;
  std::map<std::string, std::string> files;
  for (const auto& v : f.input_shapes) VT_RETURN_IF_ERROR(ParseShapeAssignment("--input-shape", v, &shapes));
  for (const auto& v : f.free_dims) VT_RETURN_IF_ERROR(ParseFreeDim(v, &free_dims));
  for (const auto& v : f.files) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
      return InvalidArgument("--input '" + v + "': expected NAME=FILE (.npy or TensorProto .pb)");
    files[v.substr(0, eq)] = v.substr(eq + 1);
  }
  std::set<std::string> names;
  for (const GraphIO* io : s.inputs()) names.insert(io->name);
  auto check_names = [&](const char* flag, const auto& m) -> Status {
    for (const auto& [name, unused] : m)
      if (!names.count(name)) {
        return InvalidArgument(fmt::format("{} names '{}', which is not a model input (inputs: {})",
                                           flag, name, fmt::join(names, ", ")));
      }
    return Status::Ok();
  };
  VT_RETURN_IF_ERROR(check_names("--input", files));
  VT_RETURN_IF_ERROR(check_names("--input-shape", shapes));
  if (!f.data_dir.empty()) {
    struct stat st {};
    if (::stat(f.data_dir.c_str(), &st) != 0)
      return NotFound("--data '" + f.data_dir + "': no such directory");
    if (!S_ISDIR(st.st_mode))
      return InvalidArgument("--data '" + f.data_dir +
                             "': not a directory (a test data set directory holding input_N.pb)");
  }
  std::vector<Value> out;
  const auto ins = s.inputs();
  for (size_t i = 0; i < ins.size(); ++i) {
    const GraphIO& io = *ins[i];
    if (auto it = files.find(io.name); it != files.end()) {
      VT_ASSIGN_OR_RETURN(Value v, LoadInputFile(io, it->second));
      out.push_back(std::move(v));
      continue;
    }
    if (!f.data_dir.empty()) {
      VT_ASSIGN_OR_RETURN(Value v, LoadInput(s, f.data_dir, i));
      VT_ASSIGN_OR_RETURN(v, CheckedInput(io, InputFilePath(f.data_dir, i), std::move(v)));
      out.push_back(std::move(v));
      continue;
    }
    const TypeInfo& t = io.spec.type();
    if (t.kind != TypeInfo::Kind::kTensor)
      return Unimplemented("input '" + io.name + "' is not a tensor: pass --input " + io.name +
                           "=FILE.pb or --data DIR");
    VT_ASSIGN_OR_RETURN(Shape shape, ResolveInputShape(io, shapes, free_dims));
    const DType dt = t.elem == DType::kUndefined ? DType::kFloat32 : t.elem;
    VT_RETURN_IF_ERROR(CheckFitsInMemory(io.name, dt, shape));
    // Each input gets its own stream so adding an input does not change the others' values.
    out.emplace_back(f.random ? RandomTensor(dt, shape, f.seed * 1000003u + i)
                              : Tensor::Zeros(dt, shape));
  }
  return out;
}

}  // namespace vt::cli
