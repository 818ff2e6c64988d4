// Test-only helpers for the shape/data-movement kernels: run one registered kernel on
// in-memory values without building a model, and build attributes and tensors tersely.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "vtensor/exec/kernel.h"

namespace vt::ops::testing {

inline Attribute AttrInt(const std::string& name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInt;
  a.i = v;
  return a;
}
inline Attribute AttrFloat(const std::string& name, float v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}
inline Attribute AttrInts(const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kInts;
  a.ints = std::move(v);
  return a;
}
inline Attribute AttrFloats(const std::string& name, std::vector<float> v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kFloats;
  a.floats = std::move(v);
  return a;
}
inline Attribute AttrString(const std::string& name, std::string v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kString;
  a.s = std::move(v);
  return a;
}
inline Attribute AttrTensor(const std::string& name, Tensor t) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kTensor;
  a.t = std::move(t);
  return a;
}

// Tensor of dtype `dt` and `shape` from doubles (converted per dtype).
inline Tensor MakeTensor(DType dt, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::Empty(dt, shape);
  for (size_t i = 0; i < v.size() && static_cast<int64_t>(i) < t.numel(); ++i) {
    uint8_t* p = static_cast<uint8_t*>(t.raw_mutable_data()) + i * DTypeSize(dt);
    switch (dt) {
      case DType::kFloat32: { float x = static_cast<float>(v[i]); std::memcpy(p, &x, 4); break; }
      case DType::kFloat64: std::memcpy(p, &v[i], 8); break;
      case DType::kInt64: { int64_t x = static_cast<int64_t>(v[i]); std::memcpy(p, &x, 8); break; }
      case DType::kInt32: { int32_t x = static_cast<int32_t>(v[i]); std::memcpy(p, &x, 4); break; }
      case DType::kInt8: { int8_t x = static_cast<int8_t>(v[i]); std::memcpy(p, &x, 1); break; }
      case DType::kUInt8:
      case DType::kBool: { uint8_t x = static_cast<uint8_t>(v[i]); std::memcpy(p, &x, 1); break; }
      case DType::kFloat16: { uint16_t x = FloatToHalf(static_cast<float>(v[i])); std::memcpy(p, &x, 2); break; }
      default: ADD_FAILURE() << "MakeTensor: unsupported dtype"; break;
    }
  }
  return t;
}
inline Tensor F32(const Shape& shape, const std::vector<double>& v) {
  return MakeTensor(DType::kFloat32, shape, v);
}
inline Tensor I64(const Shape& shape, const std::vector<double>& v) {
  return MakeTensor(DType::kInt64, shape, v);
}
// 0, 1, 2, ... as float32.
inline Tensor Iota(const Shape& shape) {
  std::vector<double> v(static_cast<size_t>(NumElements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return F32(shape, v);
}

// Logical elements of a tensor (any layout) as doubles, row-major.
inline std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetDouble(i);
  return v;
}

// Runs the kernel registered for (domain, op, opset) on `inputs`; absent optional inputs
// are passed as Value() with `present` false (use NoInput()).
// Every member has a default initializer, so the usual {op, opset, attrs, inputs} leaves the
// rest at their defaults without -Wmissing-field-initializers.
struct OpCall {
  std::string op{};
  int opset = 17;
  std::vector<Attribute> attrs{};
  std::vector<Value> inputs{};
  std::vector<bool> absent{};  // per input: true = omitted optional input
  size_t num_outputs = 1;
  std::string domain{};  // "" (ONNX) or "com.microsoft"

  Expected<std::vector<Value>> Run() const {
    Node node;
    node.name = "t";
    node.op_type = op;
    node.domain = domain;
    node.opset = opset;
    for (size_t i = 0; i < inputs.size(); ++i)
      node.inputs.push_back(i < absent.size() && absent[i] ? "" : "in" + std::to_string(i));
    for (size_t i = 0; i < num_outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
    for (const auto& a : attrs) node.attrs[a.name] = a;
    const KernelFactory* f = KernelRegistry::Global().Find(domain, op, opset);
    if (f == nullptr) return NotFound("no kernel for " + op);
    Graph g;
    KernelInit init{node, g};
    VT_ASSIGN_OR_RETURN(auto kernel, (*f)(init));
    std::vector<const Value*> ins;
    for (size_t i = 0; i < inputs.size(); ++i)
      ins.push_back(i < absent.size() && absent[i] ? nullptr : &inputs[i]);
    std::vector<Value> outs(num_outputs);
    KernelContext ctx(node, ins, &outs, nullptr, 1);
    VT_RETURN_IF_ERROR(kernel->Compute(ctx));
    return outs;
  }
};

// Convenience: run and return output 0's tensor, failing the test on error.
inline Tensor RunOne(const OpCall& c) {
  auto r = c.Run();
  if (!r.ok()) {
    ADD_FAILURE() << c.op << ": " << r.status().ToString();
    return Tensor();
  }
  return (*r)[0].tensor();
}

}  // namespace vt::ops::testing
