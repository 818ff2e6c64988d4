// The cache warning (forms/cache_summary.h): a session over a compiled model whose entries
// leave weights to be packed at load says so once, through SessionOptions::cache_warning,
// in the cases a user could not tell otherwise: the model copied without its `.vtpack`, a
// damaged payload, a compact compile run without `--profile compact`. A full hit, a session
// with the cache turned off and a plain model say nothing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/scoped_temp_dir_test_util.h"
#include "passes/test_model_builder.h"
#include "tools/compile_model.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

// m [3,64] -> MatMul(W_mm [64,24]) -> Gemm(W_gemm [10,24], transB=1) -> z [3,10]
onnx::ModelProto TwoWeightModel() {
  testing::OnnxBuilder b;
  b.Input("m", {3, 64}).Output("z", {3, 10});
  b.RandomInit("W_mm", {64, 24}, 13);
  b.RandomInit("W_gemm", {10, 24}, 14);
  b.Node("MatMul", {"m", "W_mm"}, {"h"});
  auto& gemm = b.Node("Gemm", {"h", "W_gemm"}, {"z"});
  testing::OnnxBuilder::AttrI(gemm, "transB", 1);
  return b.proto();
}

class CacheWarningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    src_ = dir_.path() + "/src.onnx";
    std::ofstream f(src_, std::ios::binary);
    ASSERT_TRUE(TwoWeightModel().SerializeToOstream(&f));
  }

  std::string Compile(const std::string& name, WeightProfile profile = WeightProfile::kExact) {
    std::string out = dir_.path() + "/" + name;
    CompileModelOptions o;
    o.devices = {HostIsa()};
    o.profile = profile;
    CompileModelSummary sum;
    Status st = CompileModel(src_, out, o, &sum);
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(sum.entries, 2u);
    return out;
  }

  // The lines the session passed to cache_warning while loading `path`.
  std::vector<std::string> Warnings(const std::string& path, SessionOptions so = {}) {
    std::vector<std::string> lines;
    so.cache_warning = [&lines](const std::string& line) { lines.push_back(line); };
    auto s = Session::Load(path, so);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return lines;
  }

  testing::ScopedTempDir dir_{"cache_warning"};
  std::string src_;
};

TEST_F(CacheWarningTest, FullHitAndPlainModelAreSilent) {
  const std::string c = Compile("c.onnx");
  EXPECT_TRUE(Warnings(c).empty());
  EXPECT_TRUE(Warnings(src_).empty());
}

TEST_F(CacheWarningTest, CacheTurnedOffIsSilent) {
  const std::string c = Compile("c.onnx");
  SessionOptions so;
  so.cache.enabled = false;
  EXPECT_TRUE(Warnings(c, so).empty());
}

TEST_F(CacheWarningTest, ModelCopiedWithoutItsPayloadFile) {
  const std::string c = Compile("c.onnx");
  fs::create_directories(dir_.path() + "/copy");
  const std::string copy = dir_.path() + "/copy/c.onnx";
  fs::copy_file(c, copy);
  const auto lines = Warnings(copy);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "vtensor: warning: " + copy +
                          ": 2 of 2 compiled tensors not used (payload-missing 2); their weights "
                          "were packed at load; the session plan was not used (payload-missing); "
                          "the graph passes ran at load; see `vtensor inspect " + copy + " --cache`");
}

TEST_F(CacheWarningTest, DamagedPayload) {
  const std::string c = Compile("c.onnx");
  // Flip one byte in the middle of entry 0's payload: its payload digest differs.
  auto cm = ReadCompiledModel(c);
  ASSERT_TRUE(cm.ok()) << cm.status().ToString();
  const auto& ex = cm->ext.compiled_tensors(0).value().external();
  ASSERT_GT(ex.length(), 0);
  int fd = ::open((c + ".vtpack").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  uint8_t b = 0;
  const off_t at = static_cast<off_t>(ex.offset() + ex.length() / 2);
  ASSERT_EQ(::pread(fd, &b, 1, at), 1);
  b ^= 0x40;
  ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
  ::close(fd);
  const auto lines = Warnings(c);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(": 1 of 2 compiled tensors not used (payload-digest 1)"),
            std::string::npos)
      << lines[0];
}

TEST_F(CacheWarningTest, CompactCompileRunWithoutCompactProfile) {
  const std::string c = Compile("c.onnx", WeightProfile::kCompact);
  SessionOptions compact;
  compact.profile = WeightProfile::kCompact;
  EXPECT_TRUE(Warnings(c, compact).empty());
  const auto lines = Warnings(c);  // exact: the compact forms are read by no kernel
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(": 2 of 2 compiled tensors not used (not-selected 2)"), std::string::npos)
      << lines[0];
}

// The default sink writes the line to stderr; an empty one writes nothing, and the summary
// still says what happened.
TEST_F(CacheWarningTest, DefaultSinkIsStderrAndEmptySinkIsSilent) {
  const std::string c = Compile("c.onnx", WeightProfile::kCompact);
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(Session::Load(c).ok());
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "vtensor: warning: " + c + ": 2 of 2 compiled tensors not used (not-selected 2)"),
            std::string::npos);
  SessionOptions so;
  so.cache_warning = nullptr;
  ::testing::internal::CaptureStderr();
  auto s = Session::Load(c, so);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const CacheSummary sum = (*s)->cache_summary();
  EXPECT_EQ(sum.hits, 0u);
  EXPECT_EQ(sum.misses.at(MissReason::kNotSelected), 2u);
}

}  // namespace
}  // namespace vt
