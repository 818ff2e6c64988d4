#include "vtensor/base/status.h"

#include <gtest/gtest.h>

#include "vtensor/base/file.h"

namespace vt {
namespace {

Expected<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Status Chain(int x, int* out) {
  VT_ASSIGN_OR_RETURN(int h, Half(x));
  VT_RETURN_IF_ERROR_CTX(Half(h).status(), "second half");
  *out = h;
  return Status::Ok();
}

TEST(StatusTest, PropagatesWithContext) {
  int out = 0;
  EXPECT_TRUE(Chain(8, &out).ok());
  EXPECT_EQ(out, 4);
  Status st = Chain(6, &out);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "second half: odd: 3");
  EXPECT_EQ(Chain(3, &out).message(), "odd: 3");
}

TEST(StatusTest, ContextChainKeepsCodeAndOriginalMessage) {
  Status st = OutOfRange("index 9 outside [0, 4)");
  st.WithContext("input 'x'").WithContext("model.onnx");
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.original_message(), "index 9 outside [0, 4)");
  ASSERT_EQ(st.context().size(), 2u);
  EXPECT_EQ(st.context()[0], "input 'x'");  // innermost first
  EXPECT_EQ(st.context()[1], "model.onnx");
  EXPECT_EQ(st.message(), "model.onnx: input 'x': index 9 outside [0, 4)");
  EXPECT_EQ(st.ToString(), "OUT_OF_RANGE: model.onnx: input 'x': index 9 outside [0, 4)");
  EXPECT_TRUE(st.HasContext("input 'x'"));
  EXPECT_FALSE(st.HasContext("input"));  // whole entries only, never a search of the text
}

TEST(StatusTest, ContextOnOkIsIgnored) {
  Status st = Status::Ok();
  st.WithContext("anything");
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(st.context().empty());
  EXPECT_EQ(st.ToString(), "OK");
}

TEST(FileTest, AtomicWriteReplacesAndLeavesNoTemp) {
  std::string dir = ::testing::TempDir();
  std::string p = JoinPath(dir, "vt_atomic_test.bin");
  ASSERT_TRUE(WriteFileAtomic(p, "first").ok());
  ASSERT_TRUE(WriteFileAtomic(p, "second").ok());
  auto s = ReadFileToString(p);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, "second");
  EXPECT_FALSE(WriteFileAtomic("/nonexistent-dir/x", "y").ok());
  auto missing = MappedFile::Open(JoinPath(dir, "does-not-exist"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vt
