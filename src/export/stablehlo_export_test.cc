#include "vtensor/export/stablehlo_export.h"

#include <gtest/gtest.h>

#include <cstring>

#include "export/export_test_util.h"
#include "export/irpa_test_reader.h"
#include "vtensor/export/irpa_writer.h"
#include "vtensor/export/layout_attr.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/graph/tensor_meta.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_presets.h"
#include "vtensor/passes/capture.h"
#include "vtensor/passes/fusion.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

Expected<StableHloModule> ExportModel(const testing::OnnxBuilder& b, const std::string& target,
                                      StableHloOptions o = {}, Model* keep = nullptr) {
  VT_ASSIGN_OR_RETURN(Model m, b.Import());
  VT_RETURN_IF_ERROR(CaptureTensorMeta(m));
  VT_RETURN_IF_ERROR(RunPasses(m, target));
  o.target = target;
  auto r = ExportStableHlo(m, o);
  if (keep) *keep = m;
  return r;
}

void ExpectParses(const std::string& mlir) {
  if (!testing::HaveMlirOpt()) return;
  EXPECT_EQ(testing::MlirOptParse(mlir), "") << mlir.substr(0, 4000);
}

TEST(StableHloExportTest, WithoutTargetMatchesTheGoldenFileAndHasNoLayouts) {
  auto r = ExportModel(testing::SmallConvNet(), "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->mlir.find("vt.tensor_layouts"), std::string::npos);
  EXPECT_EQ(r->mlir.find("vt.layout"), std::string::npos);
  EXPECT_NE(r->mlir.find("func.func @main("), std::string::npos);
  testing::ExpectGolden("small_convnet.mlir", r->mlir);
  ExpectParses(r->mlir);
  // Deterministic: a second export is byte-identical.
  auto again = ExportModel(testing::SmallConvNet(), "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mlir, r->mlir);
}

TEST(StableHloExportTest, WithTargetEachWeightLayoutIsWhatTheTargetPrefers) {
  Model m;
  auto r = ExportModel(testing::SmallConvNet(), "x86_64-avx512", {}, &m);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectParses(r->mlir);
  EXPECT_NE(r->mlir.find("vt.target = \"x86_64-avx512\""), std::string::npos);
  auto layouts = ReadTensorLayouts(r->mlir);
  ASSERT_TRUE(layouts.ok()) << layouts.status().ToString();
  ASSERT_EQ(layouts->size(), 2u);
  const TargetInfo& t = **FindTarget("x86_64-avx512");
  EXPECT_EQ(layouts->at("W2"), **PreferredWeightLayout(t, {64, 10}, {WeightUse::kMatMulB}));
  WeightUseInfo conv{WeightUse::kConvFilter, 1, false};
  EXPECT_EQ(layouts->at("W1"), **PreferredWeightLayout(t, {4, 3, 3, 3}, conv));
}

// The issue's acceptance case: MatMul(X, Transpose(W)) exports with no transpose op and a
// layout with swapped strides.
TEST(StableHloExportTest, TransposedMatMulWeightExportsAsSwappedStrides) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 4}).Output("Y", {2, 3}).RandomInit("W", {3, 4}, 7);
  b.Node("Transpose", {"W"}, {"Wt"});
  b.Node("MatMul", {"X", "Wt"}, {"Y"});
  StableHloOptions o;
  o.externalize = true;
  o.externalize_above = 0;
  Model m;
  auto r = ExportModel(b, "x86_64-avx2", o, &m);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectParses(r->mlir);
  EXPECT_EQ(r->mlir.find("stablehlo.transpose"), std::string::npos);
  auto layouts = ReadTensorLayouts(r->mlir);
  ASSERT_TRUE(layouts.ok());
  const Layout& l = layouts->at("Wt");
  EXPECT_TRUE(l.is_strided());
  EXPECT_EQ(l.strides(), (std::vector<int64_t>{1, 4}));
  // The parameter holds W's own bytes: a view needs no repacking.
  ASSERT_EQ(r->params.size(), 1u);
  const Tensor& w = m.graph->initializers.at("Wt");
  ASSERT_EQ(r->params[0].bytes.size(), 48u);
  EXPECT_EQ(std::memcmp(r->params[0].bytes.data(), w.storage()->data(), 48), 0);
}

TEST(StableHloExportTest, UnsupportedOpIsAnErrorNamingNodeAndOp) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 3}).Output("Y", {2, 3});
  b.InitI64("axis", {}, {1});
  b.Node("CumSum", {"X", "axis"}, {"Y"}, "running_total");
  auto r = ExportModel(b, "");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node 'running_total'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("CumSum"), std::string::npos);
}

// X[N, 16] -> MatMul(W1) + B1 -> Relu -> MatMul(W2) + B2 -> Y[N, 8], N dynamic.
testing::OnnxBuilder DynamicBatchMlp() {
  testing::OnnxBuilder b(13);
  b.Input("X", {-1, 16}).Output("Y", {-1, 8});
  b.RandomInit("W1", {16, 32}, 21).RandomInit("B1", {32}, 22);
  b.RandomInit("W2", {32, 8}, 23).RandomInit("B2", {8}, 24);
  b.Node("MatMul", {"X", "W1"}, {"h"}, "fc1");
  b.Node("Add", {"h", "B1"}, {"hb"}, "bias1");
  b.Node("Relu", {"hb"}, {"r"}, "relu");
  b.Node("MatMul", {"r", "W2"}, {"m"}, "fc2");
  b.Node("Add", {"m", "B2"}, {"Y"}, "bias2");
  return b;
}

// The golden conv net with a dynamic batch N.
testing::OnnxBuilder DynamicBatchConvNet() {
  testing::OnnxBuilder b = testing::SmallConvNet();
  for (auto* io : {b.proto().mutable_graph()->mutable_input(0), b.proto().mutable_graph()->mutable_output(0)}) {
    auto* d = io->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    d->set_dim_param("N");
  }
  return b;
}

TEST(StableHloExportTest, DynamicBatchMlpKeepsTheBatchDynamic) {
  auto r = ExportModel(DynamicBatchMlp(), "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("%arg0: tensor<?x16xf32> {vt.name = \"X\"}"), std::string::npos) << r->mlir;
  EXPECT_NE(r->mlir.find("-> (tensor<?x8xf32> {vt.name = \"Y\"})"), std::string::npos);
  // The bias and the Relu's zero are broadcast to the run-time batch, read off the argument.
  EXPECT_NE(r->mlir.find("\"stablehlo.get_dimension_size\"(%arg0) {dimension = 0 : i64}"), std::string::npos);
  EXPECT_NE(r->mlir.find("\"stablehlo.dynamic_broadcast_in_dim\""), std::string::npos);
  EXPECT_EQ(r->mlir.find("\"stablehlo.broadcast_in_dim\""), std::string::npos);
  testing::ExpectGolden("dynamic_mlp.mlir", r->mlir);
  ExpectParses(r->mlir);
  // --input-shape still gives a static module.
  StableHloOptions o;
  o.input_shapes["X"] = {5, 16};
  auto fixed = ExportModel(DynamicBatchMlp(), "", o);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_NE(fixed->mlir.find("tensor<5x16xf32>"), std::string::npos);
  EXPECT_EQ(fixed->mlir.find('?'), std::string::npos);
  ExpectParses(fixed->mlir);
}

TEST(StableHloExportTest, DynamicBatchConvNetKeepsTheBatchDynamic) {
  auto r = ExportModel(DynamicBatchConvNet(), "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("%arg0: tensor<?x3x8x8xf32>"), std::string::npos) << r->mlir;
  EXPECT_NE(r->mlir.find("-> (tensor<?x10xf32> {vt.name = \"Y\"})"), std::string::npos);
  EXPECT_NE(r->mlir.find("-> tensor<?x4x8x8xf32>"), std::string::npos);  // the convolution
  // Flatten [N, 4, 4, 4] -> [N, 64] needs the run-time batch.
  EXPECT_NE(r->mlir.find("\"stablehlo.dynamic_reshape\""), std::string::npos);
  testing::ExpectGolden("small_convnet_dynamic.mlir", r->mlir);
  ExpectParses(r->mlir);
}

// A partial input shape (-1 for the batch, as `--input-shape X=?x3x8x8`) binds the other dims
// of a model whose spatial dims are symbolic too: the same module as the batch-only model.
TEST(StableHloExportTest, PartialInputShapeLeavesItsUnboundDimsDynamic) {
  testing::OnnxBuilder b = DynamicBatchConvNet();
  auto* dims = b.proto().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(2)->set_dim_param("H");
  dims->mutable_dim(3)->set_dim_param("W");
  StableHloOptions o;
  o.input_shapes["X"] = {-1, 3, 8, 8};
  auto r = ExportModel(b, "", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  testing::ExpectGolden("small_convnet_dynamic.mlir", r->mlir);
  o.input_shapes["X"] = {-1, 3, 8};
  auto bad = ExportModel(b, "", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("input 'X': the shape given has rank 3"), std::string::npos)
      << bad.status().message();
}

// A reshape to [N * 4, 4] creates a dim no value holds: its extent is the element count
// divided by the static 4.
TEST(StableHloExportTest, ReshapeToAProductOfDynamicDimsDividesTheElementCount) {
  testing::OnnxBuilder b(13);
  b.Input("X", {-1, 4, 4}).Output("Y", {-1, 4});
  b.InitI64("shape", {2}, {-1, 4});
  b.Node("Reshape", {"X", "shape"}, {"Y"}, "merge");
  auto r = ExportModel(b, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("-> (tensor<?x4xf32>"), std::string::npos) << r->mlir;
  EXPECT_NE(r->mlir.find("\"stablehlo.divide\""), std::string::npos) << r->mlir;
  EXPECT_NE(r->mlir.find("\"stablehlo.dynamic_reshape\""), std::string::npos);
  ExpectParses(r->mlir);
}

// Slices, pads and gathers along static axes take a dynamic batch whole: real_dynamic_slice
// and dynamic_gather carry the run-time extents as operands.
TEST(StableHloExportTest, DynamicBatchSlicesPadsAndGathers) {
  testing::OnnxBuilder b(13);
  b.Input("X", {-1, 6}).Output("Y", {-1, 3});
  b.InitI64("starts", {1}, {1}).InitI64("ends", {1}, {5}).InitI64("axes", {1}, {1});
  b.InitI64("pads", {4}, {0, 1, 0, 1}).InitI64("cols", {3}, {0, 2, -1});
  b.Node("Slice", {"X", "starts", "ends", "axes"}, {"s"}, "cut");
  auto& pad = b.Node("Pad", {"s", "pads"}, {"p"}, "pad");
  testing::OnnxBuilder::AttrS(pad, "mode", "edge");
  auto& g = b.Node("Gather", {"p", "cols"}, {"Y"}, "pick");
  testing::OnnxBuilder::AttrI(g, "axis", 1);
  auto r = ExportModel(b, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("\"stablehlo.real_dynamic_slice\""), std::string::npos) << r->mlir;
  EXPECT_NE(r->mlir.find("\"stablehlo.dynamic_gather\""), std::string::npos);
  EXPECT_NE(r->mlir.find("-> (tensor<?x3xf32>"), std::string::npos);
  ExpectParses(r->mlir);
}

// Ops without a dynamic conversion, and dims a converter needs static, are refused naming the
// node, the dim and --input-shape; nothing half-converted comes out.
TEST(StableHloExportTest, DynamicDimsAnOpCannotTakeAreRefusedNamingNodeAndDim) {
  {  // resizing along a dynamic dim
    testing::OnnxBuilder b(13);
    b.Input("X", {1, 2, -1, 4}).Output("Y", {1, 2, -1, 8});
    b.Init("roi", {0}, {}).Init("scales", {4}, {1, 1, 2, 2});
    b.Node("Resize", {"X", "roi", "scales"}, {"Y"}, "upsample");
    auto r = ExportModel(b, "");
    ASSERT_FALSE(r.ok());
    const std::string m = r.status().message();
    EXPECT_NE(m.find("node 'upsample'"), std::string::npos) << m;
    EXPECT_NE(m.find("input 0 ('X') dim 2 is the dynamic dim 'N', but resizing along it needs it static"),
              std::string::npos)
        << m;
  }
  {  // slicing inside a dynamic dim
    testing::OnnxBuilder b(13);
    b.Input("X", {-1, 6}).Output("Y", {-1, 6});
    b.InitI64("starts", {1}, {1}).InitI64("ends", {1}, {3}).InitI64("axes", {1}, {0});
    b.Node("Slice", {"X", "starts", "ends", "axes"}, {"Y"}, "rows");
    auto r = ExportModel(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("node 'rows'"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("clamping the slice's starts and ends needs it static"), std::string::npos)
        << r.status().message();
  }
  {
    testing::OnnxBuilder b(13);
    b.Input("X", {1, 3, -1, 8}).Output("Y", {1, 4, -1, 8});
    b.RandomInit("W", {4, 3, 3, 3}, 5);
    auto& conv = b.Node("Conv", {"X", "W"}, {"Y"}, "conv");
    testing::OnnxBuilder::AttrInts(conv, "pads", {1, 1, 1, 1});
    auto r = ExportModel(b, "");
    ASSERT_FALSE(r.ok());
    const std::string m = r.status().message();
    EXPECT_NE(m.find("node 'conv'"), std::string::npos) << m;
    EXPECT_NE(m.find("input 0 ('X') dim 2 is the dynamic dim 'N'"), std::string::npos) << m;
    StableHloOptions o;
    o.input_shapes["X"] = {1, 3, 8, 8};
    EXPECT_TRUE(ExportModel(b, "", o).ok());
  }
  {  // an unnamed unknown dim is named by its input and position
    testing::OnnxBuilder b(13);
    b.Input("X", {-1, 6}).Output("Y", {-1, 2});
    b.proto().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()
        ->mutable_dim(0)->clear_dim_param();
    b.InitI64("starts", {1}, {1}).InitI64("ends", {1}, {3}).InitI64("axes", {1}, {0});
    b.Node("Slice", {"X", "starts", "ends", "axes"}, {"Y"}, "cut");
    auto r = ExportModel(b, "");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("input 'X' dim 0"), std::string::npos) << r.status().message();
  }
}

// Externalized weights: util.global + #flow.parameter.named, and the archive entries hold
// exactly the payload a compiled tensor holds for the same layout.
TEST(StableHloExportTest, ExternalParametersAreTheCompiledPayloads) {
  StableHloOptions o;
  o.externalize = true;
  o.param_scope = "vt";
  o.externalize_above = 100;
  o.per_type_layouts = true;
  Model m;
  auto r = ExportModel(testing::SmallConvNet(), "x86_64-avx2", o, &m);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectParses(r->mlir);
  EXPECT_NE(r->mlir.find("#flow.parameter.named<\"vt\"::\"W2\">"), std::string::npos);
  EXPECT_NE(r->mlir.find("\"util.global.load\"() {global = @\"W2\"}"), std::string::npos);
  // B1 (16 bytes) and B2 (40 bytes) stay inline.
  ASSERT_EQ(r->params.size(), 2u);
  std::vector<IrpaEntry> entries;
  for (const auto& p : r->params) entries.push_back({p.key, p.layout_text, p.bytes});
  auto archive_bytes = SerializeIrpa(entries);
  ASSERT_TRUE(archive_bytes.ok());
  auto archive = testing::ReadIrpa(*archive_bytes);
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();

  auto layouts = ReadTensorLayouts(r->mlir);
  ASSERT_TRUE(layouts.ok());
  auto types = ReadTypeLayouts(r->mlir);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  // Each global's type carries its layout wherever the type is spelled (declaration,
  // initial value, load, uses).
  EXPECT_GE(types->size(), 2u);
  for (const Layout& l : *types) EXPECT_TRUE(l == layouts->at("W1") || l == layouts->at("W2"));
  for (const char* name : {"W1", "W2"}) {
    const auto* e = archive->Find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->file_offset % 64, 0u);
    const Layout& l = layouts->at(name);
    EXPECT_EQ(e->metadata, DescribeLayout(l).text);
    // The same bytes `vtensor compile` stores for this layout (format/compiled_model.h).
    CompiledModel cm;
    cm.path = "m.onnx";
    *cm.model = testing::SmallConvNet().proto();
    vtensor::DeviceProto dev;
    dev.set_architecture("x86_64-avx2");
    ASSERT_TRUE(AddCompiledTensor(cm, name, l, dev, "t").ok());
    const std::string& payload = cm.ext.compiled_tensors(0).value().raw_data();
    ASSERT_EQ(payload.size(), e->length) << name;
    EXPECT_EQ(std::memcmp(archive_bytes->data() + e->file_offset, payload.data(), e->length), 0) << name;
  }
}

// A block-quantized layout recorded at capture is exported as such: the parameter is the
// packed q4_k payload and the attribute reads back structurally equal.
TEST(StableHloExportTest, CapturedQ4KLayoutIsPackedAndDeclared) {
  testing::OnnxBuilder b2;
  b2.Input("X", {1, 512}).Output("Y", {1, 4}).RandomInit("W", {4, 512}, 3);
  auto& g = b2.Node("Gemm", {"X", "W"}, {"Y"});
  testing::OnnxBuilder::AttrI(g, "transB", 1);
  auto m2 = b2.Import();
  ASSERT_TRUE(m2.ok());
  ASSERT_TRUE(CaptureTensorMeta(*m2).ok());
  auto layout = BlockQuantizedWeight(4, 512, Encoding::kQ4_K, BlockOrder::kInputBlockMajor, 2);
  ASSERT_TRUE(layout.ok());
  SetTensorLayout(m2->graph->values["W"], *layout, kLayoutOriginCapture);
  ASSERT_TRUE(RunPasses(*m2, "x86_64-avx512").ok());
  StableHloOptions o;
  o.externalize = true;
  o.externalize_above = 0;
  auto r = ExportStableHlo(*m2, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectParses(r->mlir);
  auto layouts = ReadTensorLayouts(r->mlir);
  ASSERT_TRUE(layouts.ok());
  EXPECT_EQ(layouts->at("W"), *layout);
  ASSERT_EQ(r->params.size(), 1u);
  const Tensor& w = m2->graph->initializers.at("W");
  auto packed = PackFloats(w.data<float>(), *layout);
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(r->params[0].bytes, *packed);
  EXPECT_EQ(r->params[0].bytes.size(), static_cast<size_t>(layout->StorageBytes()));
}

TEST(StableHloExportTest, DataDependentIfBecomesStablehloIf) {
  testing::OnnxBuilder b;
  b.Input("X", {2, 2}).Input("C", {}, onnx::TensorProto::BOOL).Output("Y", {2, 2});
  auto& n = b.Node("If", {"C"}, {"Y"}, "branch");
  auto make = [](const std::string& name, const std::string& op) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* node = g.add_node();
    node->set_op_type(op);
    node->add_input("X");
    node->add_output(name + "_out");
    auto* out = g.add_output();
    out->set_name(name + "_out");
    auto* tt = out->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    return g;
  };
  auto* t = n.add_attribute();
  t->set_name("then_branch");
  t->set_type(onnx::AttributeProto::GRAPH);
  *t->mutable_g() = make("then", "Relu");
  auto* e = n.add_attribute();
  e->set_name("else_branch");
  e->set_type(onnx::AttributeProto::GRAPH);
  *e->mutable_g() = make("else", "Sigmoid");
  auto r = ExportModel(b, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("\"stablehlo.if\""), std::string::npos);
  EXPECT_NE(r->mlir.find("stablehlo.logistic"), std::string::npos);
  ExpectParses(r->mlir);
}

TEST(StableHloExportTest, LstmIsUnrolled) {
  testing::OnnxBuilder b;
  const int64_t H = 3, I = 2;
  b.Input("X", {4, 1, I}).Output("Y", {4, 1, 1, H}).Output("Yh", {1, 1, H});
  b.RandomInit("W", {1, 4 * H, I}, 1).RandomInit("R", {1, 4 * H, H}, 2).RandomInit("B", {1, 8 * H}, 3);
  auto& n = b.Node("LSTM", {"X", "W", "R", "B"}, {"Y", "Yh"}, "lstm");
  testing::OnnxBuilder::AttrI(n, "hidden_size", H);
  auto r = ExportModel(b, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("stablehlo.tanh"), std::string::npos);
  ExpectParses(r->mlir);
}

// One model per op family the five reference models use; each must export and parse.
TEST(StableHloExportTest, OpCoverageOfTheReferenceModels) {
  for (const char* op : {"Conv", "ConvTranspose", "HardSwish", "HardSigmoid", "Relu", "Add", "Mul",
                         "Div", "Sub", "MatMul", "Softmax", "Reshape", "Transpose", "Squeeze",
                         "Unsqueeze", "Resize", "Concat", "MaxPool", "AveragePool",
                         "GlobalAveragePool", "BatchNormalization", "ReduceMean", "Sigmoid", "If",
                         "LSTM", "Slice", "Pad", "Sqrt", "Pow", "Clip", "Cast", "Gather", "Equal",
                         "Not", "Identity"})
    EXPECT_NE(std::find(StableHloSupportedOps().begin(), StableHloSupportedOps().end(), op),
              StableHloSupportedOps().end())
        << op;
  testing::OnnxBuilder b(14);
  b.Input("X", {1, 4, 6, 6}).Output("Y", {1, 4, 12, 12}).Output("Z", {1, 4, 3, 3}).Output("P", {1, 4, 8, 10});
  b.RandomInit("Wt", {4, 4, 2, 2}, 5).RandomInit("Wd", {4, 1, 3, 3}, 6);
  auto& ct = b.Node("ConvTranspose", {"X", "Wt"}, {"up"});
  testing::OnnxBuilder::AttrInts(ct, "strides", {2, 2});
  auto& dw = b.Node("Conv", {"up", "Wd"}, {"dw"});
  testing::OnnxBuilder::AttrI(dw, "group", 4);
  testing::OnnxBuilder::AttrInts(dw, "pads", {1, 1, 1, 1});
  b.Node("HardSwish", {"dw"}, {"Y"});
  auto& ap = b.Node("AveragePool", {"X"}, {"Z"});
  testing::OnnxBuilder::AttrInts(ap, "kernel_shape", {3, 3});
  testing::OnnxBuilder::AttrInts(ap, "strides", {2, 2});
  testing::OnnxBuilder::AttrInts(ap, "pads", {1, 1, 1, 1});
  b.InitI64("pads", {8}, {0, 0, 1, 2, 0, 0, 1, 2});
  auto& pad = b.Node("Pad", {"X", "pads"}, {"P"});
  testing::OnnxBuilder::AttrS(pad, "mode", "reflect");
  auto r = ExportModel(b, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->mlir.find("lhs_dilation = array<i64: 2, 2>"), std::string::npos);
  EXPECT_NE(r->mlir.find("feature_group_count = 4"), std::string::npos);
  ExpectParses(r->mlir);
}

TEST(StableHloExportTest, ResizeLinearAndNearest) {
  for (const char* mode : {"nearest", "linear"}) {
    testing::OnnxBuilder b(13);
    b.Input("X", {1, 2, 3, 4}).Output("Y", {1, 2, 6, 8});
    b.Init("scales", {4}, {1, 1, 2, 2});
    auto& n = b.Node("Resize", {"X", "", "scales"}, {"Y"});
    testing::OnnxBuilder::AttrS(n, "mode", mode);
    auto r = ExportModel(b, "");
    ASSERT_TRUE(r.ok()) << mode << ": " << r.status().ToString();
    EXPECT_NE(r->mlir.find(std::string(mode) == "nearest" ? "stablehlo.gather" : "stablehlo.dot_general"),
              std::string::npos);
    ExpectParses(r->mlir);
  }
}

// A session's fused Resize + Add (passes/fusion.h FuseResizeAdd) is refused, not exported as a
// plain Resize that would drop the addend.
TEST(StableHloExportTest, ResizeFusedWithAnAddIsRefused) {
  testing::OnnxBuilder b(13);
  b.Input("X", {1, 2, 3, 4}).Input("A", {1, 2, 6, 8}).Output("Y", {1, 2, 6, 8});
  b.Init("scales", {4}, {1, 1, 2, 2});
  b.Node("Resize", {"X", "", "scales"}, {"R"});
  b.Node("Add", {"R", "A"}, {"Y"});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(FuseResizeAdd(*m->graph), 1u);
  ASSERT_TRUE(CaptureTensorMeta(*m).ok());
  ASSERT_TRUE(RunPasses(*m, "").ok());
  auto r = ExportStableHlo(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("vt.add"), std::string::npos) << r.status().message();
}

TEST(StableHloExportTest, ConvTransposeWithAFusedActivationIsRefused) {
  testing::OnnxBuilder b(13);
  b.Input("X", {1, 4, 3, 3}).Output("Y", {1, 6, 6, 6});
  b.RandomInit("W", {4, 6, 2, 2}, 1);
  auto& ct = b.Node("ConvTranspose", {"X", "W"}, {"C"});
  testing::OnnxBuilder::AttrInts(ct, "strides", {2, 2});
  b.Node("Sigmoid", {"C"}, {"Y"});
  auto m = b.Import();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(FuseConv(*m->graph), 1u);
  ASSERT_TRUE(CaptureTensorMeta(*m).ok());
  ASSERT_TRUE(RunPasses(*m, "").ok());
  auto r = ExportStableHlo(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("vt.act"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace vt
