#include "model_builder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <fstream>

namespace vt::testing {

onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  std::string raw(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  t.set_raw_data(raw);
  return t;
}

onnx::TensorProto Int64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

void AddFloatIO(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::ModelProto AddModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("vtensor-cli-test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("add");
  AddFloatIO(g->add_input(), "x", {2, 3});
  AddFloatIO(g->add_output(), "y", {2, 3});
  *g->add_initializer() = FloatTensor("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* n = g->add_node();
  n->set_name("add0");
  n->set_op_type("Add");
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  return m;
}

onnx::ModelProto MatMulModel() {
  onnx::ModelProto m = AddModel();
  auto* g = m.mutable_graph();
  g->mutable_input(0)->Clear();
  AddFloatIO(g->mutable_input(0), "x", {4, 64});
  g->mutable_output(0)->Clear();
  AddFloatIO(g->mutable_output(0), "y", {4, 128});
  std::vector<float> w(64 * 128);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 17) - 8.f;
  *g->mutable_initializer(0) = FloatTensor("w", {64, 128}, w);
  g->mutable_node(0)->set_op_type("MatMul");
  return m;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) {
    ADD_FAILURE() << "cannot write " << path;
    abort();
  }
}

void WriteProto(const std::string& path, const google::protobuf::MessageLite& msg) {
  std::string bytes;
  if (!msg.SerializeToString(&bytes)) {
    ADD_FAILURE() << "cannot serialize message for " << path;
    abort();
  }
  WriteBytes(path, bytes);
}

std::string MakeTempDir(const std::string& tag) {
  std::string tmpl = ::testing::TempDir() + "/vtensor-cli-" + tag + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    abort();
  }
  return tmpl;
}

}  // namespace vt::testing
