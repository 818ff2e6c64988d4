// If, Loop and Scan through the executor (exec/evaluate.h) on small hand-built graphs: every Loop form (M only,
// cond only, both, neither), zero iterations, scan outputs, outer-scope reads, Scan-8 with
// sequence_lens and Scan-9 axes/directions, and bad input.
#include <gtest/gtest.h>

#include "ops/common/op_test_util.h"
#include "vtensor/exec/evaluate.h"

namespace vt::ops {
namespace {

using testing::AttrInt;
using testing::AttrInts;
using testing::F32;
using testing::I64;
using testing::MakeTensor;
using testing::Values;

Node MakeNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
              const std::vector<Attribute>& attrs = {}) {
  Node n;
  n.op_type = op;
  n.name = op + "_" + (out.empty() ? "x" : out[0]);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  for (const auto& a : attrs) n.attrs[a.name] = a;
  return n;
}

Attribute AttrGraph(const std::string& name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kGraph;
  a.g = std::move(g);
  return a;
}

GraphIO IO(const std::string& name) { return GraphIO{name, TensorSpec()}; }

GraphIO TypedIO(const std::string& name, DType dt, const Shape& shape) {
  SymShape s;
  for (int64_t d : shape) s.push_back(Dim{d, ""});
  return GraphIO{name, TensorSpec(TypeInfo::Tensor(dt, s))};
}

Tensor Bool(bool v) { return MakeTensor(DType::kBool, {}, {v ? 1.0 : 0.0}); }

// Runs a one-graph model at `opset` after fixing subgraph parents.
Expected<std::vector<Value>> RunModel(std::shared_ptr<Graph> g, const std::vector<Value>& in,
                                      int64_t opset = 16) {
  std::function<void(Graph&)> link = [&](Graph& gr) {
    for (auto& n : gr.nodes) {
      n.opset = opset;
      for (auto& [k, a] : n.attrs)
        if (a.g) {
          a.g->parent = &gr;
          link(*a.g);
        }
    }
  };
  link(*g);
  Model m;
  m.opsets[""] = opset;
  m.graph = std::move(g);
  return EvaluateModel(m, in);
}

// Loop body: (iter, cond, sum) -> (cond, sum + iter, iter); optionally cond_out = constant.
std::shared_ptr<Graph> SumBody(const char* cond_out = nullptr) {
  auto b = std::make_shared<Graph>();
  b->inputs = {IO("iter"), IO("cond_in"), IO("sum_in")};
  b->nodes.push_back(MakeNode("Add", {"sum_in", "iter"}, {"sum_out"}));
  b->nodes.push_back(MakeNode("Identity", {"iter"}, {"scan_out"}));
  if (cond_out == nullptr) {
    b->nodes.push_back(MakeNode("Identity", {"cond_in"}, {"cond_out"}));
  } else {
    b->nodes.push_back(MakeNode("Identity", {cond_out}, {"cond_out"}));
  }
  b->outputs = {IO("cond_out"), IO("sum_out"), TypedIO("scan_out", DType::kInt64, {})};
  return b;
}

std::shared_ptr<Graph> LoopModel(std::shared_ptr<Graph> body, bool with_m, bool with_cond) {
  auto g = std::make_shared<Graph>();
  if (with_m) g->inputs.push_back(IO("M"));
  if (with_cond) g->inputs.push_back(IO("cond"));
  g->inputs.push_back(IO("sum0"));
  g->nodes.push_back(MakeNode("Loop", {with_m ? "M" : "", with_cond ? "cond" : "", "sum0"},
                              {"sum", "scan"}, {AttrGraph("body", std::move(body))}));
  g->outputs = {IO("sum"), IO("scan")};
  return g;
}

TEST(LoopTest, TripCountOnly) {
  auto r = RunModel(LoopModel(SumBody(), true, false), {I64({}, {4}), I64({}, {10})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({16}));
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({4}));
  EXPECT_EQ(Values((*r)[1].tensor()), std::vector<double>({0, 1, 2, 3}));
}

TEST(LoopTest, ZeroIterationsKeepsInitialValueAndDeclaredScanShape) {
  auto r = RunModel(LoopModel(SumBody(), true, true), {I64({}, {0}), Bool(true), I64({}, {7})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({7}));
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({0}));
  EXPECT_EQ((*r)[1].tensor().dtype(), DType::kInt64);
}

TEST(LoopTest, FalseInitialConditionRunsNothing) {
  auto r = RunModel(LoopModel(SumBody(), true, true), {I64({}, {5}), Bool(false), I64({}, {7})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({7}));
}

TEST(LoopTest, ConditionFromBodyStopsAHugeTripCount) {
  // cond_out reads an outer-scope constant false: exactly one iteration runs.
  auto body = SumBody("stop");
  auto g = LoopModel(body, true, true);
  g->initializers["stop"] = Bool(false);
  auto r = RunModel(g, {I64({}, {int64_t{1} << 62}), Bool(true), I64({}, {3})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({3}));
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({1}));
}

TEST(LoopTest, ConditionOnlyForm) {
  auto body = SumBody("stop");
  auto g = LoopModel(body, false, true);
  g->initializers["stop"] = Bool(false);
  auto r = RunModel(g, {Bool(true), I64({}, {3})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({1}));
}

TEST(LoopTest, RefusesLoopsThatNeverEnd) {
  auto r = RunModel(LoopModel(SumBody(), false, false), {I64({}, {0})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("never terminates"), std::string::npos);
  auto big = RunModel(LoopModel(SumBody(), true, false), {I64({}, {int64_t{1} << 40}), I64({}, {0})});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("Loop"), std::string::npos);
}

TEST(LoopTest, ScanOutputShapeChangeIsAnError) {
  // Scan output = Range(0, iter+1): its length changes every iteration.
  auto b = std::make_shared<Graph>();
  b->inputs = {IO("iter"), IO("cond_in"), IO("x_in")};
  b->nodes.push_back(MakeNode("Identity", {"cond_in"}, {"cond_out"}));
  b->nodes.push_back(MakeNode("Identity", {"x_in"}, {"x_out"}));
  b->nodes.push_back(MakeNode("Unsqueeze", {"iter", "axes"}, {"u"}));
  b->nodes.push_back(MakeNode("Expand", {"iter", "u"}, {"scan"}));
  b->initializers["axes"] = I64({1}, {0});
  b->outputs = {IO("cond_out"), IO("x_out"), IO("scan")};
  auto r = RunModel(LoopModel(b, true, false), {I64({}, {3}), I64({}, {0})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("scan output 0"), std::string::npos) << r.status().message();
}

TEST(IfTest, SelectsBranchAndReadsOuterScope) {
  auto then_g = std::make_shared<Graph>();
  then_g->nodes.push_back(MakeNode("Add", {"x", "x"}, {"y"}));
  then_g->outputs = {IO("y")};
  auto else_g = std::make_shared<Graph>();
  else_g->nodes.push_back(MakeNode("Identity", {"x"}, {"z"}));
  else_g->outputs = {IO("z")};
  auto g = std::make_shared<Graph>();
  g->inputs = {IO("c"), IO("x")};
  g->nodes.push_back(MakeNode("If", {"c"}, {"out"},
                              {AttrGraph("then_branch", then_g), AttrGraph("else_branch", else_g)}));
  g->outputs = {IO("out")};
  auto t = RunModel(g, {Bool(true), F32({2}, {1, 2})});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(Values((*t)[0].tensor()), std::vector<double>({2, 4}));
  auto e = RunModel(g, {Bool(false), F32({2}, {1, 2})});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Values((*e)[0].tensor()), std::vector<double>({1, 2}));
  auto bad = RunModel(g, {MakeTensor(DType::kBool, {2}, {1, 0}), F32({2}, {1, 2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("exactly one element"), std::string::npos);
}

// Scan body (state, x) -> (state + x, state + x).
std::shared_ptr<Graph> CumSumBody() {
  auto b = std::make_shared<Graph>();
  b->inputs = {IO("s_in"), IO("x")};
  b->nodes.push_back(MakeNode("Add", {"s_in", "x"}, {"s_out"}));
  b->nodes.push_back(MakeNode("Identity", {"s_out"}, {"y"}));
  b->outputs = {IO("s_out"), IO("y")};
  return b;
}

TEST(ScanTest, Opset9AxesAndDirections) {
  // x [2, 3] scanned along axis 1 in reverse; state [2]; output stacked on axis 1 reversed.
  auto g = std::make_shared<Graph>();
  g->inputs = {IO("s0"), IO("x")};
  g->nodes.push_back(MakeNode("Scan", {"s0", "x"}, {"s", "y"},
                              {AttrGraph("body", CumSumBody()), AttrInt("num_scan_inputs", 1),
                               AttrInts("scan_input_axes", {1}),
                               AttrInts("scan_input_directions", {1}),
                               AttrInts("scan_output_axes", {-1}),
                               AttrInts("scan_output_directions", {1})}));
  g->outputs = {IO("s"), IO("y")};
  auto r = RunModel(g, {F32({2}, {0, 0}), F32({2, 3}, {1, 2, 3, 10, 20, 30})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({6, 60}));
  // Reverse input: steps see 3, 2, 1 -> 3, 5, 6; reverse output puts step 0 last.
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({2, 3}));
  EXPECT_EQ(Values((*r)[1].tensor()), std::vector<double>({6, 5, 3, 60, 50, 30}));
}

TEST(ScanTest, Opset8BatchWithSequenceLengths) {
  auto g = std::make_shared<Graph>();
  g->inputs = {IO("lens"), IO("s0"), IO("x")};
  g->nodes.push_back(MakeNode("Scan", {"lens", "s0", "x"}, {"s", "y"},
                              {AttrGraph("body", CumSumBody()), AttrInt("num_scan_inputs", 1)}));
  g->outputs = {IO("s"), IO("y")};
  auto r = RunModel(g, {I64({2}, {2, 3}), F32({2, 1}, {0, 100}), F32({2, 3, 1}, {1, 2, 3, 4, 5, 6})},
                    8);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values((*r)[0].tensor()), std::vector<double>({3, 115}));
  EXPECT_EQ((*r)[1].tensor().shape(), Shape({2, 3, 1}));
  EXPECT_EQ(Values((*r)[1].tensor()), std::vector<double>({1, 3, 0, 104, 109, 115}));
  auto bad = RunModel(g, {I64({2}, {2, 4}), F32({2, 1}, {0, 0}), F32({2, 3, 1}, {1, 2, 3, 4, 5, 6})},
                      8);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sequence_lens"), std::string::npos);
}

TEST(ScanTest, MismatchedLengthsAreAnError) {
  auto b = std::make_shared<Graph>();
  b->inputs = {IO("s_in"), IO("x"), IO("z")};
  b->nodes.push_back(MakeNode("Add", {"s_in", "x"}, {"s_out"}));
  b->outputs = {IO("s_out")};
  auto g = std::make_shared<Graph>();
  g->inputs = {IO("s0"), IO("x"), IO("z")};
  g->nodes.push_back(MakeNode("Scan", {"s0", "x", "z"}, {"s"},
                              {AttrGraph("body", b), AttrInt("num_scan_inputs", 2)}));
  g->outputs = {IO("s")};
  auto r = RunModel(g, {F32({}, {0}), F32({3}, {1, 2, 3}), F32({2}, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("sequence length"), std::string::npos);
}

}  // namespace
}  // namespace vt::ops
