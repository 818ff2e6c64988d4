// Inputs that give one dim_param two sizes: refused only when a session pass relied on the
// ONNX IR's one-size rule (runtime/session.h Session::Run), otherwise run as written.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

void AddInput(onnx::GraphProto* g, const std::string& name, const std::string& dim0, int64_t dim1) {
  auto* x = g->add_input();
  x->set_name(name);
  auto* t = x->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param(dim0);
  t->mutable_shape()->add_dim()->set_dim_value(dim1);
}

void AddNode(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
             const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
}

void AddScalar(onnx::GraphProto* g, const std::string& name, float v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(v);
}

onnx::ModelProto NewModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_version(17);
  m.mutable_graph()->set_name("g");
  return m;
}

// y = a + b, both declared ["?", 3] (one name for unrelated dims, as some exporters write).
onnx::ModelProto AddWithOneName() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddInput(g, "a", "?", 3);
  AddInput(g, "b", "?", 3);
  AddNode(g, "Add", {"a", "b"}, "y");
  g->add_output()->set_name("y");
  return m;
}

// y = Gelu(x) (erf form, which fuse-gelu rewrites) + z, x and z declared ["n", 4].
onnx::ModelProto GeluPlusZ() {
  onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  AddInput(g, "x", "n", 4);
  AddInput(g, "z", "n", 4);
  AddScalar(g, "sqrt2", 1.41421356f);
  AddScalar(g, "one", 1.0f);
  AddScalar(g, "half", 0.5f);
  AddNode(g, "Div", {"x", "sqrt2"}, "d");
  AddNode(g, "Erf", {"d"}, "e");
  AddNode(g, "Add", {"e", "one"}, "a");
  AddNode(g, "Mul", {"x", "a"}, "m");
  AddNode(g, "Mul", {"m", "half"}, "gelu");
  AddNode(g, "Add", {"gelu", "z"}, "y");
  g->add_output()->set_name("y");
  return m;
}

Tensor Filled(int64_t rows, int64_t cols, float v) {
  return Tensor::FromF32(std::vector<float>(static_cast<size_t>(rows * cols), v), {rows, cols});
}

TEST(SessionDimParamsTest, ModelNoPassReliedOnRunsWithTwoSizesForOneName) {
  auto m = ImportModel(AddWithOneName(), "add.onnx");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto s = Session::Create(std::move(*m));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run({Value(Filled(1, 3, 1.0f)), Value(Filled(2, 3, 2.0f))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].tensor().shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*out)[0].tensor().data<float>()[5], 3.0f);
}

TEST(SessionDimParamsTest, FusedModelRefusesTwoSizesForOneNameAndNamesIt) {
  auto m = ImportModel(GeluPlusZ(), "gelu.onnx");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto s = Session::Create(std::move(*m));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto ok = (*s)->Run({Value(Filled(2, 4, 1.0f)), Value(Filled(2, 4, 1.0f))});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto bad = (*s)->Run({Value(Filled(1, 4, 1.0f)), Value(Filled(2, 4, 1.0f))});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("dimension 'n'"), std::string::npos)
      << bad.status().message();
}

TEST(SessionDimParamsTest, WithoutFusionTheSameModelRuns) {
  auto m = ImportModel(GeluPlusZ(), "gelu.onnx");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  SessionOptions opts;
  opts.fuse = false;
  opts.fold_constants = false;
  auto s = Session::Create(std::move(*m), opts);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run({Value(Filled(1, 4, 1.0f)), Value(Filled(2, 4, 1.0f))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].tensor().shape(), (std::vector<int64_t>{2, 4}));
}

}  // namespace
}  // namespace vt
