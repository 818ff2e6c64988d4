// The ONNX operator definitions plugin: where it is looked for, what a failed load says, and
// that the build's own plugin hands over a working table.
#include "format/onnx_defs.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace vt {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(OnnxDefsTest, EnvironmentNamesTheOnlyCandidate) {
  ::setenv("VTENSOR_ONNXDEFS", "/opt/x/libvtensor-onnxdefs.so", 1);
  const std::vector<std::string> paths = OnnxDefsCandidates();
  ::unsetenv("VTENSOR_ONNXDEFS");
  EXPECT_EQ(paths, std::vector<std::string>{"/opt/x/libvtensor-onnxdefs.so"});
}

TEST(OnnxDefsTest, CandidatesAreBesideTheProgramThenTheInstalledLibraryDirectory) {
  const std::vector<std::string> paths = OnnxDefsCandidates();
  ASSERT_GE(paths.size(), 4u);
  for (const std::string& p : paths) EXPECT_TRUE(EndsWith(p, "/libvtensor-onnxdefs.so")) << p;
  EXPECT_TRUE(EndsWith(paths[1], "/lib/libvtensor-onnxdefs.so")) << paths[1];
  EXPECT_EQ(paths.back(), std::string(VT_ONNXDEFS_INSTALL_DIR) + "/libvtensor-onnxdefs.so");
}

TEST(OnnxDefsTest, MissingPluginIsAnErrorNamingWhoNeedsItAndEveryPath) {
  Expected<const OnnxDefs*> r =
      LoadOnnxDefsFrom({"/nonexistent/a/libvtensor-onnxdefs.so"}, "the ONNX model checker");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("the ONNX model checker needs vtensor's ONNX operator definitions plugin "
                   "(libvtensor-onnxdefs.so)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("/nonexistent/a/libvtensor-onnxdefs.so: "), std::string::npos) << m;
}

TEST(OnnxDefsTest, AnotherPluginIsRefused) {
  // The operator libraries plugin exports vt_oplibs_table, not this plugin's entry.
  Expected<const OnnxDefs*> r = LoadOnnxDefsFrom({"libm.so.6"}, "test");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("libm.so.6: has no vt_onnxdefs_table"), std::string::npos)
      << r.status().message();
}

const OnnxDefs& Defs() {
  Expected<const OnnxDefs*> r = LoadOnnxDefs("test");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return **r;
}

// Y = Relu(X), X float [2, 3]; Y's type is left for shape inference to fill.
onnx::ModelProto ReluModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("relu");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("X");
  n->add_output("H");
  onnx::NodeProto* n2 = g->add_node();
  n2->set_op_type("Identity");
  n2->add_input("H");
  n2->add_output("Y");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("X");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("Y");
  return m;
}

TEST(OnnxDefsTest, InfersShapes) {
  onnx::ModelProto m = ReluModel();
  std::string error;
  ASSERT_TRUE(Defs().infer_shapes(&m, &error)) << error;
  const onnx::ValueInfoProto* found = nullptr;
  for (const onnx::ValueInfoProto& vi : m.graph().value_info())
    if (vi.name() == "H") found = &vi;
  ASSERT_NE(found, nullptr);
  const onnx::ValueInfoProto& h = *found;
  EXPECT_EQ(h.type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(h.type().tensor_type().shape().dim_size(), 2);
  EXPECT_EQ(h.type().tensor_type().shape().dim(1).dim_value(), 3);
}

TEST(OnnxDefsTest, ChecksModels) {
  const OnnxDefs& d = Defs();
  onnx::ModelProto m = ReluModel();
  *m.mutable_graph()->mutable_output(0)->mutable_type() = m.graph().input(0).type();
  std::string error;
  EXPECT_TRUE(d.check_model(m, &error)) << error;
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  EXPECT_FALSE(d.check_model(m, &error));
  EXPECT_NE(error.find("nowhere"), std::string::npos) << error;
  EXPECT_GE(d.last_opsets().at(""), 17);  // ONNX 1.12 (Debian 12) defines opsets 1-17
}

TEST(OnnxDefsTest, ExpandsAFunctionBody) {
  const OnnxDefs& d = Defs();
  EXPECT_EQ(d.find_function_schema("Relu", 13, ""), nullptr) << "Relu has no function body";
  EXPECT_EQ(d.find_function_schema("NoSuchOp", 13, ""), nullptr);
  // MeanVarianceNormalization (opset 13) is defined by a fixed body with a default `axes`.
  const void* mvn = d.find_function_schema("MeanVarianceNormalization", 13, "");
  ASSERT_NE(mvn, nullptr);
  EXPECT_FALSE(d.context_dependent(mvn));
  bool has_axes = false;
  for (const onnx::AttributeProto& a : d.attribute_defaults(mvn)) has_axes |= a.name() == "axes";
  EXPECT_TRUE(has_axes);
  onnx::NodeProto node;
  node.set_op_type("MeanVarianceNormalization");
  node.add_input("x");
  node.add_output("y");
  for (const onnx::AttributeProto& a : d.attribute_defaults(mvn)) *node.add_attribute() = a;
  onnx::FunctionProto body;
  std::string error;
  ASSERT_TRUE(d.function_body(mvn, node, {onnx::TypeProto()}, &body, &error)) << error;
  onnx::GraphProto g;
  ASSERT_TRUE(d.expand_function(mvn, node, body, "mvn/", &g, &error)) << error;
  ASSERT_GT(g.node_size(), 3);
  EXPECT_EQ(g.node(g.node_size() - 1).output(0), "y");
}

// LayerNormalization (opset 17) builds its body from the node and its input types; the body
// imports opset 16, where no LayerNormalization exists (libonnx's expansion crashed on that),
// and the node names one of the body's three outputs.
TEST(OnnxDefsTest, ExpandsAContextDependentFunctionBody) {
  const OnnxDefs& d = Defs();
  const void* ln = d.find_function_schema("LayerNormalization", 17, "");
  ASSERT_NE(ln, nullptr);
  EXPECT_TRUE(d.context_dependent(ln));
  onnx::NodeProto node;
  node.set_op_type("LayerNormalization");
  for (const char* in : {"x", "scale", "bias"}) node.add_input(in);
  node.add_output("y");
  for (const onnx::AttributeProto& a : d.attribute_defaults(ln)) *node.add_attribute() = a;
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : {2, 3}) t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(dim);
  onnx::TypeProto v;
  v.mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  v.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  onnx::FunctionProto body;
  std::string error;
  ASSERT_TRUE(d.function_body(ln, node, {t, v, v}, &body, &error)) << error;
  onnx::GraphProto g;
  ASSERT_TRUE(d.expand_function(ln, node, body, "ln/", &g, &error)) << error;
  ASSERT_GT(g.node_size(), 3);
  // The node's one output is written; the body's Mean and InvStdDev get names of their own.
  bool writes_y = false;
  for (const onnx::NodeProto& n : g.node())
    for (const std::string& o : n.output()) writes_y |= o == "y";
  EXPECT_TRUE(writes_y);
}

// Range (opset 11) is defined by a Loop whose body reads the function's inputs: the expansion
// would not rename them inside the Loop, so it is refused with the reason.
TEST(OnnxDefsTest, RefusesABodyWithANestedGraph) {
  const OnnxDefs& d = Defs();
  const void* range = d.find_function_schema("Range", 11, "");
  ASSERT_NE(range, nullptr);
  onnx::NodeProto node;
  node.set_op_type("Range");
  for (const char* in : {"start", "limit", "delta"}) node.add_input(in);
  node.add_output("y");
  onnx::FunctionProto body;
  std::string error;
  ASSERT_TRUE(d.function_body(range, node, {onnx::TypeProto(), onnx::TypeProto(), onnx::TypeProto()},
                              &body, &error))
      << error;
  onnx::GraphProto g;
  EXPECT_FALSE(d.expand_function(range, node, body, "range/", &g, &error));
  EXPECT_NE(error.find("'Loop' has a graph attribute"), std::string::npos) << error;
}

}  // namespace
}  // namespace vt
