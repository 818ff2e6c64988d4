// The memo file format and its recording rules (forms/verify_memo.h): a memo that is not
// exactly the one written for this key is ignored, and racy or changed files are not recorded.
#include "vtensor/forms/verify_memo.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/scoped_temp_dir_test_util.h"

namespace vt {
namespace {

class VerifyMemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    file_ = dir_.path() + "/m.onnx";
    std::ofstream(file_) << "model bytes";
    key_ = ComputeMemoKey({file_}, "abi1");
    ASSERT_TRUE(key_.ok);
  }
  testing::ScopedTempDir dir_{"verify_memo"};
  std::string file_;
  MemoKey key_;
};

TEST_F(VerifyMemoTest, RoundTrip) {
  const auto v = ParseMemo(FormatMemo(key_, {0, 2, 17}), key_);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, (std::vector<int>{0, 2, 17}));
  const auto none = ParseMemo(FormatMemo(key_, {}), key_);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST_F(VerifyMemoTest, DamagedOrForeignMemoIsIgnored) {
  const std::string good = FormatMemo(key_, {0, 1});
  EXPECT_FALSE(ParseMemo("", key_));
  EXPECT_FALSE(ParseMemo("0\n1\n", key_)) << "the v1 format (bare indices)";
  EXPECT_FALSE(ParseMemo(good.substr(0, good.size() - 1), key_)) << "truncated";
  EXPECT_FALSE(ParseMemo(good.substr(0, good.size() / 2), key_)) << "truncated";
  std::string flipped = good;
  flipped[good.find("verified") + 9] = '5';  // "verified 5 1": the digest no longer matches
  EXPECT_FALSE(ParseMemo(flipped, key_));
  EXPECT_FALSE(ParseMemo(good + "0\n", key_)) << "trailing bytes";
  // Another ABI or another version of the format: another key text.
  EXPECT_FALSE(ParseMemo(good, ComputeMemoKey({file_}, "abi2")));
  std::string other_version = good;
  other_version.replace(0, std::string(kMemoFormat).size(), "vtensor verify memo v3");
  EXPECT_FALSE(ParseMemo(other_version, key_));
}

TEST_F(VerifyMemoTest, KeyFollowsFileIdentity) {
  EXPECT_EQ(ComputeMemoKey({file_}, "abi1").text, key_.text);
  std::ofstream(file_, std::ios::app) << "x";
  EXPECT_NE(ComputeMemoKey({file_}, "abi1").text, key_.text);
  EXPECT_FALSE(ComputeMemoKey({dir_.path() + "/absent"}, "abi1").ok);
  EXPECT_NE(MemoPath("/d", key_), MemoPath("/d", ComputeMemoKey({file_}, "abi1")));
}

TEST_F(VerifyMemoTest, RacyOrChangedFilesAreNotRecorded) {
  const int64_t now = WallClockNs();
  // Written just now: a change in the same clock tick could keep the identity.
  EXPECT_FALSE(MemoRecordable(key_, {file_}, "abi1", now));
  // Old enough relative to the read (as if the read began later).
  const int64_t later = key_.newest_ns + kMemoRacyMarginNs + 1;
  EXPECT_TRUE(MemoRecordable(key_, {file_}, "abi1", later));
  EXPECT_FALSE(MemoRecordable(key_, {file_}, "abi1", 0)) << "unknown read time";
  // Changed during the load: not recorded.
  std::ofstream(file_, std::ios::app) << "x";
  EXPECT_FALSE(MemoRecordable(key_, {file_}, "abi1", later));
}

}  // namespace
}  // namespace vt
