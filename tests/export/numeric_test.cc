// The exported StableHLO computes the model. Each test exports a model, evaluates
// the module with the reference interpreter (hlo_interpreter.h; external parameters read back
// from the .irpa through their declared layouts) and compares with the vtensor runtime on the
// same inputs. Real models come from the model cache (skipped when absent).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <functional>
#include <random>

#include "hlo_interpreter.h"
#include "passes/test_model_builder.h"
#include "tools/compare.h"
#include "tools/synthetic_transformer.h"
#include "vtensor/export/irpa_writer.h"
#include "vtensor/export/stablehlo_export.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/pass.h"
#include "vtensor/passes/static_shapes.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

using testing::OnnxBuilder;

Tensor RandomTensor(DType dt, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Empty(dt, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float f = static_cast<float>(rng() >> 8) * (2.0f / 16777216.0f) - 1.0f;
    if (dt == DType::kFloat32) t.mutable_data<float>()[i] = f;
    else if (dt == DType::kInt64) t.mutable_data<int64_t>()[i] = static_cast<int64_t>(rng() % 3);
    else if (dt == DType::kBool) t.mutable_data<bool>()[i] = (rng() & 1) != 0;
  }
  return t;
}

struct Case {
  std::string target;
  bool externalize = true;
  std::map<std::string, Shape> shapes;
  // Shapes to run inputs whose dims the export leaves dynamic with (not given to the export).
  std::map<std::string, Shape> run_shapes;
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, Tensor> feeds;  // fixed inputs (others random)
  double rtol = 1e-4, atol = 1e-5;
};

// Exports `load()`'s model, runs both, compares every output.
void CheckModel(const std::function<Expected<Model>()>& load, const Case& c) {
  auto for_export = load();
  auto for_runtime = load();
  ASSERT_TRUE(for_export.ok() && for_runtime.ok()) << for_export.status().ToString();
  ASSERT_TRUE(CaptureTensorMeta(*for_export).ok());
  ASSERT_TRUE(RunPasses(*for_export, c.target).ok());
  StableHloOptions o;
  o.target = c.target;
  o.externalize = c.externalize;
  o.externalize_above = 0;
  o.input_shapes = c.shapes;
  o.input_values = c.values;
  auto mod = ExportStableHlo(*for_export, o);
  ASSERT_TRUE(mod.ok()) << mod.status().ToString();
  if (!c.run_shapes.empty()) {
    ASSERT_NE(mod->mlir.find('?'), std::string::npos) << "no dynamic dim exported";
  }
  if (std::getenv("VT_DUMP_MLIR") != nullptr) std::fprintf(stderr, "%s\n", mod->mlir.c_str());
  std::vector<IrpaEntry> entries;
  for (const auto& p : mod->params) entries.push_back({p.key, p.layout_text, p.bytes});
  auto irpa = SerializeIrpa(entries);
  ASSERT_TRUE(irpa.ok());
  auto interp = testing::HloInterpreter::Parse(mod->mlir);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  ASSERT_TRUE((*interp)->LoadParameters(*irpa).ok());

  // Inputs: the exported function's arguments, in graph order (bound values excluded).
  std::vector<Tensor> args;
  std::vector<Value> feeds;
  uint32_t seed = 100;
  for (const GraphIO* in : for_runtime->graph->RealInputs()) {
    Tensor t;
    if (auto v = c.values.find(in->name); v != c.values.end()) {
      t = Tensor::Empty(in->spec.dtype(), in->spec.shape() && in->spec.shape()->empty() ? Shape{} : Shape{static_cast<int64_t>(v->second.size())});
      for (size_t k = 0; k < v->second.size(); ++k) {
        if (t.dtype() == DType::kInt64) t.mutable_data<int64_t>()[k] = static_cast<int64_t>(v->second[k]);
        else t.mutable_data<float>()[k] = static_cast<float>(v->second[k]);
      }
      feeds.emplace_back(t);
      continue;
    }
    if (auto f = c.feeds.find(in->name); f != c.feeds.end()) {
      t = f->second;
    } else {
      Shape s = c.run_shapes.count(in->name) ? c.run_shapes.at(in->name)
                : c.shapes.count(in->name) ? c.shapes.at(in->name) : Shape{};
      if (!c.shapes.count(in->name) && !c.run_shapes.count(in->name))
        for (const Dim& d : *in->spec.shape()) s.push_back(d.value);
      t = RandomTensor(in->spec.dtype(), s, seed++);
    }
    args.push_back(t);
    feeds.emplace_back(t);
  }
  auto got = (*interp)->Run(args);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  SessionOptions so;
  auto session = Session::Create(std::move(*for_runtime), so);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto want = (*session)->Run(feeds);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    CompareResult r = CompareTensors((*got)[i], (*want)[i].tensor(), c.rtol, c.atol);
    if (!r.pass && std::getenv("VT_DUMP_MLIR") != nullptr) {
      const Tensor g = (*got)[i].Contiguous(), w = (*want)[i].tensor().Contiguous();
      for (int64_t k = 0; k < std::min<int64_t>(g.numel(), 12); ++k)
        std::fprintf(stderr, "  [%ld] got %g want %g\n", static_cast<long>(k), g.GetDouble(k), w.GetDouble(k));
      if (!args.empty())
        for (int64_t k = 0; k < std::min<int64_t>(args[0].numel(), 20); ++k)
          std::fprintf(stderr, "  in0[%ld] = %g\n", static_cast<long>(k), args[0].GetDouble(k));
    }
    EXPECT_TRUE(r.pass) << "output " << i << ": " << r.detail << " (max abs diff " << r.max_abs_diff << ")";
  }
}

void Check(OnnxBuilder b, const Case& c = {}) {
  CheckModel([&] { return b.Import(); }, c);
}

OnnxBuilder Unary(const std::string& op, const Shape& s = {2, 3, 4}) {
  OnnxBuilder b(14);
  b.Input("X", s).Output("Y", s);
  b.Node(op, {"X"}, {"Y"});
  return b;
}

TEST(ExportNumericTest, ElementwiseActivations) {
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "HardSwish", "HardSigmoid",
                         "LeakyRelu", "Elu", "Softplus", "Floor", "Ceil", "Erf", "Identity"})
    Check(Unary(op));
  auto sq = Unary("Sqrt");
  Check(sq, {});  // negative inputs give NaN on both sides
}

TEST(ExportNumericTest, BroadcastBinaryOpsAndClip) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"}) {
    OnnxBuilder b(14);
    b.Input("A", {2, 1, 4}).Input("B", {3, 1}).Output("Y", {2, 3, 4});
    b.Node(op, {"A", "B"}, {"Y"});
    Check(b);
  }
  OnnxBuilder c(14);
  c.Input("X", {5, 3}).Output("Y", {5, 3}).Init("lo", {}, {-0.25f}).Init("hi", {}, {0.5f});
  c.Node("Clip", {"X", "lo", "hi"}, {"Y"});
  Check(c);
  OnnxBuilder e(14);
  e.Input("A", {4}).Input("B", {4}).Output("Y", {4}, onnx::TensorProto::BOOL).Output("Z", {4});
  e.Node("Less", {"A", "B"}, {"Y"});
  e.Node("Where", {"Y", "A", "B"}, {"Z"});
  Check(e);
}

TEST(ExportNumericTest, SmallConvNetWithAndWithoutTargetLayouts) {
  OnnxBuilder b(13);
  b.Input("X", {1, 3, 8, 8}).Output("Y", {1, 10});
  b.RandomInit("W1", {4, 3, 3, 3}, 11).RandomInit("B1", {4}, 12).RandomInit("W2", {64, 10}, 13);
  auto& conv = b.Node("Conv", {"X", "W1", "B1"}, {"c"});
  OnnxBuilder::AttrInts(conv, "pads", {1, 1, 1, 1});
  b.Node("Relu", {"c"}, {"r"});
  auto& pool = b.Node("MaxPool", {"r"}, {"p"});
  OnnxBuilder::AttrInts(pool, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(pool, "strides", {2, 2});
  b.Node("Flatten", {"p"}, {"f"});
  b.Node("MatMul", {"f", "W2"}, {"m"});
  b.Node("Softmax", {"m"}, {"Y"});
  for (const char* t : {"", "x86_64-avx512", "x86_64-avx2", "x86_64-baseline", "iree-llvm-cpu"}) {
    Case c;
    c.target = t;
    Check(b, c);  // packed parameters are unpacked through their declared layouts
  }
}

TEST(ExportNumericTest, TransposedWeightAndGemmFlags) {
  OnnxBuilder b;
  b.Input("X", {3, 5}).Output("Y", {3, 4}).Output("Z", {3, 4}).RandomInit("W", {4, 5}, 3).RandomInit("C", {4}, 4);
  b.Node("Transpose", {"W"}, {"Wt"});
  b.Node("MatMul", {"X", "Wt"}, {"Y"});
  b.Node("Transpose", {"W"}, {"Wt2"});
  auto& g = b.Node("Gemm", {"X", "Wt2", "C"}, {"Z"});
  OnnxBuilder::AttrF(g, "alpha", 0.5f);
  OnnxBuilder::AttrF(g, "beta", 2.0f);
  for (const char* t : {"", "x86_64-avx2"}) {
    Case c;
    c.target = t;
    Check(b, c);
  }
}

TEST(ExportNumericTest, BatchedMatMulBroadcast) {
  OnnxBuilder b;
  b.Input("A", {2, 1, 3, 4}).Input("B", {3, 4, 5}).Output("Y", {2, 3, 3, 5});
  b.Node("MatMul", {"A", "B"}, {"Y"});
  Check(b);
}

TEST(ExportNumericTest, ConvFamily) {
  OnnxBuilder b(14);
  b.Input("X", {1, 4, 6, 7}).Output("Up", {1, 2, 13, 15}).Output("Dw", {1, 4, 6, 7}).Output("S", {1, 3, 3, 4});
  b.RandomInit("Wt", {4, 2, 3, 3}, 5).RandomInit("Bt", {2}, 6).RandomInit("Wd", {4, 1, 3, 3}, 7);
  b.RandomInit("Ws", {3, 4, 3, 3}, 8);
  auto& ct = b.Node("ConvTranspose", {"X", "Wt", "Bt"}, {"Up"});
  OnnxBuilder::AttrInts(ct, "strides", {2, 2});
  OnnxBuilder::AttrInts(ct, "pads", {1, 0, 1, 0});
  OnnxBuilder::AttrInts(ct, "output_padding", {1, 0});
  auto& dw = b.Node("Conv", {"X", "Wd"}, {"Dw"});
  OnnxBuilder::AttrI(dw, "group", 4);
  OnnxBuilder::AttrInts(dw, "pads", {1, 1, 1, 1});
  auto& sc = b.Node("Conv", {"X", "Ws"}, {"S"});
  OnnxBuilder::AttrInts(sc, "strides", {2, 2});
  OnnxBuilder::AttrS(sc, "auto_pad", "SAME_UPPER");
  OnnxBuilder::AttrInts(sc, "dilations", {1, 2});
  Check(b);
  OnnxBuilder g(14);  // grouped transpose convolution and 1-D convolution
  g.Input("X", {1, 4, 5}).Output("Y", {1, 6, 11}).Output("Z", {1, 2, 3}).RandomInit("W", {4, 3, 3}, 9).RandomInit("V", {2, 4, 3}, 10);
  auto& gt = g.Node("ConvTranspose", {"X", "W"}, {"Y"});
  OnnxBuilder::AttrI(gt, "group", 2);
  OnnxBuilder::AttrInts(gt, "strides", {2});
  g.Node("Conv", {"X", "V"}, {"Z"});
  Check(g);
}

TEST(ExportNumericTest, Pooling) {
  OnnxBuilder b(13);
  b.Input("X", {1, 2, 7, 7}).Output("A", {1, 2, 4, 4}).Output("B", {1, 2, 4, 4}).Output("M", {1, 2, 4, 4})
      .Output("G", {1, 2, 1, 1});
  auto& a = b.Node("AveragePool", {"X"}, {"A"});
  OnnxBuilder::AttrInts(a, "kernel_shape", {3, 3});
  OnnxBuilder::AttrInts(a, "strides", {2, 2});
  OnnxBuilder::AttrInts(a, "pads", {1, 1, 1, 1});
  auto& a2 = b.Node("AveragePool", {"X"}, {"B"});
  OnnxBuilder::AttrInts(a2, "kernel_shape", {3, 3});
  OnnxBuilder::AttrInts(a2, "strides", {2, 2});
  OnnxBuilder::AttrInts(a2, "pads", {1, 1, 1, 1});
  OnnxBuilder::AttrI(a2, "count_include_pad", 1);
  auto& m = b.Node("MaxPool", {"X"}, {"M"});
  OnnxBuilder::AttrInts(m, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(m, "strides", {2, 2});
  OnnxBuilder::AttrI(m, "ceil_mode", 1);
  b.Node("GlobalAveragePool", {"X"}, {"G"});
  Check(b);
}

TEST(ExportNumericTest, Normalizations) {
  OnnxBuilder b(17);
  b.Input("X", {2, 3, 4, 5}).Output("B", {2, 3, 4, 5}).Output("L", {2, 3, 4, 5}).Output("I", {2, 3, 4, 5});
  b.RandomInit("s", {3}, 1).RandomInit("o", {3}, 2).RandomInit("m", {3}, 3).Init("v", {3}, {0.5f, 1.0f, 2.0f});
  b.RandomInit("ls", {4, 5}, 4).RandomInit("lb", {4, 5}, 5);
  b.Node("BatchNormalization", {"X", "s", "o", "m", "v"}, {"B"});
  auto& ln = b.Node("LayerNormalization", {"X", "ls", "lb"}, {"L"});
  OnnxBuilder::AttrI(ln, "axis", -2);
  b.Node("InstanceNormalization", {"X", "s", "o"}, {"I"});
  Check(b);
}

TEST(ExportNumericTest, ReductionsAndSoftmax) {
  for (int opset : {9, 13}) {
    OnnxBuilder b(opset);
    b.Input("X", {2, 3, 4}).Output("S", {2, 3, 4}).Output("L", {2, 3, 4}).Output("R", {2, 1, 4});
    auto& s = b.Node("Softmax", {"X"}, {"S"});
    OnnxBuilder::AttrI(s, "axis", 1);
    auto& l = b.Node("LogSoftmax", {"X"}, {"L"});
    OnnxBuilder::AttrI(l, "axis", -1);
    auto& r = b.Node("ReduceMean", {"X"}, {"R"});
    OnnxBuilder::AttrInts(r, "axes", {1});
    Check(b);
  }
  OnnxBuilder b(13);
  b.Input("X", {2, 3, 4}).Output("S", {2, 4}).Output("M", {2, 3, 1}).InitI64("ax", {1}, {1});
  auto& s = b.Node("ReduceSum", {"X", "ax"}, {"S"});
  OnnxBuilder::AttrI(s, "keepdims", 0);
  auto& m = b.Node("ReduceMax", {"X"}, {"M"});
  OnnxBuilder::AttrInts(m, "axes", {-1});
  Check(b);
}

TEST(ExportNumericTest, DataMovement) {
  OnnxBuilder b(13);
  b.Input("X", {3, 4, 5}).Output("S", {3, 2, 2}).Output("G", {3, 2, 5}).Output("P", {3, 6, 9})
      .Output("E", {3, 6, 9}).Output("T", {5, 3, 4}).Output("C", {3, 8, 5}).Output("Q", {3, 4, 2})
      .Output("R", {6, 4, 10}).Output("U", {2, 3, 4, 5});
  b.InitI64("st", {2}, {-1, 0}).InitI64("en", {2}, {-100, 4}).InitI64("ax", {2}, {1, 2}).InitI64("sp", {2}, {-2, 3});
  b.Node("Slice", {"X", "st", "en", "ax", "sp"}, {"S"});
  b.InitI64("gi", {2}, {3, -4});
  auto& g = b.Node("Gather", {"X", "gi"}, {"G"});
  OnnxBuilder::AttrI(g, "axis", 1);
  b.InitI64("pads", {6}, {0, 1, 2, 0, 1, 2});
  auto& p = b.Node("Pad", {"X", "pads"}, {"P"});
  OnnxBuilder::AttrS(p, "mode", "reflect");
  auto& e = b.Node("Pad", {"X", "pads"}, {"E"});
  OnnxBuilder::AttrS(e, "mode", "edge");
  auto& t = b.Node("Transpose", {"X"}, {"T"});
  OnnxBuilder::AttrInts(t, "perm", {2, 0, 1});
  auto& c = b.Node("Concat", {"X", "X"}, {"C"});
  OnnxBuilder::AttrI(c, "axis", 1);
  b.InitI64("split", {2}, {3, 2});
  auto& sp = b.Node("Split", {"X", "split"}, {"Q0", "Q1"});
  OnnxBuilder::AttrI(sp, "axis", 2);
  b.Node("Relu", {"Q1"}, {"Q"});
  b.InitI64("reps", {3}, {2, 1, 2});
  b.Node("Tile", {"X", "reps"}, {"R"});
  b.InitI64("shape", {4}, {2, 3, 1, 1});
  b.Node("Expand", {"X", "shape"}, {"U"});
  Check(b);
  OnnxBuilder d(13);  // gather with run-time indices, negative ones included
  d.Input("X", {4, 3}).Input("I", {2, 2}, onnx::TensorProto::INT64).Output("Y", {2, 2, 3});
  d.Node("Gather", {"X", "I"}, {"Y"});
  Case c2;
  Tensor idx = Tensor::Empty(DType::kInt64, {2, 2});
  for (int i = 0; i < 4; ++i) idx.mutable_data<int64_t>()[i] = i - 2;
  c2.feeds["I"] = idx;
  Check(d, c2);
}

TEST(ExportNumericTest, Resize) {
  struct R {
    const char* mode;
    const char* ctm;
  };
  for (R r : {R{"nearest", "asymmetric"}, R{"nearest", "half_pixel"}, R{"linear", "half_pixel"},
              R{"linear", "align_corners"}, R{"linear", "pytorch_half_pixel"}, R{"cubic", "half_pixel"}}) {
    OnnxBuilder b(13);
    b.Input("X", {1, 2, 3, 5}).Output("Y", {1, 2, 6, 8});
    b.InitI64("sizes", {4}, {1, 2, 6, 8});
    auto& n = b.Node("Resize", {"X", "", "", "sizes"}, {"Y"});
    OnnxBuilder::AttrS(n, "mode", r.mode);
    OnnxBuilder::AttrS(n, "coordinate_transformation_mode", r.ctm);
    if (std::string(r.mode) == "nearest") OnnxBuilder::AttrS(n, "nearest_mode", "floor");
    SCOPED_TRACE(std::string(r.mode) + "/" + r.ctm);
    Check(b);
  }
  OnnxBuilder s(11);  // scales form, as the PaddleOCR detector uses it
  s.Input("X", {1, 2, 3, 4}).Output("Y", {1, 2, 6, 8});
  s.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
  auto& n = s.Node("Resize", {"X", "roi", "scales"}, {"Y"});
  OnnxBuilder::AttrS(n, "mode", "nearest");
  OnnxBuilder::AttrS(n, "coordinate_transformation_mode", "asymmetric");
  OnnxBuilder::AttrS(n, "nearest_mode", "floor");
  Check(s);
}

TEST(ExportNumericTest, LstmForwardReverseBidirectional) {
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    const int64_t D = std::string(dir) == "bidirectional" ? 2 : 1, H = 3, I = 2, T = 4, B = 2;
    OnnxBuilder b(14);
    b.Input("X", {T, B, I}).Output("Y", {T, D, B, H}).Output("Yh", {D, B, H}).Output("Yc", {D, B, H});
    b.RandomInit("W", {D, 4 * H, I}, 1).RandomInit("R", {D, 4 * H, H}, 2).RandomInit("Bi", {D, 8 * H}, 3);
    b.RandomInit("h0", {D, B, H}, 4).RandomInit("c0", {D, B, H}, 5);
    auto& n = b.Node("LSTM", {"X", "W", "R", "Bi", "", "h0", "c0"}, {"Y", "Yh", "Yc"});
    OnnxBuilder::AttrI(n, "hidden_size", H);
    OnnxBuilder::AttrS(n, "direction", dir);
    SCOPED_TRACE(dir);
    Check(b);
  }
}

// Resize of the spatial dims with a dynamic batch kept: nearest through dynamic_gather, linear
// through dot_general.
TEST(ExportNumericTest, ResizeWithDynamicBatch) {
  for (const char* mode : {"nearest", "linear"}) {
    OnnxBuilder b(11);
    b.Input("X", {-1, 2, 3, 4}).Output("Y", {-1, 2, 6, 8});
    b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
    auto& n = b.Node("Resize", {"X", "roi", "scales"}, {"Y"});
    OnnxBuilder::AttrS(n, "mode", mode);
    OnnxBuilder::AttrS(n, "coordinate_transformation_mode", "asymmetric");
    if (std::string(mode) == "nearest") OnnxBuilder::AttrS(n, "nearest_mode", "floor");
    for (int64_t batch : {1, 2}) {
      SCOPED_TRACE(std::string(mode) + " batch " + std::to_string(batch));
      Case c;
      c.run_shapes["X"] = {batch, 2, 3, 4};
      Check(b, c);
    }
  }
}

// The unrolled LSTM with a dynamic batch: zero initial states of the run-time batch.
TEST(ExportNumericTest, LstmWithDynamicBatch) {
  const int64_t H = 3, I = 2, T = 4;
  OnnxBuilder b(14);
  b.Input("X", {T, -1, I}).Output("Y", {T, 2, -1, H}).Output("Yh", {2, -1, H}).Output("Yc", {2, -1, H});
  b.RandomInit("W", {2, 4 * H, I}, 1).RandomInit("R", {2, 4 * H, H}, 2).RandomInit("Bi", {2, 8 * H}, 3);
  auto& n = b.Node("LSTM", {"X", "W", "R", "Bi"}, {"Y", "Yh", "Yc"});
  OnnxBuilder::AttrI(n, "hidden_size", H);
  OnnxBuilder::AttrS(n, "direction", "bidirectional");
  for (int64_t batch : {1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Case c;
    c.run_shapes["X"] = {T, batch, I};
    Check(b, c);
  }
}

TEST(ExportNumericTest, IfWithARuntimeCondition) {
  for (bool cond : {true, false}) {
    OnnxBuilder b(13);
    b.Input("X", {2, 2}).Input("C", {}, onnx::TensorProto::BOOL).Output("Y", {2, 2});
    auto& n = b.Node("If", {"C"}, {"Y"});
    for (const char* branch : {"then_branch", "else_branch"}) {
      auto* a = n.add_attribute();
      a->set_name(branch);
      a->set_type(onnx::AttributeProto::GRAPH);
      auto* g = a->mutable_g();
      g->set_name(branch);
      auto* node = g->add_node();
      node->set_op_type(std::string(branch) == "then_branch" ? "Sigmoid" : "Neg");
      node->add_input("X");
      node->add_output(std::string(branch) + "_y");
      g->add_output()->set_name(std::string(branch) + "_y");
    }
    Case c;
    Tensor t = Tensor::Empty(DType::kBool, {});
    t.mutable_data<bool>()[0] = cond;
    c.feeds["C"] = t;
    Check(b, c);
  }
}

// The synthetic transformer of vtensor-gen-transformer: every op of a
// decoder block (batched MatMul of 4-D operands, Transpose, Reshape with 0/-1, Softmax, Sigmoid,
// RMS norm decomposed into ReduceMean/Sqrt/Div, LayerNormalization), exported with and without
// target layouts and external parameters; the symbolic-seq variant with a bound input shape.
TEST(ExportNumericTest, SyntheticTransformer) {
  char dir_template[] = "/tmp/vt_export_synth_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  ASSERT_NE(dir, nullptr);
  struct Variant {
    NormKind norm;
    bool dynamic_seq;
    const char* target;
  };
  for (const Variant& v : {Variant{NormKind::kRms, false, ""}, Variant{NormKind::kRms, false, "x86_64-avx512"},
                           Variant{NormKind::kLayer, false, "x86_64-avx2"}, Variant{NormKind::kRms, true, "iree-llvm-cpu"}}) {
    TransformerConfig tc;
    tc.hidden = 64;
    tc.ffn = 172;
    tc.heads = 4;
    tc.layers = 2;
    tc.seq = 5;
    tc.norm = v.norm;
    tc.dynamic_seq = v.dynamic_seq;
    const std::string path = std::string(dir) + "/synthetic.onnx";
    auto gen = WriteSyntheticTransformer(tc, path, WeightStorage::kExternal);
    ASSERT_TRUE(gen.ok()) << gen.status().ToString();
    Case c;
    c.target = v.target;
    c.externalize = !std::string(v.target).empty();
    if (v.dynamic_seq) c.shapes["x"] = {1, 7, 64};
    c.rtol = 1e-3;
    c.atol = 1e-4;
    SCOPED_TRACE(std::string(v.norm == NormKind::kRms ? "rms" : "layer") + (v.dynamic_seq ? " dynamic " : " ") + v.target);
    CheckModel([&] { return LoadModel(path); }, c);
    std::remove(gen->data_path.c_str());
    std::remove(path.c_str());
  }
  ::rmdir(dir);
}

// Modules with dynamic dims (docs/export.md, "Dynamic dims"): one export, run at several
// extents of the dynamic dim, 1 included (a dynamic extent that happens to broadcast).
TEST(ExportNumericTest, DynamicBatchMlpAndConvNet) {
  OnnxBuilder mlp(13);
  mlp.Input("X", {-1, 16}).Output("Y", {-1, 8});
  mlp.RandomInit("W1", {16, 32}, 21).RandomInit("B1", {32}, 22).RandomInit("W2", {32, 8}, 23);
  mlp.RandomInit("B2", {8}, 24);
  mlp.Node("MatMul", {"X", "W1"}, {"h"});
  mlp.Node("Add", {"h", "B1"}, {"hb"});
  mlp.Node("Relu", {"hb"}, {"r"});
  auto& g = mlp.Node("Gemm", {"r", "W2", "B2"}, {"Y"});
  OnnxBuilder::AttrF(g, "alpha", 0.5f);
  OnnxBuilder conv(13);
  conv.Input("X", {-1, 3, 8, 8}).Output("Y", {-1, 10}).Output("Z", {-1, 4, 1, 1}).Output("U", {-1, 2, 16, 16});
  conv.RandomInit("W1", {4, 3, 3, 3}, 11).RandomInit("B1", {4}, 12).RandomInit("W2", {64, 10}, 13);
  conv.RandomInit("S", {4}, 14).RandomInit("Bn", {4}, 15).RandomInit("M", {4}, 16);
  conv.Init("V", {4}, {0.5f, 1.0f, 1.5f, 2.0f});
  auto& c1 = conv.Node("Conv", {"X", "W1", "B1"}, {"c"});
  OnnxBuilder::AttrInts(c1, "pads", {1, 1, 1, 1});
  conv.Node("BatchNormalization", {"c", "S", "Bn", "M", "V"}, {"bn"});
  conv.Node("Relu", {"bn"}, {"r"});
  auto& pool = conv.Node("AveragePool", {"r"}, {"p"});
  OnnxBuilder::AttrInts(pool, "kernel_shape", {2, 2});
  OnnxBuilder::AttrInts(pool, "strides", {2, 2});
  conv.Node("GlobalAveragePool", {"p"}, {"Z"});
  conv.RandomInit("Wt", {4, 2, 2, 2}, 17);
  auto& up = conv.Node("ConvTranspose", {"r", "Wt"}, {"U"});
  OnnxBuilder::AttrInts(up, "strides", {2, 2});
  conv.Node("Flatten", {"p"}, {"f"});
  conv.Node("MatMul", {"f", "W2"}, {"m"});
  conv.Node("Softmax", {"m"}, {"Y"});
  for (int64_t n : {1, 3}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    Case a;
    a.run_shapes["X"] = {n, 16};
    Check(mlp, a);
    for (const char* t : {"", "x86_64-avx2"}) {
      Case b;
      b.target = t;
      b.run_shapes["X"] = {n, 3, 8, 8};
      Check(conv, b);
    }
  }
}

// Data movement around a dynamic batch: slices, pads, splits and gathers along static axes
// (real_dynamic_slice takes the batch whole), gather with indices of dynamic shape, tile and
// expand.
TEST(ExportNumericTest, DynamicBatchDataMovement) {
  OnnxBuilder b(13);
  b.Input("X", {-1, 6}).Input("ids", {-1, 3}, onnx::TensorProto::INT64);
  b.Output("Y", {-1, 12}).Output("E", {-1, 3, 4}).Output("T", {-1, 12}).Output("B", {2, -1, 6});
  b.InitI64("starts", {1}, {1}).InitI64("ends", {1}, {5}).InitI64("axes", {1}, {1});
  b.InitI64("pads", {4}, {0, 1, 0, 2}).InitI64("cols", {3}, {2, 0, -1}).InitI64("reps", {2}, {1, 2});
  b.RandomInit("table", {10, 4}, 31);
  b.Node("Slice", {"X", "starts", "ends", "axes"}, {"s"});                 // [N, 4]
  auto& pad = b.Node("Pad", {"s", "pads"}, {"p"});                           // [N, 7]
  OnnxBuilder::AttrS(pad, "mode", "reflect");
  b.InitI64("split", {2}, {3, 4});
  auto& split = b.Node("Split", {"p", "split"}, {"a", "c"});                 // [N, 3], [N, 4]
  OnnxBuilder::AttrI(split, "axis", 1);
  auto& g = b.Node("Gather", {"c", "cols"}, {"gc"});                         // [N, 3]
  OnnxBuilder::AttrI(g, "axis", 1);
  auto& cat = b.Node("Concat", {"a", "gc", "X"}, {"Y"});                     // [N, 12]
  OnnxBuilder::AttrI(cat, "axis", 1);
  b.Node("Gather", {"table", "ids"}, {"E"});                                 // [N, 3, 4]
  b.Node("Tile", {"X", "reps"}, {"T"});                                      // [N, 12]
  b.InitI64("to", {3}, {2, 1, 6});
  b.Node("Expand", {"X", "to"}, {"B"});                                      // [2, N, 6]
  for (int64_t n : {1, 4}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    Case c;
    c.run_shapes["X"] = {n, 6};
    c.run_shapes["ids"] = {n, 3};
    Check(b, c);
  }
}

// Attention with a dynamic sequence length: reshapes to heads and back, Q K^T contracting
// over a static dim, softmax over a dynamic one, probs V contracting over it.
TEST(ExportNumericTest, SyntheticTransformerWithDynamicSeq) {
  char dir_template[] = "/tmp/vt_export_dyn_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  ASSERT_NE(dir, nullptr);
  TransformerConfig tc;
  tc.hidden = 64;
  tc.ffn = 172;
  tc.heads = 4;
  tc.layers = 2;
  tc.seq = 5;
  tc.dynamic_seq = true;
  const std::string path = std::string(dir) + "/synthetic.onnx";
  auto gen = WriteSyntheticTransformer(tc, path, WeightStorage::kExternal);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  for (int64_t seq : {1, 6}) {
    Case c;
    c.target = "x86_64-avx512";
    c.run_shapes["x"] = {1, seq, 64};
    c.rtol = 1e-3;
    c.atol = 1e-4;
    SCOPED_TRACE("seq " + std::to_string(seq));
    CheckModel([&] { return LoadModel(path); }, c);
  }
  std::remove(gen->data_path.c_str());
  std::remove(path.c_str());
  ::rmdir(dir);
}

// ---- real models (model cache; skipped when absent) ----

std::string CachedModel(const std::string& name) {
  const char* env = std::getenv("VTENSOR_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  std::string dir = env ? env : std::string(home ? home : "") + "/.cache/vtensor/models";
  return dir + "/" + name + "/model.onnx";
}

void CheckRealModel(const std::string& name, const Case& c) {
  const std::string path = CachedModel(name);
  if (access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " not in the model cache";
  CheckModel([&] { return LoadModel(path); }, c);
}

TEST(ExportNumericRealModelTest, PaddleOcrClassifier) {
  Case c;
  c.target = "x86_64-avx512";
  c.shapes["x"] = {1, 3, 48, 192};
  c.rtol = 1e-3;
  c.atol = 1e-4;
  CheckRealModel("ch_ppocr_mobile_v2.0_cls_infer", c);
}

// A partial shape (--input-shape x=?x3x48x192): the batch stays dynamic through the real
// model's convolutions, hardswish / squeeze-excite blocks, pooling and classifier head.
TEST(ExportNumericRealModelTest, PaddleOcrClassifierWithDynamicBatch) {
  for (int64_t batch : {1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Case c;
    c.target = "x86_64-avx512";
    c.shapes["x"] = {-1, 3, 48, 192};
    c.run_shapes["x"] = {batch, 3, 48, 192};
    c.rtol = 1e-3;
    c.atol = 1e-4;
    CheckRealModel("ch_ppocr_mobile_v2.0_cls_infer", c);
  }
}

TEST(ExportNumericRealModelTest, PaddleOcrRecognizer) {
  Case c;
  c.target = "x86_64-avx2";
  c.shapes["x"] = {1, 3, 48, 64};
  c.rtol = 1e-3;
  c.atol = 1e-4;
  CheckRealModel("ch_PP-OCRv4_rec_infer", c);
}

TEST(ExportNumericRealModelTest, PaddleOcrDetector) {
  Case c;
  c.target = "iree-llvm-cpu";
  c.shapes["x"] = {1, 3, 64, 64};
  c.rtol = 1e-3;
  c.atol = 1e-4;
  CheckRealModel("ch_PP-OCRv4_det_infer", c);
}

TEST(ExportNumericRealModelTest, SileroVad16kOp15) {
  Case c;
  c.target = "x86_64-baseline";
  c.shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
  Tensor sr = Tensor::Empty(DType::kInt64, {});
  sr.mutable_data<int64_t>()[0] = 16000;
  c.feeds["sr"] = sr;
  c.rtol = 1e-3;
  c.atol = 1e-4;
  CheckRealModel("silero_vad_16k_op15", c);
}

TEST(ExportNumericRealModelTest, SileroVadV5) {
  Case c;
  c.target = "x86_64-avx512";
  c.shapes = {{"input", {1, 512}}, {"state", {2, 1, 128}}};
  c.values["sr"] = {16000};
  c.rtol = 1e-3;
  c.atol = 1e-4;
  CheckRealModel("silero_vad_v5", c);
}

}  // namespace
}  // namespace vt
