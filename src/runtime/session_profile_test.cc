// Session::Run with an OpProfile (exec/op_profile.h): one event per node run, subgraph nodes
// with their depth, self time excluding the subgraph, shapes; concurrent profiled runs.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <thread>

#include "vtensor/exec/op_profile.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

// y = Relu(If(c, then: Add(x, w), else: Identity(x))); x float[2, 3], c bool scalar.
std::unique_ptr<Session> LoadIfModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  for (float v : {-10.f, 20.f, 30.f}) w->add_float_data(v);
  auto input = [](onnx::ValueInfoProto* vi, const char* name, int type,
                  const std::vector<int>& dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (int d : dims) shape->add_dim()->set_dim_value(d);
  };
  input(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  input(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  g->add_output()->set_name("y");
  auto branch = [](onnx::GraphProto* b, const char* op, const std::vector<const char*>& in) {
    b->set_name(std::string(op) + "_branch");
    auto* n = b->add_node();
    n->set_op_type(op);
    n->set_name(std::string(op) + "_in_branch");
    for (const char* i : in) n->add_input(i);
    n->add_output(std::string(op) + "_out");
    b->add_output()->set_name(std::string(op) + "_out");
  };
  auto* n = g->add_node();
  n->set_op_type("If");
  n->set_name("if0");
  n->add_input("c");
  n->add_output("b");
  auto* then_attr = n->add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(onnx::AttributeProto::GRAPH);
  branch(then_attr->mutable_g(), "Add", {"x", "w"});
  auto* else_attr = n->add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(onnx::AttributeProto::GRAPH);
  branch(else_attr->mutable_g(), "Identity", {"x"});
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu0");
  relu->add_input("b");
  relu->add_output("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::vector<Value> Inputs(bool cond) {
  Tensor c = Tensor::Zeros(DType::kBool, {});
  c.mutable_data<bool>()[0] = cond;
  return {Tensor::FromF32({1, 2, 3, 4, 5, 6}, {2, 3}), c};
}

TEST(SessionProfileTest, OneEventPerNodeWithDepthAndShapes) {
  auto s = LoadIfModel();
  ASSERT_NE(s, nullptr);
  OpProfile p;
  auto out = s->Run(Inputs(true), &p);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const auto ev = p.events();
  ASSERT_EQ(ev.size(), 3u);
  // Completion order: the branch's node, then If, then Relu.
  EXPECT_EQ(ev[0].node->name, "Add_in_branch");
  EXPECT_EQ(ev[0].depth, 1);
  EXPECT_EQ(ev[1].node->op_type, "If");
  EXPECT_EQ(ev[1].depth, 0);
  EXPECT_EQ(ev[2].node->name, "relu0");
  EXPECT_EQ(ev[0].inputs.size(), 2u);
  EXPECT_EQ(ev[0].inputs[0].second, (Shape{2, 3}));
  EXPECT_EQ(ev[0].inputs[1].second, (Shape{3}));
  EXPECT_EQ(ev[2].outputs[0].first, DType::kFloat32);
  EXPECT_EQ(ev[2].outputs[0].second, (Shape{2, 3}));
  // If's self time leaves out its branch; its span contains the branch's.
  EXPECT_NEAR(ev[1].self_us + ev[0].span_us, ev[1].dur_us, 1e-6);
  EXPECT_GE(ev[0].span_us, ev[0].dur_us);
  EXPECT_LE(ev[1].start_us, ev[0].start_us);
  EXPECT_GE(ev[1].start_us + ev[1].dur_us, ev[0].start_us + ev[0].dur_us);
  EXPECT_LE(ev[1].start_us + ev[1].dur_us, ev[2].start_us);
  // The else branch runs Identity instead.
  p.Clear();
  ASSERT_TRUE(s->Run(Inputs(false), &p).ok());
  EXPECT_EQ(p.events()[0].node->name, "Identity_in_branch");
  // Without a profile nothing is recorded anywhere.
  ASSERT_TRUE(s->Run(Inputs(true)).ok());
  EXPECT_EQ(p.events().size(), 3u);
}

TEST(SessionProfileTest, ConcurrentRunsOwnOrShareProfiles) {
  auto s = LoadIfModel();
  ASSERT_NE(s, nullptr);
  constexpr int kThreads = 4, kRuns = 50;
  OpProfile shared;
  std::vector<OpProfile> own(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        EXPECT_TRUE(s->Run(Inputs(r % 2 == 0), &own[t]).ok());
        EXPECT_TRUE(s->Run(Inputs(true), &shared).ok());
      }
    });
  for (auto& th : threads) th.join();
  for (const OpProfile& p : own) {
    const auto ev = p.events();
    ASSERT_EQ(ev.size(), 3u * kRuns);
    for (size_t i = 0; i < ev.size(); i += 3) {
      EXPECT_EQ(ev[i].depth, 1);
      EXPECT_EQ(ev[i + 1].node->op_type, "If");
      EXPECT_EQ(ev[i + 2].node->op_type, "Relu");
    }
  }
  const auto ev = shared.events();
  EXPECT_EQ(ev.size(), 3u * kRuns * kThreads);
  for (const OpEvent& e : ev) EXPECT_LE(e.self_us, e.dur_us);
}

}  // namespace
}  // namespace vt
