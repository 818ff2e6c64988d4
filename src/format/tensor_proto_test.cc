#include "vtensor/format/tensor_proto.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

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

TEST(TensorFromProtoTest, TypedFieldsAndRawDataAgree) {
  onnx::TensorProto typed = FloatTensor("w", {2, 2}, {1, 2, 3, 4});
  onnx::TensorProto raw = typed;
  raw.clear_float_data();
  float v[] = {1, 2, 3, 4};
  raw.set_raw_data(std::string(reinterpret_cast<char*>(v), sizeof v));
  TensorContext ctx;
  ctx.file = "m.onnx";
  auto a = TensorFromProto(typed, ctx);
  auto b = TensorFromProto(raw, ctx);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a->data<float>()[i], b->data<float>()[i]);
}

TEST(TensorFromProtoTest, ErrorsNameFileTensorAndField) {
  TensorContext ctx;
  ctx.file = "m.onnx";
  onnx::TensorProto t = FloatTensor("w", {2, 3}, {1, 2});
  auto r = TensorFromProto(t, ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("m.onnx: tensor 'w': field float_data"), std::string::npos)
      << r.status().message();
  onnx::TensorProto neg = FloatTensor("n", {-1}, {});
  EXPECT_NE(TensorFromProto(neg, ctx).status().message().find("negative dim"), std::string::npos);
  onnx::TensorProto huge = FloatTensor("h", {1 << 30, 1 << 30, 1 << 30}, {});
  EXPECT_NE(TensorFromProto(huge, ctx).status().message().find("overflow"), std::string::npos);
  onnx::TensorProto bad_type = FloatTensor("b", {1}, {1});
  bad_type.set_data_type(99);
  EXPECT_NE(TensorFromProto(bad_type, ctx).status().message().find("data_type"), std::string::npos);
}

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir();
    std::string bytes(64 + 16, '\0');
    float v[] = {1, 2, 3, 4};
    std::memcpy(&bytes[64], v, 16);
    ASSERT_TRUE(WriteFileAtomic(JoinPath(dir_, "weights.bin"), bytes).ok());
  }
  onnx::TensorProto Ext(const std::string& loc, int64_t offset, int64_t length) {
    onnx::TensorProto t;
    t.set_name("w");
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(4);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value(loc);
    e = t.add_external_data();
    e->set_key("offset");
    e->set_value(std::to_string(offset));
    if (length >= 0) {
      e = t.add_external_data();
      e->set_key("length");
      e->set_value(std::to_string(length));
    }
    return t;
  }
  std::string dir_;
};

TEST_F(ExternalDataTest, MappedNotCopied) {
  ExternalDataResolver res(dir_);
  TensorContext ctx;
  ctx.file = "m.onnx";
  ctx.external = &res;
  auto t = TensorFromProto(Ext("weights.bin", 64, 16), ctx);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->storage()->kind(), Storage::Kind::kMapped);
  EXPECT_EQ(t->data<float>()[3], 4.0f);
}

TEST_F(ExternalDataTest, OutsideFileMissingFileAndEscapingPathAreErrors) {
  ExternalDataResolver res(dir_);
  TensorContext ctx;
  ctx.file = "m.onnx";
  ctx.external = &res;
  EXPECT_NE(TensorFromProto(Ext("weights.bin", 72, -1), ctx).status().message().find("outside"),
            std::string::npos);
  EXPECT_NE(TensorFromProto(Ext("weights.bin", 1 << 20, -1), ctx).status().message().find("outside"),
            std::string::npos);
  EXPECT_NE(TensorFromProto(Ext("weights.bin", 64, 8), ctx).status().message().find("length"),
            std::string::npos);
  EXPECT_EQ(TensorFromProto(Ext("missing.bin", 0, -1), ctx).status().code(), StatusCode::kNotFound);
  EXPECT_NE(TensorFromProto(Ext("../weights.bin", 0, -1), ctx).status().message().find("inside the model directory"),
            std::string::npos);
  EXPECT_FALSE(TensorFromProto(Ext("/etc/passwd", 0, -1), ctx).ok());
}

}  // namespace
}  // namespace vt
