// Import and export of the small element types (docs/dtypes.md): float8 codes, int4 / uint4 /
// float4e2m1 packed two per byte in files and one per byte in memory.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <string>

#include "vtensor/format/tensor_digest.h"
#include "vtensor/format/tensor_proto.h"

namespace vt {
namespace {

TensorContext Ctx() {
  TensorContext ctx;
  ctx.file = "m.onnx";
  return ctx;
}

onnx::TensorProto Proto(const std::string& name, int32_t type, const std::vector<int64_t>& dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  return t;
}

TEST(SmallTypesProto, Int4RawDataUnpacksSignExtendedAndPacksBack) {
  // [1, -2, 3] (odd count): bytes 0xE1, 0x03; garbage in the unused high nibble is ignored.
  onnx::TensorProto p = Proto("q", 22, {3});
  p.set_raw_data(std::string("\xE1\xF3", 2));
  auto t = TensorFromProto(p, Ctx());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype(), DType::kInt4);
  EXPECT_EQ(t->nbytes(), 3u);
  EXPECT_EQ(t->GetInt64(0), 1);
  EXPECT_EQ(t->GetInt64(1), -2);
  EXPECT_EQ(t->GetInt64(2), 3);
  onnx::TensorProto back;
  TensorToProto(*t, "q", &back);
  EXPECT_EQ(back.raw_data(), std::string("\xE1\x03", 2));
  // The in-memory tensor digests like the initializer (packed canonical bytes).
  EXPECT_EQ(*TensorDigest(*t, DigestAlgorithm::kBlake3),
            *TensorProtoDigest(p, DigestAlgorithm::kBlake3, nullptr, "m.onnx"));
}

TEST(SmallTypesProto, Int32DataHoldsTwoFourBitElementsOrOneFloat8Code) {
  onnx::TensorProto u = Proto("u", 21, {2, 2});
  u.add_int32_data(0x21);
  u.add_int32_data(0xF0);
  auto tu = TensorFromProto(u, Ctx());
  ASSERT_TRUE(tu.ok()) << tu.status().message();
  EXPECT_EQ(tu->GetInt64(0), 1);
  EXPECT_EQ(tu->GetInt64(1), 2);
  EXPECT_EQ(tu->GetInt64(2), 0);
  EXPECT_EQ(tu->GetInt64(3), 15);

  onnx::TensorProto f4 = Proto("f4", 23, {3});
  f4.add_int32_data(0x97);  // 6 (low nibble), -0.5 (high nibble)
  f4.add_int32_data(0x02);  // 1
  auto t4 = TensorFromProto(f4, Ctx());
  ASSERT_TRUE(t4.ok()) << t4.status().message();
  EXPECT_EQ(t4->GetDouble(0), 6.0);
  EXPECT_EQ(t4->GetDouble(1), -0.5);
  EXPECT_EQ(t4->GetDouble(2), 1.0);

  onnx::TensorProto f8 = Proto("f8", 17, {3});
  for (int c : {0x38, 0xFE, 0x7F}) f8.add_int32_data(c);  // 1, -448, NaN
  auto t8 = TensorFromProto(f8, Ctx());
  ASSERT_TRUE(t8.ok()) << t8.status().message();
  EXPECT_EQ(t8->dtype(), DType::kFloat8E4M3FN);
  EXPECT_EQ(t8->GetDouble(0), 1.0);
  EXPECT_EQ(t8->GetDouble(1), -448.0);
  EXPECT_TRUE(std::isnan(t8->GetDouble(2)));
  onnx::TensorProto back;
  TensorToProto(*t8, "f8", &back);
  EXPECT_EQ(back.raw_data(), std::string("\x38\xFE\x7F", 3));
}

TEST(SmallTypesProto, MalformedDataIsAnErrorNamingFileTensorAndField) {
  onnx::TensorProto p = Proto("w4", 22, {5});
  p.set_raw_data(std::string(5, '\0'));  // 5 elements need ceil(5/2) = 3 bytes
  auto r = TensorFromProto(p, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("m.onnx: tensor 'w4': field raw_data: 5 bytes, expected 3"),
            std::string::npos)
      << r.status().message();

  onnx::TensorProto q = Proto("w4i", 21, {5});
  for (int i = 0; i < 5; ++i) q.add_int32_data(0);  // needs 3 values
  r = TensorFromProto(q, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tensor 'w4i': field int32_data: 5 values, expected 3"),
            std::string::npos)
      << r.status().message();

  onnx::TensorProto f = Proto("f8", 19, {2});
  f.add_int32_data(0x3C);
  f.add_int32_data(300);
  r = TensorFromProto(f, Ctx());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tensor 'f8': field int32_data: value 300 at index 1"),
            std::string::npos)
      << r.status().message();
}

TEST(SmallTypesProto, EveryNewTypeRoundTripsThroughExport) {
  for (int32_t type = 17; type <= 23; ++type) {
    for (int64_t n : {1, 7, 17}) {
      onnx::TensorProto p = Proto("x", type, {n});
      std::string raw(static_cast<size_t>(DTypeFileBytes(static_cast<DType>(type), n)), '\0');
      for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 37 + 11);
      if (type >= 21 && n % 2) raw.back() = static_cast<char>(raw.back() & 0x0F);
      p.set_raw_data(raw);
      auto t = TensorFromProto(p, Ctx());
      ASSERT_TRUE(t.ok()) << type << " " << t.status().message();
      onnx::TensorProto back;
      TensorToProto(*t, "x", &back);
      EXPECT_EQ(back.raw_data(), raw) << DTypeName(static_cast<DType>(type)) << " n=" << n;
      EXPECT_EQ(*TensorDigest(*t, DigestAlgorithm::kSha256),
                *TensorProtoDigest(p, DigestAlgorithm::kSha256, nullptr, "m.onnx"))
          << DTypeName(static_cast<DType>(type));
    }
  }
}

}  // namespace
}  // namespace vt
