#include "vtensor/passes/fusion.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "vtensor/exec/evaluate.h"

namespace vt {
namespace {

Node Op(const std::string& op, std::vector<std::string> in, std::string out, int64_t opset = 11) {
  Node n;
  n.op_type = op;
  n.name = op + "_" + out;
  n.opset = opset;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

// y = Div(Mul(x, Clip(Add(x, three), zero, six)), six); `extra_use` adds a second consumer.
Model HardSwishModel(bool extra_use, float three = 3.0f) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["three"] = Tensor::ScalarF32(three);
  g->initializers["zero"] = Tensor::ScalarF32(0.0f);
  g->initializers["six"] = Tensor::ScalarF32(6.0f);
  g->nodes.push_back(Op("Add", {"x", "three"}, "a"));
  g->nodes.push_back(Op("Clip", {"a", "zero", "six"}, "c"));
  g->nodes.push_back(Op("Mul", {"x", "c"}, "m"));
  g->nodes.push_back(Op("Div", {"m", "six"}, "y"));
  g->outputs.push_back({"y", {}});
  if (extra_use) {
    g->nodes.push_back(Op("Neg", {"c"}, "z"));
    g->outputs.push_back({"z", {}});
  }
  Model m;
  m.ir_version = 7;
  m.opsets[""] = 11;
  m.graph = g;
  return m;
}

TEST(FusionTest, HardSwishPatternBecomesOneNodeWithSameResults) {
  Tensor x = Tensor::FromF32({-5.0f, -3.0f, -1.5f, 0.0f, 0.25f, 2.0f, 3.0f, 7.5f}, {8});
  auto want = EvaluateModel(HardSwishModel(false), {Value(x)});
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  Model m = HardSwishModel(false);
  EXPECT_EQ(FuseHardSwish(*m.graph), 1u);
  ASSERT_EQ(m.graph->nodes.size(), 1u);
  EXPECT_EQ(m.graph->nodes[0].op_type, "HardSwish");
  auto got = EvaluateModel(m, {Value(x)});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR((*got)[0].tensor().data<float>()[i], (*want)[0].tensor().data<float>()[i], 1e-6);
}

TEST(FusionTest, KeepsPatternWhenIntermediateIsUsedElsewhereOrConstantDiffers) {
  Model shared = HardSwishModel(true);
  EXPECT_EQ(FuseHardSwish(*shared.graph), 0u);
  EXPECT_EQ(shared.graph->nodes.size(), 5u);
  Model other = HardSwishModel(false, 2.5f);
  EXPECT_EQ(FuseHardSwish(*other.graph), 0u);
}


// Deterministic values in [-1, 1).
Tensor RandomF32(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return Tensor::FromF32(v, shape);
}

Node ConvOp(std::vector<std::string> in, std::string out, std::vector<int64_t> pads,
            std::vector<int64_t> strides, int64_t group = 1) {
  Node n = Op("Conv", std::move(in), std::move(out));
  Attribute p;
  p.name = "pads";
  p.type = Attribute::Type::kInts;
  p.ints = std::move(pads);
  n.attrs["pads"] = p;
  Attribute s;
  s.name = "strides";
  s.type = Attribute::Type::kInts;
  s.ints = std::move(strides);
  n.attrs["strides"] = s;
  Attribute gr;
  gr.name = "group";
  gr.type = Attribute::Type::kInt;
  gr.i = group;
  n.attrs["group"] = gr;
  return n;
}

Attribute FloatAttr(const std::string& name, float v) {
  Attribute a;
  a.name = name;
  a.type = Attribute::Type::kFloat;
  a.f = v;
  return a;
}

Model WrapGraph(std::shared_ptr<Graph> g) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 14;
  m.graph = std::move(g);
  return m;
}

// Runs `build()` once unfused and once after FuseConv, and compares
// every output; returns the fused graph for structural checks.
std::shared_ptr<Graph> ExpectFusedMatches(const std::function<Model()>& build, const Tensor& x,
                                          size_t want_fused, double tol = 2e-5,
                                          int threads = 1) {
  auto want = EvaluateModel(build(), {Value(x)}, threads);
  EXPECT_TRUE(want.ok()) << want.status().ToString();

  Model m = build();
  EXPECT_EQ(FuseConv(*m.graph), want_fused);
  auto fused_graph = m.graph;
  if (!want.ok()) return fused_graph;
  auto got = EvaluateModel(m, {Value(x)}, threads);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return fused_graph;
  EXPECT_EQ(got->size(), want->size());
  for (size_t o = 0; o < std::min(got->size(), want->size()); ++o) {
    const Tensor& a = (*got)[o].tensor();
    const Tensor& b = (*want)[o].tensor();
    EXPECT_EQ(a.shape(), b.shape());
    double worst = 0;
    for (int64_t i = 0; i < std::min(a.numel(), b.numel()); ++i)
      worst = std::max(worst, std::fabs(a.GetDouble(i) - b.GetDouble(i)) /
                                  std::max(1.0, std::fabs(b.GetDouble(i))));
    EXPECT_LE(worst, tol) << "output " << o;
  }
  return fused_graph;
}

// x -> Conv(3x3, pad 1, stride `stride`) -> BatchNormalization -> Relu -> y.
Model ConvBnRelu(int64_t stride, bool bn_shared) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = RandomF32({5, 3, 3, 3}, 1);
  g->initializers["b"] = RandomF32({5}, 2);
  g->initializers["scale"] = RandomF32({5}, 3);
  g->initializers["bias"] = RandomF32({5}, 4);
  g->initializers["mean"] = RandomF32({5}, 5);
  g->initializers["var"] = RandomF32({5}, 6, 0.1f, 2.0f);
  g->nodes.push_back(ConvOp({"x", "w", "b"}, "c", {1, 1, 1, 1}, {stride, stride}));
  Node bn = Op("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, "n", 14);
  bn.attrs["epsilon"] = FloatAttr("epsilon", 1e-3f);
  g->nodes.push_back(bn);
  g->nodes.push_back(Op("Relu", {"n"}, "y", 14));
  g->outputs.push_back({"y", {}});
  if (bn_shared) {
    g->nodes.push_back(Op("Neg", {"n"}, "z", 14));
    g->outputs.push_back({"z", {}});
  }
  return WrapGraph(g);
}

TEST(FusionTest, ConvBatchNormReluFoldsIntoNewWeightsAndClamp) {
  for (int64_t stride : {1, 2}) {
    auto g = ExpectFusedMatches([&] { return ConvBnRelu(stride, false); },
                                RandomF32({2, 3, 9, 11}, 7), 1);
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(g->nodes.size(), 1u);
    const Node& conv = g->nodes[0];
    EXPECT_EQ(conv.op_type, "Conv");
    EXPECT_EQ(conv.outputs[0], "y");
    EXPECT_EQ(conv.GetString(kConvActAttr, ""), "Relu");
    EXPECT_EQ(conv.inputs[1], "n.vt_folded_w");
    EXPECT_EQ(conv.inputs[2], "n.vt_folded_b");
    EXPECT_EQ(g->initializers.count("w"), 0u);  // nothing else read it
    EXPECT_EQ(g->initializers.at("n.vt_folded_w").name(), "n.vt_folded_w");
  }
}

TEST(FusionTest, SharedIntermediateStopsTheChain) {
  // BN's output has two readers: BN is folded, Relu is not fused.
  auto g = ExpectFusedMatches([] { return ConvBnRelu(1, true); }, RandomF32({1, 3, 6, 6}, 8), 1);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(g->nodes[0].FindAttr(kConvActAttr), nullptr);
  EXPECT_EQ(g->nodes[0].outputs[0], "n");
}

// Depthwise 3x3 -> Mul(per-channel) -> Add(scalar) -> act -> Mul(scalar) -> Add(per-channel),
// the PP-OCRv4 LearnableAffineBlock shape.
// kind: 0 depthwise 3x3 stride (2, 1), 1 pointwise, 2 dense 3x3 (phase-plane GEMM modes),
// 3 dense 3x3 with 16 channels (Winograd mode, ops/nn/conv_winograd.cc).
int64_t AffineActChannels(int kind) { return kind == 3 ? 16 : 6; }

Model DepthwiseAffineAct(const std::string& act, int kind) {
  const bool pointwise = kind == 1;
  const int64_t c = AffineActChannels(kind);
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = pointwise   ? RandomF32({c, c, 1, 1}, 11)
                         : kind >= 2 ? RandomF32({c, c, 3, 3}, 11)
                                     : RandomF32({c, 1, 3, 3}, 11);
  g->initializers["s1"] = RandomF32({c, 1, 1}, 12);
  g->initializers["t1"] = Tensor::FromF32({0.25f}, {1});
  g->initializers["s2"] = Tensor::FromF32({1.5f}, {1});
  g->initializers["t2"] = RandomF32({1, c, 1, 1}, 13);
  if (pointwise) g->nodes.push_back(ConvOp({"x", "w"}, "c", {0, 0, 0, 0}, {1, 1}));
  else if (kind >= 2) g->nodes.push_back(ConvOp({"x", "w"}, "c", {1, 1, 1, 1}, {1, 1}));
  else g->nodes.push_back(ConvOp({"x", "w"}, "c", {1, 1, 1, 1}, {2, 1}, c));
  g->nodes.push_back(Op("Mul", {"s1", "c"}, "m1", 14));
  g->nodes.push_back(Op("Add", {"m1", "t1"}, "a1", 14));
  Node a = Op(act, {"a1"}, "h", 14);
  if (act == "HardSigmoid") {
    a.attrs["alpha"] = FloatAttr("alpha", 0.2f);
    a.attrs["beta"] = FloatAttr("beta", 0.5f);
  }
  if (act == "LeakyRelu") a.attrs["alpha"] = FloatAttr("alpha", 0.1f);
  g->nodes.push_back(a);
  g->nodes.push_back(Op("Mul", {"h", "s2"}, "m2", 14));
  g->nodes.push_back(Op("Add", {"t2", "m2"}, "y", 14));
  g->outputs.push_back({"y", {}});
  return WrapGraph(g);
}

TEST(FusionTest, AffineActivationAffineChainsMatchUnfused) {
  for (int threads : {1, 2})
  for (int kind : {0, 1, 2, 3})
    for (const char* act : {"HardSwish", "HardSigmoid", "Sigmoid", "LeakyRelu", "Relu"}) {
      SCOPED_TRACE(std::string(act) + " kind " + std::to_string(kind) + " threads " +
                   std::to_string(threads));
      // 40 x 33 = 1320 output columns: more than one 1024-column band for pointwise.
      const int64_t c = AffineActChannels(kind);
      // The fused filter is the folded one: under Winograd its rounding differs from the
      // unfused filter's by the mode's error bound (docs/accuracy.md), about 1e-4 here.
      const double tol = kind == 3 ? 1e-3 : 2e-5;
      auto g = ExpectFusedMatches([&] { return DepthwiseAffineAct(act, kind); },
                                  RandomF32({2, c, 40, 33}, 14, -4.0f, 4.0f), 1, tol, threads);
      ASSERT_NE(g, nullptr);
      ASSERT_EQ(g->nodes.size(), 1u);
      const Node& conv = g->nodes[0];
      EXPECT_EQ(conv.GetString(kConvActAttr, ""), act);
      EXPECT_EQ(conv.GetFloats(kConvActScaleAttr), std::vector<float>{1.5f});
      EXPECT_EQ(conv.GetFloats(kConvActShiftAttr).size(), static_cast<size_t>(c));
    }
}

// x [N, 4, H, W] -> ConvTranspose(W [4, 6 / group, k, k], B, stride s, group) ->
// BatchNormalization -> Mul(per channel) -> `act` -> Add(per channel) -> y. k == s writes each
// output once (the epilogue runs per col slice); k = 3, s = 2 with pads overlaps (it runs on
// the accumulated output).
Model ConvTransposeBnAct(const std::string& act, int64_t k, int64_t s, int64_t group) {
  const int64_t c = 4, m = 6;
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = RandomF32({c, m / group, k, k}, 61);
  g->initializers["b"] = RandomF32({m}, 62);
  g->initializers["scale"] = RandomF32({m}, 63);
  g->initializers["bias"] = RandomF32({m}, 64);
  g->initializers["mean"] = RandomF32({m}, 65);
  g->initializers["var"] = RandomF32({m}, 66, 0.1f, 2.0f);
  g->initializers["s1"] = RandomF32({m, 1, 1}, 67);
  g->initializers["t2"] = RandomF32({1, m, 1, 1}, 68);
  Node ct = ConvOp({"x", "w", "b"}, "c", k == s ? std::vector<int64_t>{0, 0, 0, 0}
                                                : std::vector<int64_t>{1, 0, 1, 0},
                   {s, s}, group);
  ct.op_type = "ConvTranspose";
  g->nodes.push_back(ct);
  g->nodes.push_back(Op("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, "n", 14));
  g->nodes.push_back(Op("Mul", {"n", "s1"}, "m1", 14));
  g->nodes.push_back(Op(act, {"m1"}, "h", 14));
  g->nodes.push_back(Op("Add", {"h", "t2"}, "y", 14));
  g->outputs.push_back({"y", {}});
  return WrapGraph(g);
}

TEST(FusionTest, ConvTransposeAbsorbsBatchNormAffineAndActivation) {
  struct Geometry { int64_t k, s, group; };
  for (const Geometry geo : {Geometry{2, 2, 1}, Geometry{2, 2, 2}, Geometry{3, 2, 1},
                             Geometry{3, 2, 2}})
    for (const char* act : {"Relu", "Sigmoid", "HardSwish"})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(std::string(act) + " k " + std::to_string(geo.k) + " group " +
                     std::to_string(geo.group) + " threads " + std::to_string(threads));
        auto g = ExpectFusedMatches(
            [&] { return ConvTransposeBnAct(act, geo.k, geo.s, geo.group); },
            RandomF32({2, 4, 7, 9}, 69, -2.0f, 2.0f), 1, 2e-5, threads);
        ASSERT_NE(g, nullptr);
        ASSERT_EQ(g->nodes.size(), 1u);
        const Node& ct = g->nodes[0];
        EXPECT_EQ(ct.op_type, "ConvTranspose");
        EXPECT_EQ(ct.outputs[0], "y");
        EXPECT_EQ(ct.GetString(kConvActAttr, ""), act);
        EXPECT_EQ(ct.inputs[1], "m1.vt_folded_w");
        EXPECT_EQ(ct.GetFloats(kConvActShiftAttr).size(), 6u);
      }
}

TEST(FusionTest, ConvTransposeWithFusedScaleOfTheWrongSizeIsRefused) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = RandomF32({3, 2, 2, 2}, 71);
  Node ct = ConvOp({"x", "w"}, "y", {0, 0, 0, 0}, {2, 2});
  ct.op_type = "ConvTranspose";
  Attribute a;
  a.name = kConvActAttr;
  a.type = Attribute::Type::kString;
  a.s = "Sigmoid";
  ct.attrs[a.name] = a;
  Attribute sc;
  sc.name = kConvActScaleAttr;
  sc.type = Attribute::Type::kFloats;
  sc.floats = {1.0f, 2.0f, 3.0f};  // 3 values for 2 output channels
  ct.attrs[sc.name] = sc;
  g->nodes.push_back(ct);
  g->outputs.push_back({"y", {}});
  auto r = EvaluateModel(WrapGraph(g), {Value(RandomF32({1, 3, 2, 2}, 72))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("3 values for 2 channels"), std::string::npos)
      << r.status().message();
}

TEST(FusionTest, ClipWithConstantBoundsBecomesTheKernelClamp) {
  auto build = [] {
    auto g = std::make_shared<Graph>();
    g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
    g->initializers["w"] = RandomF32({4, 2, 1, 1}, 21);
    g->initializers["lo"] = Tensor::ScalarF32(-0.5f);
    g->initializers["hi"] = Tensor::ScalarF32(0.75f);
    g->nodes.push_back(ConvOp({"x", "w"}, "c", {0, 0, 0, 0}, {1, 1}));
    g->nodes.push_back(Op("Clip", {"c", "lo", "hi"}, "y", 14));
    g->outputs.push_back({"y", {}});
    return WrapGraph(g);
  };
  auto g = ExpectFusedMatches(build, RandomF32({1, 2, 30, 40}, 22, -3.0f, 3.0f), 1, 0.0);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].GetFloats(kConvActParamsAttr), (std::vector<float>{-0.5f, 0.75f}));
  EXPECT_EQ(g->nodes[0].inputs[1], "w");  // nothing folded: the weights stay as they were
}

TEST(FusionTest, KeepsSharedWeightsAndGraphOutputsAndNonChannelConstants) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = RandomF32({3, 3, 1, 1}, 31);
  g->initializers["k"] = RandomF32({3, 1, 1}, 32);
  g->initializers["spatial"] = RandomF32({1, 1, 4, 4}, 33);
  g->nodes.push_back(ConvOp({"x", "w"}, "c1", {0, 0, 0, 0}, {1, 1}));
  g->nodes.push_back(Op("Mul", {"c1", "k"}, "m1", 14));       // folded; w still read by c2
  g->nodes.push_back(ConvOp({"x", "w"}, "c2", {0, 0, 0, 0}, {1, 1}));
  g->nodes.push_back(Op("Relu", {"c2"}, "r2", 14));           // c2 is a graph output: kept
  g->nodes.push_back(ConvOp({"x", "w"}, "c3", {0, 0, 0, 0}, {1, 1}));
  g->nodes.push_back(Op("Mul", {"c3", "spatial"}, "m3", 14)); // not per channel: kept
  g->outputs = {{"m1", {}}, {"c2", {}}, {"r2", {}}, {"m3", {}}};
  Model m = WrapGraph(g);
  EXPECT_EQ(FuseConv(*m.graph), 1u);
  EXPECT_EQ(g->nodes.size(), 5u);
  EXPECT_EQ(g->initializers.count("w"), 1u);
  EXPECT_EQ(g->nodes[0].outputs[0], "m1");
  auto r = EvaluateModel(m, {Value(RandomF32({1, 3, 4, 4}, 34))});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST(FusionTest, MalformedFusedAttributesAreRefused) {
  auto g = std::make_shared<Graph>();
  g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  g->initializers["w"] = RandomF32({3, 3, 1, 1}, 41);
  Node conv = ConvOp({"x", "w"}, "y", {0, 0, 0, 0}, {1, 1});
  Attribute a;
  a.name = kConvActAttr;
  a.type = Attribute::Type::kString;
  a.s = "Swish";
  conv.attrs[a.name] = a;
  g->nodes.push_back(conv);
  g->outputs.push_back({"y", {}});
  auto r = EvaluateModel(WrapGraph(g), {Value(RandomF32({1, 3, 2, 2}, 42))});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown fused activation 'Swish'"), std::string::npos)
      << r.status().message();
}


TEST(FusionTest, ResidualSqueezeExciteBecomesOneMultiply) {
  auto build = [] {
    auto g = std::make_shared<Graph>();
    g->inputs.push_back({"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
    g->initializers["wa"] = RandomF32({8, 3, 3, 3}, 51);
    g->initializers["wb"] = RandomF32({2, 8, 1, 1}, 52);
    g->initializers["bb"] = RandomF32({2}, 53);
    g->initializers["wc"] = RandomF32({8, 2, 1, 1}, 54);
    g->initializers["bc"] = RandomF32({8}, 55);
    g->nodes.push_back(ConvOp({"x", "wa"}, "f", {1, 1, 1, 1}, {1, 1}));
    g->nodes.push_back(Op("GlobalAveragePool", {"f"}, "p", 14));
    g->nodes.push_back(ConvOp({"p", "wb", "bb"}, "q", {0, 0, 0, 0}, {1, 1}));
    g->nodes.push_back(Op("Relu", {"q"}, "r", 14));
    g->nodes.push_back(ConvOp({"r", "wc", "bc"}, "u", {0, 0, 0, 0}, {1, 1}));
    Node hs = Op("HardSigmoid", {"u"}, "h", 14);
    hs.attrs["alpha"] = FloatAttr("alpha", 0.2f);
    hs.attrs["beta"] = FloatAttr("beta", 0.5f);
    g->nodes.push_back(hs);
    g->nodes.push_back(Op("Mul", {"f", "h"}, "m", 14));
    g->nodes.push_back(Op("Add", {"f", "m"}, "y", 14));
    g->outputs.push_back({"y", {}});
    return WrapGraph(g);
  };
  auto g = ExpectFusedMatches(build, RandomF32({1, 3, 12, 10}, 56), 3);
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->nodes.size(), 5u);
  EXPECT_EQ(g->nodes[4].op_type, "Mul");
  EXPECT_EQ(g->nodes[4].outputs[0], "y");
  EXPECT_EQ(g->nodes[3].GetFloats(kConvActShiftAttr), std::vector<float>{1.0f});
}

}  // namespace
}  // namespace vt
