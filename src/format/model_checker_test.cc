#include "vtensor/format/model_checker.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "format/compiled_model_test_util.h"

namespace vt {
namespace {

using testing::CompiledMatMulModel;
using testing::Describe;
using testing::TempDir;


class ModelCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("check");
    m_ = CompiledMatMulModel(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Applies `mutate` to a fresh copy of the well-formed model and expects exactly one finding.
  void ExpectOnly(const char* rule, Severity sev, const std::function<void(CompiledModel&)>& mutate,
                  const CheckOptions& opts = {}) {
    CompiledModel m = CompiledMatMulModel(dir_);
    mutate(m);
    auto fs = CheckCompiledModel(m, opts);
    ASSERT_EQ(fs.size(), 1u) << rule << ":\n" << Describe(fs);
    EXPECT_EQ(fs[0].rule, rule) << Describe(fs);
    EXPECT_EQ(fs[0].severity, sev) << Describe(fs);
    EXPECT_FALSE(fs[0].field.empty());
    EXPECT_FALSE(fs[0].message.empty());
  }
  vtensor::CompiledTensorProto& E(CompiledModel& m, int i) { return *m.ext.mutable_compiled_tensors(i); }

  std::string dir_;
  CompiledModel m_;
};

TEST_F(ModelCheckerTest, WellFormedCompiledModelHasZeroFindings) {
  ASSERT_EQ(m_.ext.compiled_tensors_size(), 3);
  ASSERT_EQ(m_.ext.devices_size(), 2);
  auto fs = CheckCompiledModel(m_);  // with --decode: DecodeMismatchThroughTheLayout
  EXPECT_TRUE(fs.empty()) << Describe(fs);
}

// An entry's own payload digest (vt.payload_digest) is checked without --decode: a matching
// digest passes, a damaged payload is an error naming the metadata field.
TEST_F(ModelCheckerTest, PayloadDigest) {
  CheckOptions structural;
  structural.decode = false;
  ExpectOnly("payload-digest", Severity::kError, [](CompiledModel& m) {
    (*m.ext.mutable_compiled_tensors(0)->mutable_value()->mutable_raw_data())[5] ^= 0x10;
  }, structural);
}

TEST_F(ModelCheckerTest, Onnx) {
  ExpectOnly("onnx", Severity::kError,
             [](CompiledModel& m) { m.model->mutable_graph()->mutable_node(0)->set_op_type("NoSuchOp"); });
}
TEST_F(ModelCheckerTest, OnnxNewerIrIsOnlyAWarning) {
  ExpectOnly("onnx-newer", Severity::kWarning, [](CompiledModel& m) { m.model->set_ir_version(99); });
}
TEST_F(ModelCheckerTest, DeviceDuplicate) {
  ExpectOnly("device-duplicate", Severity::kError,
             [](CompiledModel& m) { *m.ext.add_devices() = m.ext.devices(0); });
}
TEST_F(ModelCheckerTest, DeviceMetadataKey) {
  ExpectOnly("device-metadata-key", Severity::kError, [](CompiledModel& m) {
    for (int k = 0; k < 2; ++k) {
      auto* p = m.ext.mutable_devices(0)->add_metadata_props();
      p->set_key("cpu.l2");
      p->set_value(std::to_string(k));
    }
  });
}
TEST_F(ModelCheckerTest, DeviceIndex) {
  ExpectOnly("device-index", Severity::kError, [this](CompiledModel& m) { E(m, 0).set_device(7); });
}
TEST_F(ModelCheckerTest, DuplicateKey) {
  ExpectOnly("duplicate-key", Severity::kError,
             [](CompiledModel& m) { *m.ext.add_compiled_tensors() = m.ext.compiled_tensors(0); });
}
TEST_F(ModelCheckerTest, SourceMissing) {
  ExpectOnly("source-missing", Severity::kError, [this](CompiledModel& m) { E(m, 0).set_source_name("V"); });
}
TEST_F(ModelCheckerTest, SourceAmbiguous) {
  CheckOptions no_onnx;  // libonnx also rejects the duplicate initializer name
  no_onnx.onnx_checker = false;
  ExpectOnly("source-ambiguous", Severity::kError, [](CompiledModel& m) {
    *m.model->mutable_graph()->add_initializer() = m.model->graph().initializer(0);
    m.ext.mutable_compiled_tensors()->DeleteSubrange(1, 2);
  }, no_onnx);
}
TEST_F(ModelCheckerTest, DigestEmpty) {
  ExpectOnly("digest-empty", Severity::kError, [this](CompiledModel& m) { E(m, 0).clear_source_digest(); });
}
TEST_F(ModelCheckerTest, DigestAlgorithmEmpty) {
  ExpectOnly("digest-algorithm-empty", Severity::kError,
             [this](CompiledModel& m) { E(m, 0).set_digest_algorithm(""); });
}
TEST_F(ModelCheckerTest, DigestLength) {
  ExpectOnly("digest-length", Severity::kError, [this](CompiledModel& m) { E(m, 1).set_source_digest("abc"); });
}
TEST_F(ModelCheckerTest, DigestAlgorithmUnknownIsACacheMiss) {
  ExpectOnly("digest-algorithm-unknown", Severity::kWarning,
             [this](CompiledModel& m) { E(m, 0).set_digest_algorithm("md5"); });
}
TEST_F(ModelCheckerTest, DigestStaleIsACacheMiss) {
  ExpectOnly("digest-stale", Severity::kWarning, [this](CompiledModel& m) {
    std::string d = E(m, 2).source_digest();
    d[0] ^= 1;
    E(m, 2).set_source_digest(d);
  });
}
TEST_F(ModelCheckerTest, TypeUnresolvedIndex) {
  ExpectOnly("type-unresolved", Severity::kError,
             [this](CompiledModel& m) { E(m, 0).mutable_value()->set_type_index(5); });
}
TEST_F(ModelCheckerTest, TypeUnresolvedNegativeIndex) {
  ExpectOnly("type-unresolved", Severity::kError,
             [this](CompiledModel& m) { E(m, 0).mutable_value()->set_type_index(-1); });
}
TEST_F(ModelCheckerTest, TypeInexactViaModelLevelTemplate) {
  ExpectOnly("type-inexact", Severity::kError, [this](CompiledModel& m) {
    // A template with symbolic dims is a valid model-level type, but cannot type a value.
    auto t = m.ext.struct_types(0);
    t.set_name("f32_gemm_panel16_any");
    t.mutable_fields(0)->mutable_shape(0)->set_dim_param("n");
    *m.ext.add_struct_types() = t;
    E(m, 0).mutable_value()->set_type_index(m.ext.struct_types_size() - 1);
  });
}
TEST_F(ModelCheckerTest, TypeInexactInline) {
  ExpectOnly("type-inexact", Severity::kError, [this](CompiledModel& m) {
    E(m, 1).mutable_value()->mutable_struct_type()->mutable_layout()->mutable_shape(0)->set_dim_param("k");
  });
}
TEST_F(ModelCheckerTest, TypeInvalid) {
  ExpectOnly("type-invalid", Severity::kError,
             [](CompiledModel& m) { m.ext.mutable_struct_types(0)->mutable_fields(0)->set_encoding("q9"); });
}
TEST_F(ModelCheckerTest, TypeInvalidOverlappingFields) {
  ExpectOnly("type-invalid", Severity::kError, [this](CompiledModel& m) {
    auto* t = E(m, 1).mutable_value()->mutable_struct_type();
    auto f = t->fields(0);
    f.set_name("again");
    *t->add_fields() = f;
  });
}
TEST_F(ModelCheckerTest, LayoutShape) {
  ExpectOnly("layout-shape", Severity::kError, [](CompiledModel& m) {
    auto* shape = m.ext.mutable_struct_types(0)->mutable_layout()->mutable_shape();
    shape->Mutable(1)->set_dim_value(32);  // W is [64,40]; a valid layout of [64,32]
    m.ext.mutable_struct_types(0)->mutable_layout()->mutable_padded()->Set(1, 32);
  });
}
TEST_F(ModelCheckerTest, PayloadMissing) {
  ExpectOnly("payload-missing", Severity::kError,
             [this](CompiledModel& m) { E(m, 0).mutable_value()->clear_raw_data(); });
}
TEST_F(ModelCheckerTest, PayloadSize) {
  ExpectOnly("payload-size", Severity::kError,
             [this](CompiledModel& m) { E(m, 1).mutable_value()->mutable_raw_data()->push_back('x'); });
}
TEST_F(ModelCheckerTest, PayloadExternalUnaligned) {
  ExpectOnly("payload-external", Severity::kError,
             [this](CompiledModel& m) { E(m, 2).mutable_value()->mutable_external()->set_offset(3); });
}
TEST_F(ModelCheckerTest, PayloadExternalOutsideFile) {
  ExpectOnly("payload-external", Severity::kError,
             [this](CompiledModel& m) { E(m, 2).mutable_value()->mutable_external()->set_offset(1 << 20); });
}
TEST_F(ModelCheckerTest, PayloadExternalEscapesModelDir) {
  ExpectOnly("payload-external", Severity::kError, [this](CompiledModel& m) {
    E(m, 2).mutable_value()->mutable_external()->set_location("../etc/passwd");
  });
}
TEST_F(ModelCheckerTest, MetadataKey) {
  ExpectOnly("metadata-key", Severity::kError, [this](CompiledModel& m) {
    for (int k = 0; k < 2; ++k) E(m, 0).add_metadata_props()->set_key("packer");
  });
}
TEST_F(ModelCheckerTest, DecoderInvalid) {
  ExpectOnly("decoder-invalid", Severity::kError,
             [](CompiledModel& m) { m.ext.mutable_struct_types(0)->set_decoder("\xff\xff garbage"); });
}
// Without a decoder runner (the format layer cannot link the runtime) --decode unpacks
// through each layout and says so; the runner path is tested in src/tools/check_decode_test.cc.
TEST_F(ModelCheckerTest, DecodeMismatchThroughTheLayout) {
  CheckOptions decode;
  decode.decode = true;
  CompiledModel m = CompiledMatMulModel(dir_);
  auto clean = CheckCompiledModel(m, decode);
  ASSERT_EQ(clean.size(), 3u) << Describe(clean);
  for (const auto& f : clean) {
    EXPECT_EQ(f.rule, "decode-layout") << Describe(clean);
    EXPECT_EQ(f.severity, Severity::kInfo);
  }
  testing::CorruptInlinePayloadConsistently(m, 0, 100, 0x40);
  std::vector<Finding> errors;
  for (const auto& f : CheckCompiledModel(m, decode))
    if (f.severity != Severity::kInfo) errors.push_back(f);
  ASSERT_EQ(errors.size(), 1u) << Describe(errors);
  EXPECT_EQ(errors[0].rule, "decode-mismatch");
  EXPECT_EQ(errors[0].entry, 0);
  EXPECT_EQ(errors[0].source_name, "W");
}

TEST_F(ModelCheckerTest, DecodeTolerance) {
  vtensor::StructTypeProto f32;
  LayoutToProto(Layout::Contiguous({4}, Encoding::kF32), f32.mutable_layout());
  EXPECT_EQ(DecodeTolerance(f32, DType::kFloat32), 0);
  vtensor::StructTypeProto f16;
  LayoutToProto(Layout::Contiguous({4}, Encoding::kF16), f16.mutable_layout());
  EXPECT_EQ(DecodeTolerance(f16, DType::kFloat16), 0);        // same type: exact
  EXPECT_GT(DecodeTolerance(f16, DType::kFloat32), 0);        // rounded to f16
  vtensor::StructTypeProto planes;                            // no layout: by field
  planes.add_fields()->set_encoding("u4");
  planes.add_fields()->set_encoding("f32");
  EXPECT_FLOAT_EQ(DecodeTolerance(planes, DType::kFloat32), 2.0f / 15);
}

}  // namespace
}  // namespace vt
