// End-to-end import: models built in memory are imported (graph/onnx_import.h) and run.
#include "vtensor/graph/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "vtensor/runtime/session.h"

namespace vt {
namespace {

onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& vals) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (auto v : vals) t.add_float_data(v);
  return t;
}

// y = Relu(x + w) with w an initializer; checks import, IR/opset and a run.
onnx::ModelProto SmallModel() {
  onnx::ModelProto m;
  m.set_ir_version(10);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(21);  // newer than the ONNX library: must still load
  auto* g = m.mutable_graph();
  g->set_name("g");
  *g->add_initializer() = FloatTensor("w", {3}, {1, -5, 0.5});
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  auto* y = g->add_output();
  y->set_name("y");
  auto* n1 = g->add_node();
  n1->set_op_type("Add");
  n1->add_input("x");
  n1->add_input("w");
  n1->add_output("s");
  auto* n2 = g->add_node();
  n2->set_op_type("Identity");
  n2->add_input("s");
  n2->add_output("y");
  return m;
}

TEST(ImportModelTest, NewOpsetLoadsAndRuns) {
  auto m = ImportModel(SmallModel(), "small.onnx");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->opsets.at(""), 21);
  auto s = Session::Create(std::move(*m));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run({Value(Tensor::FromF32({1, 2, 3}, {3}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].tensor().data<float>()[1], -3.0f);
  // Second run reuses buffers and gives the same answer.
  auto out2 = (*s)->Run({Value(Tensor::FromF32({1, 2, 3}, {3}))});
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ((*out2)[0].tensor().data<float>()[2], 3.5f);
}

TEST(ImportModelTest, WrongInputDtypeAndShapeAreErrors) {
  auto s = Session::Create(*ImportModel(SmallModel(), "small.onnx"));
  ASSERT_TRUE(s.ok());
  auto bad_shape = (*s)->Run({Value(Tensor::FromF32({1, 2}, {2}))});
  EXPECT_NE(bad_shape.status().message().find("does not match declared"), std::string::npos);
  auto bad_type = (*s)->Run({Value(Tensor::FromI64({1, 2, 3}))});
  EXPECT_NE(bad_type.status().message().find("dtype int64"), std::string::npos);
  EXPECT_FALSE((*s)->Run({}).ok());
}

TEST(ImportModelTest, RejectsBadIrVersionAndUnknownOp) {
  onnx::ModelProto m = SmallModel();
  m.set_ir_version(2);
  EXPECT_NE(ImportModel(m, "a.onnx").status().message().find("ir_version"), std::string::npos);
  m = SmallModel();
  m.mutable_graph()->mutable_node(1)->set_op_type("NoSuchOp");
  auto s = Session::Create(*ImportModel(m, "a.onnx"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("NoSuchOp"), std::string::npos);
  m = SmallModel();
  m.mutable_graph()->mutable_node(1)->set_domain("com.example");
  auto s2 = Session::Create(*ImportModel(m, "a.onnx"));
  ASSERT_FALSE(s2.ok());
  EXPECT_NE(s2.status().message().find("com.example"), std::string::npos);
}

TEST(ImportModelTest, LocalFunctionsAreInlined) {
  onnx::ModelProto m = SmallModel();
  auto* f = m.add_functions();
  f->set_name("MyId");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  auto* fo = f->add_opset_import();
  fo->set_domain("");
  fo->set_version(13);
  auto* fn = f->add_node();
  fn->set_op_type("Add");
  fn->add_input("a");
  fn->add_input("a");
  fn->add_output("b");
  auto* os = m.add_opset_import();
  os->set_domain("local");
  os->set_version(1);
  m.mutable_graph()->mutable_node(1)->set_op_type("MyId");
  m.mutable_graph()->mutable_node(1)->set_domain("local");
  auto s = Session::Create(*ImportModel(m, "f.onnx"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run({Value(Tensor::FromF32({1, 2, 3}, {3}))});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].tensor().data<float>()[0], 4.0f);
}

}  // namespace
}  // namespace vt
