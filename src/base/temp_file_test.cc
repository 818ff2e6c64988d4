#include "vtensor/base/temp_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"

namespace vt {
namespace {

std::set<std::string> Listing(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename());
  return out;
}

TEST(TempFile, PublishReplacesAndUnpublishedLeavesNothing) {
  testing::ScopedTempDir d("tempfile");
  const std::string p = JoinPath(d.path(), "out.bin");
  ASSERT_TRUE(WriteFileAtomic(p, "old").ok());
  {
    auto f = TempFile::Create(p);
    ASSERT_TRUE(f.ok()) << f.status().message();
    ASSERT_TRUE((*f)->Write("abandoned", 9).ok());
  }  // destroyed without Publish
  EXPECT_EQ(*ReadFileToString(p), "old");
  EXPECT_EQ(Listing(d.path()), std::set<std::string>{"out.bin"});
  auto f = TempFile::Create(p);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Truncate(4).ok());
  ASSERT_TRUE((*f)->WriteAt("xy", 2, 4).ok());
  ASSERT_TRUE((*f)->Publish().ok());
  EXPECT_EQ(*ReadFileToString(p), std::string("\0\0\0\0xy", 6));
  EXPECT_EQ(Listing(d.path()), std::set<std::string>{"out.bin"});
}

TEST(TempFile, ErrorsNameDestinationAndReason) {
  testing::ScopedTempDir d("tempfile_err");
  auto missing = TempFile::Create(JoinPath(d.path(), "no/x.bin"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot write '" + JoinPath(d.path(), "no/x.bin") +
                                            "': directory '" + JoinPath(d.path(), "no") +
                                            "' does not exist");
  auto dir = TempFile::Create(d.path());
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory"), std::string::npos);
}

TEST(TempFile, SweepRemovesOnlyTemporariesOfDeadWriters) {
  testing::ScopedTempDir d("tempfile_sweep");
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);  // reaped: its PID no longer runs
  const std::string dp = std::to_string(dead), me = std::to_string(::getpid());
  for (const std::string& name : {"x.onnx.tmp." + dp + ".123", "x.onnx.tmp." + dp,
                                  "x.onnx.tmp." + me + ".5", std::string("x.onnx.tmp.1.7"),
                                  "x.onnx.tmp." + dp + ".abc", "y.onnx.tmp." + dp + ".1"})
    std::ofstream(JoinPath(d.path(), name)) << "x";
  EXPECT_EQ(SweepStaleTemporaries(d.path(), "x.onnx"), 2);
  EXPECT_EQ(Listing(d.path()),
            (std::set<std::string>{"x.onnx.tmp." + me + ".5", std::string("x.onnx.tmp.1.7"),
                                   "x.onnx.tmp." + dp + ".abc", "y.onnx.tmp." + dp + ".1"}));
}

}  // namespace
}  // namespace vt
