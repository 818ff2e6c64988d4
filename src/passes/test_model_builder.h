// Test-only: builds small ONNX models in memory with the onnx protobuf classes, for the pass
// and export tests (the project never reads shared reference models at test time).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vtensor/graph/onnx_import.h"

namespace vt::testing {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int64_t opset = 17) {
    proto_.set_ir_version(8);
    proto_.set_producer_name("vtensor-test");
    proto_.add_opset_import()->set_version(opset);
    proto_.mutable_graph()->set_name("main");
  }

  // dims: -1 is a symbolic dim "N".
  OnnxBuilder& Input(const std::string& name, const std::vector<int64_t>& dims,
                     int elem = onnx::TensorProto::FLOAT) {
    Io(proto_.mutable_graph()->add_input(), name, dims, elem);
    return *this;
  }
  OnnxBuilder& Output(const std::string& name, const std::vector<int64_t>& dims,
                      int elem = onnx::TensorProto::FLOAT) {
    Io(proto_.mutable_graph()->add_output(), name, dims, elem);
    return *this;
  }
  OnnxBuilder& Init(const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& values) {
    auto* t = proto_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    std::string raw(values.size() * 4, '\0');
    if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
    t->set_raw_data(raw);
    return *this;
  }
  OnnxBuilder& InitI64(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
    auto* t = proto_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *this;
  }
  // Deterministic pseudo-random weights in [-1, 1).
  OnnxBuilder& RandomInit(const std::string& name, const std::vector<int64_t>& dims,
                          uint32_t seed = 1) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    // mt19937's sequence is fixed by the standard (distributions are not): golden files
    // built from these weights are the same with every standard library.
    std::mt19937 rng(seed);
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = static_cast<float>(rng() >> 8) * (2.0f / 16777216.0f) - 1.0f;
    return Init(name, dims, v);
  }
  onnx::NodeProto& Node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out, const std::string& name = "") {
    auto* n = proto_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(proto_.graph().node_size() - 1) : name);
    for (const auto& s : in) n->add_input(s);
    for (const auto& s : out) n->add_output(s);
    return *n;
  }
  static void AttrI(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void AttrF(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void AttrS(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  static void AttrInts(onnx::NodeProto& n, const std::string& name,
                       const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void AttrFloats(onnx::NodeProto& n, const std::string& name,
                         const std::vector<float>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float x : v) a->add_floats(x);
  }
  // A Constant node holding an int64 tensor.
  void ConstI64(const std::string& out, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& values) {
    auto& n = Node("Constant", {}, {out});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  }

  onnx::ModelProto& proto() { return proto_; }
  Expected<Model> Import() const { return ImportModel(proto_, "test.onnx"); }

 private:
  static void Io(onnx::ValueInfoProto* vi, const std::string& name,
                 const std::vector<int64_t>& dims, int elem) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      if (d < 0) shape->add_dim()->set_dim_param("N");
      else shape->add_dim()->set_dim_value(d);
    }
  }
  onnx::ModelProto proto_;
};

}  // namespace vt::testing
