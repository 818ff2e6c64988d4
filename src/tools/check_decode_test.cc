// `vtensor check --decode` with the runtime's decoder runner injected, as cmd_check.cc does
//: the stored decoder functions run on the payloads and must reproduce the
// source initializer.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "format/compiled_model_test_util.h"
#include "vtensor/format/model_checker.h"
#include "vtensor/format/planar_block_quant.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/runtime/decoder_runner.h"

namespace vt {
namespace {

using testing::CompiledMatMulModel;
using testing::Describe;
using testing::TempDir;


// Appends an entry for W[64,40] in the planar int4 form with an inline type.
void AddPlanarEntry(CompiledModel& m, const PlanarBlockQuantSpec& s) {
  const auto& w = m.model->graph().initializer(0);
  std::vector<float> values(w.raw_data().size() / 4);
  std::memcpy(values.data(), w.raw_data().data(), w.raw_data().size());
  auto type = PlanarBlockQuantType(s, s.zero_point ? "w4_zp" : "w4_sym");
  auto payload = PackPlanarBlockQuant(values.data(), s);
  ASSERT_TRUE(type.ok() && payload.ok());
  auto digest = TensorProtoDigest(w, DigestAlgorithm::kBlake3, nullptr, m.path);
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  auto* e = m.ext.add_compiled_tensors();
  e->set_source_name("W");
  e->set_device(1);
  e->set_source_digest(*digest);
  e->set_digest_algorithm("blake3");
  *e->mutable_value()->mutable_struct_type() = *type;
  e->mutable_value()->set_raw_data(payload->data(), payload->size());
}

class CheckDecodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("check_decode");
    opts_.decode = true;
    opts_.run_decoder = RunDecoderFunction;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  CompiledModel Model() {
    CompiledModel m = CompiledMatMulModel(dir_);
    AddPlanarEntry(m, {40, 64, 32, true, Encoding::kF16, true});
    AddPlanarEntry(m, {40, 64, 16, false, Encoding::kF32, true});
    return m;
  }
  // Expects exactly one finding: decode-mismatch for entry `entry`.
  void ExpectOneMismatch(const CompiledModel& m, int entry) {
    auto fs = CheckCompiledModel(m, opts_);
    ASSERT_EQ(fs.size(), 1u) << Describe(fs);
    EXPECT_EQ(fs[0].rule, "decode-mismatch") << Describe(fs);
    EXPECT_EQ(fs[0].severity, Severity::kError);
    EXPECT_EQ(fs[0].entry, entry);
    EXPECT_EQ(fs[0].source_name, "W");
    EXPECT_EQ(fs[0].field, "compiled_tensors[" + std::to_string(entry) + "].value");
  }
  std::string dir_;
  CheckOptions opts_;
};

// Panels (lossless), q4_0 and q8_0 (lossy, in kernel-feed order) and both planar int4 forms
// all carry decoders, and every decoder reproduces W within its bound: no finding at all.
TEST_F(CheckDecodeTest, EveryStoredDecoderReproducesTheSource) {
  CompiledModel m = Model();
  auto fs = CheckCompiledModel(m, opts_);
  EXPECT_TRUE(fs.empty()) << Describe(fs);
}

TEST_F(CheckDecodeTest, CorruptedLosslessPayloadByte) {
  CompiledModel m = Model();
  testing::CorruptInlinePayloadConsistently(m, 0, 100, 0x01);
  ExpectOneMismatch(m, 0);
}

TEST_F(CheckDecodeTest, CorruptedQuantizedScale) {
  CompiledModel m = Model();
  // q4_0 block 0: f16 scale in bytes 0-1; flipping the exponent's top bit scales it by 2^16.
  testing::CorruptInlinePayloadConsistently(m, 1, 1, 0x40);
  ExpectOneMismatch(m, 1);
}

TEST_F(CheckDecodeTest, CorruptedPlanarZeroPoint) {
  CompiledModel m = Model();
  const int64_t zp_offset = m.ext.compiled_tensors(3).value().struct_type().fields(2).offset();
  // The zero point of row 0, block 0.
  testing::CorruptInlinePayloadConsistently(m, 3, static_cast<size_t>(zp_offset), 0x0c);
  ExpectOneMismatch(m, 3);
}

// A decoder whose Transpose uses the wrong permutation yields a wrongly shaped tensor; one
// whose permutation keeps the shape but misplaces elements (a square weight) yields values.
TEST_F(CheckDecodeTest, WrongTransposeInDecoder) {
  CompiledModel m = Model();
  auto* t = m.ext.mutable_struct_types(0);
  onnx::FunctionProto fn;
  ASSERT_TRUE(fn.ParseFromString(t->decoder()));
  bool found = false;
  for (auto& n : *fn.mutable_node())
    if (n.op_type() == "Transpose") {
      n.mutable_attribute(0)->set_ints(0, 0);
      n.mutable_attribute(0)->set_ints(1, 1);  // identity instead of (1, 0, 2)
      found = true;
    }
  ASSERT_TRUE(found);
  t->set_decoder(fn.SerializeAsString());
  ExpectOneMismatch(m, 0);
}

TEST_F(CheckDecodeTest, DecoderThatFailsToRunIsAMismatch) {
  CompiledModel m = Model();
  auto* t = m.ext.mutable_struct_types(0);
  onnx::FunctionProto fn;
  ASSERT_TRUE(fn.ParseFromString(t->decoder()));
  for (auto& n : *fn.mutable_node())
    if (n.op_type() == "Reshape") n.set_input(0, "no_such_value");
  t->set_decoder(fn.SerializeAsString());
  ExpectOneMismatch(m, 0);
}

TEST_F(CheckDecodeTest, TypeWithoutDecoderFallsBackToTheLayout) {
  CompiledModel m = Model();
  m.ext.mutable_struct_types(0)->clear_decoder();
  auto fs = CheckCompiledModel(m, opts_);
  ASSERT_EQ(fs.size(), 1u) << Describe(fs);
  EXPECT_EQ(fs[0].rule, "decode-layout");
  EXPECT_EQ(fs[0].severity, Severity::kInfo);
  EXPECT_EQ(fs[0].entry, 0);
}

TEST_F(CheckDecodeTest, OpVtensorCannotRunIsSkipped) {
  CompiledModel m = Model();
  auto* t = m.ext.mutable_struct_types(0);
  onnx::FunctionProto fn;
  ASSERT_TRUE(fn.ParseFromString(t->decoder()));
  for (auto& n : *fn.mutable_node())
    if (n.op_type() == "Transpose") {
      n.set_op_type("SomeFutureOp");
      n.set_domain("com.example");
    }
  auto* os = fn.add_opset_import();
  os->set_domain("com.example");
  os->set_version(1);
  t->set_decoder(fn.SerializeAsString());
  auto fs = CheckCompiledModel(m, opts_);
  ASSERT_EQ(fs.size(), 1u) << Describe(fs);
  EXPECT_EQ(fs[0].rule, "decode-skipped") << Describe(fs);
}

}  // namespace
}  // namespace vt
