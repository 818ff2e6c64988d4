#include "vtensor/format/compiled_model.h"

#include <gtest/gtest.h>
#include <google/protobuf/unknown_field_set.h>

#include "format/compiled_model_test_util.h"
#include "vtensor/base/file.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/layout/layout_text.h"

namespace vt {
namespace {

using testing::CompiledMatMulModel;
using testing::TempDir;

TEST(CompiledModelTest, WriteReadRoundTripKeepsEverything) {
  const std::string dir = TempDir("cm");
  CompiledModel m = CompiledMatMulModel(dir);
  // An unknown ModelProto field from a future writer must survive a read/write cycle.
  m.model->GetReflection()->MutableUnknownFields(m.model.get())->AddVarint(100, 12345);
  ASSERT_TRUE(WriteCompiledModel(m, m.path).ok());

  auto back = ReadCompiledModel(m.path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ext.SerializeAsString(), m.ext.SerializeAsString());
  EXPECT_EQ(back->model->SerializeAsString(), m.model->SerializeAsString());
  const auto& unknown = back->model->GetReflection()->GetUnknownFields(*back->model);
  ASSERT_EQ(unknown.field_count(), 1);  // fields 27-29 were moved out
  EXPECT_EQ(unknown.field(0).number(), 100);

  // A stock parser sees fields 27-29 as unknown (graph/onnx_import_test.cc imports such a model).
  auto stock = ParseModelFile(m.path);
  ASSERT_TRUE(stock.ok());
  const auto& su = (*stock)->GetReflection()->GetUnknownFields(**stock);
  int ext_fields = 0;
  for (int i = 0; i < su.field_count(); ++i)
    if (su.field(i).number() >= 27 && su.field(i).number() <= 29) ++ext_fields;
  EXPECT_EQ(ext_fields, 3 + 2 + 2);  // 3 entries, 2 devices, 2 model-level types

  // Serialization is stable: writing what was read gives the same bytes.
  auto again = SerializeCompiledModel(*back);
  auto orig = ReadFileToString(m.path);
  ASSERT_TRUE(again.ok() && orig.ok());
  EXPECT_EQ(*again, *orig);
  std::filesystem::remove_all(dir);
}

TEST(CompiledModelTest, MalformedExtensionIsAnError) {
  CompiledModel m;
  m.model->set_ir_version(8);
  std::string bytes = m.model->SerializeAsString();
  bytes += std::string("\xe8\x01\x05", 3);  // field 29 as a varint instead of a message
  auto r = ParseCompiledModel(bytes.data(), bytes.size(), "bad.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.onnx: field 29"), std::string::npos);
  EXPECT_FALSE(ParseCompiledModel("\xff\xff\xff", 3, "junk.onnx").ok());
}

TEST(CompiledModelTest, LayoutProtoRoundTrip) {
  std::vector<Layout> layouts = {
      Layout::Contiguous({2, 3}, Encoding::kF32),
      *Layout::Contiguous({2, 3}, Encoding::kF16).Transpose({1, 0}),
      *GemmColumnPanels(17, 33, 16),
      *BlockQuantizedWeight(100, 1000, Encoding::kQ4_K, BlockOrder::kInputBlockMajor, 4),
      *BlockQuantizedWeight(5, 40, Encoding::kQ4_0, BlockOrder::kRowMajor),
  };
  for (const auto& l : layouts) {
    vtensor::LayoutProto p;
    LayoutToProto(l, &p);
    auto back = LayoutFromProto(p);
    ASSERT_TRUE(back.ok()) << LayoutToText(l) << ": " << back.status().ToString();
    EXPECT_EQ(*back, l) << LayoutToText(l);
  }
  vtensor::LayoutProto sym;
  sym.set_version(1);
  sym.add_shape()->set_dim_param("n");
  EXPECT_FALSE(LayoutFromProto(sym).ok());
}

}  // namespace
}  // namespace vt
