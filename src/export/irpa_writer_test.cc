// The .irpa writer checked by a reader written here from IREE's published v0 schema
// (runtime/src/iree/schemas/parameter_archive.h), sharing no code with the writer.
#include "vtensor/export/irpa_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "export/irpa_test_reader.h"

namespace vt {
namespace {

TEST(IrpaWriterTest, IndependentReaderParsesEveryEntryAligned) {
  std::vector<IrpaEntry> entries;
  for (int i = 0; i < 5; ++i) {
    IrpaEntry e;
    e.key = "w" + std::to_string(i);
    e.metadata = i % 2 ? "vt.layout.v1<[" + std::to_string(i) + "],f32>" : "";
    e.data.resize(static_cast<size_t>(i) * 37 + 3);
    for (size_t k = 0; k < e.data.size(); ++k) e.data[k] = static_cast<uint8_t>(k * 7 + i);
    entries.push_back(e);
  }
  auto bytes = SerializeIrpa(entries);
  ASSERT_TRUE(bytes.ok());
  auto archive = testing::ReadIrpa(*bytes);
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
  ASSERT_EQ(archive->entries.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& r = archive->entries[i];
    EXPECT_EQ(r.key, entries[i].key);
    EXPECT_EQ(r.metadata, entries[i].metadata);
    EXPECT_EQ(r.file_offset % 64, 0u) << r.key;
    ASSERT_EQ(r.length, entries[i].data.size());
    EXPECT_EQ(std::memcmp(bytes->data() + r.file_offset, entries[i].data.data(), r.length), 0);
  }
  EXPECT_EQ(bytes->size() % 64, 0u);
}

TEST(IrpaWriterTest, EmptyArchiveIsAValidHeader) {
  auto bytes = SerializeIrpa({});
  ASSERT_TRUE(bytes.ok());
  auto archive = testing::ReadIrpa(*bytes);
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
  EXPECT_TRUE(archive->entries.empty());
}

TEST(IrpaWriterTest, DuplicateAndEmptyKeysAreErrors) {
  IrpaEntry a{"k", "", {1}};
  EXPECT_FALSE(SerializeIrpa({a, a}).ok());
  IrpaEntry e{"", "", {}};
  EXPECT_FALSE(SerializeIrpa({e}).ok());
}

TEST(IrpaWriterTest, ReaderRejectsTruncatedAndForeignFiles) {
  auto bytes = SerializeIrpa({IrpaEntry{"k", "m", std::vector<uint8_t>(100, 1)}});
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE(testing::ReadIrpa(bytes->substr(0, 120)).ok());
  std::string bad = *bytes;
  bad[0] = 'X';
  EXPECT_FALSE(testing::ReadIrpa(bad).ok());
}

}  // namespace
}  // namespace vt
