// The verification memo end to end (forms/verify_memo.h), now the default policy: a model
// compiled by CompileModel loads with its entries verified the first time and memoized later,
// and no change of the files after the memo was written lets changed bytes through (payload
// bytes flipped with and without restoring mtime, a copy elsewhere, a damaged memo, an
// unwritable memo directory, concurrent first loads).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/scoped_temp_dir_test_util.h"
#include "passes/test_model_builder.h"
#include "tools/compile_model.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

// m [3,64] -> MatMul(W_mm [64,24]) -> Gemm(W_gemm [10,24], transB=1, bias) -> z [3,10]
onnx::ModelProto TwoWeightModel() {
  testing::OnnxBuilder b;
  b.Input("m", {3, 64}).Output("z", {3, 10});
  b.RandomInit("W_mm", {64, 24}, 13);
  b.RandomInit("W_gemm", {10, 24}, 14);
  b.RandomInit("B_gemm", {10}, 15);
  b.Node("MatMul", {"m", "W_mm"}, {"h"});
  auto& gemm = b.Node("Gemm", {"h", "W_gemm", "B_gemm"}, {"z"});
  testing::OnnxBuilder::AttrI(gemm, "transB", 1);
  return b.proto();
}

struct Outcome {
  std::string output;
  std::vector<CacheEntryReport> report;
};

Outcome Load(const std::string& path, const CacheOptions& cache) {
  SessionOptions so;
  so.cache = cache;
  Outcome o;
  auto s = Session::Load(path, so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return o;
  std::vector<float> m(3 * 64);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>((i * 13) % 17) / 5.0f - 1.5f;
  auto out = (*s)->Run({Value(Tensor::FromF32(m, {3, 64}))});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (out.ok()) {
    const Tensor t = (*out)[0].tensor().Contiguous();
    o.output.assign(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
  o.report = (*s)->cache_report();
  return o;
}

enum class Expect { kVerified, kMemo };

class VerifyMemoE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    model_dir_ = dir_.path() + "/model";
    fs::create_directory(model_dir_);
    const std::string src = dir_.path() + "/src.onnx";
    {
      std::ofstream f(src, std::ios::binary);
      ASSERT_TRUE(TwoWeightModel().SerializeToOstream(&f));
    }
    compiled_ = model_dir_ + "/c.onnx";
    pack_ = compiled_ + ".vtpack";
    CompileModelOptions o;
    o.devices = {HostIsa()};
    o.external_payload = true;
    ASSERT_TRUE(CompileModel(src, compiled_, o, nullptr).ok());
    CacheOptions none;
    none.enabled = false;
    reference_ = Load(src, none).output;
    ASSERT_FALSE(reference_.empty());
    cache_.memo_dir = dir_.path() + "/memo";
  }

  // Files younger than the racy margin are never memoized: age them past it.
  static void WaitPastRacyMargin() {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kMemoRacyMarginNs + 100'000'000));
  }

  // Every entry HIT, verified or memoized as `e`, with the no-cache output.
  void ExpectAllHit(const Outcome& o, Expect e, const char* what) {
    ASSERT_EQ(o.report.size(), 2u) << what;
    for (const auto& r : o.report) {
      EXPECT_EQ(r.state, EntryState::kHit) << what << " entry " << r.index << " " << r.detail;
      EXPECT_EQ(r.verified, e == Expect::kVerified) << what << " entry " << r.index;
      EXPECT_EQ(r.memo, e == Expect::kMemo) << what << " entry " << r.index;
      // Both entries are f32 GEMM panels: the first load compares them with a fresh pack.
      EXPECT_EQ(r.compared, e == Expect::kVerified) << what << " entry " << r.index;
    }
    EXPECT_EQ(o.output, reference_) << what;
  }

  // Rewrites the payload of the entry for `source` with one byte flipped and its
  // vt.payload_digest updated to match: damage only a comparison with the source can see.
  void RewritePayloadConsistently(const std::string& source) {
    auto m = ReadCompiledModel(compiled_);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    vtensor::CompiledTensorProto* ct = nullptr;
    for (auto& c : *m->ext.mutable_compiled_tensors())
      if (c.source_name() == source) ct = &c;
    ASSERT_NE(ct, nullptr);
    ASSERT_TRUE(ct->value().has_external());
    const auto& x = ct->value().external();
    std::string bytes(static_cast<size_t>(x.length()), '\0');
    const int fd = ::open(pack_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pread(fd, bytes.data(), bytes.size(), x.offset()), static_cast<ssize_t>(bytes.size()));
    bytes[bytes.size() / 3] ^= 0x40;
    ASSERT_EQ(::pwrite(fd, bytes.data(), bytes.size(), x.offset()), static_cast<ssize_t>(bytes.size()));
    ::close(fd);
    for (auto& kv : *ct->mutable_metadata_props())
      if (kv.key() == kPayloadDigestKey) kv.set_value(PayloadDigest(bytes.data(), bytes.size()));
    ASSERT_TRUE(WriteCompiledModel(*m, compiled_).ok());
  }

  // Flips one payload byte in place; with `keep_mtime` the file's mtime is set back.
  void FlipPayloadByte(bool keep_mtime) {
    struct stat before;
    ASSERT_EQ(::stat(pack_.c_str(), &before), 0);
    const int fd = ::open(pack_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    uint8_t b = 0;
    const off_t at = before.st_size / 2;
    ASSERT_EQ(::pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
    ::close(fd);
    if (keep_mtime) {
      const struct timespec ts[2] = {before.st_atim, before.st_mtim};
      ASSERT_EQ(::utimensat(AT_FDCWD, pack_.c_str(), ts, 0), 0);
      struct stat after;
      ASSERT_EQ(::stat(pack_.c_str(), &after), 0);
      ASSERT_EQ(after.st_size, before.st_size);
      ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
      ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    }
  }

  // The flipped byte is caught: one entry MISS(payload-digest), the output still exact.
  void ExpectCaught(const Outcome& o) {
    int misses = 0;
    for (const auto& r : o.report) {
      EXPECT_FALSE(r.memo) << r.index;
      if (r.state == EntryState::kMiss) {
        ++misses;
        EXPECT_STREQ(MissReasonCode(r.reason), "payload-digest") << r.detail;
      }
    }
    EXPECT_EQ(misses, 1);
    EXPECT_EQ(o.output, reference_);
  }

  std::vector<std::string> MemoFiles() const {
    std::vector<std::string> out;
    if (fs::is_directory(cache_.memo_dir))
      for (const auto& e : fs::directory_iterator(cache_.memo_dir))
        // The session plan's own memo (runtime/session_plan.h) is not the compiled tensors'.
        if (!e.path().filename().string().starts_with("plan-")) out.push_back(e.path());
    return out;
  }

  testing::ScopedTempDir dir_{"verify_memo_e2e"};
  std::string model_dir_, compiled_, pack_, reference_;
  CacheOptions cache_;
};

TEST_F(VerifyMemoE2eTest, MemoIsTheDefaultAndSkipsOnlyAfterAFirstVerification) {
  EXPECT_EQ(CacheOptions{}.verify, VerifyPolicy::kMemo);
  EXPECT_EQ(SessionOptions{}.cache.verify, VerifyPolicy::kMemo);
  // Just compiled: verified, and not recorded (racy).
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "fresh");
  EXPECT_TRUE(MemoFiles().empty());
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "fresh again");
  WaitPastRacyMargin();
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "first aged load");
  EXPECT_EQ(MemoFiles().size(), 1u);
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "later load");
}

// No memo yet: the first load compares instead of hashing, and a damaged payload is still a
// miss, named by the hashing that follows a difference; nothing is memoized for it.
TEST_F(VerifyMemoE2eTest, DamagedPayloadOnFirstLoadIsAMiss) {
  FlipPayloadByte(/*keep_mtime=*/false);
  WaitPastRacyMargin();
  const Outcome first = Load(compiled_, cache_);
  ExpectCaught(first);
  for (const auto& r : first.report) EXPECT_EQ(r.compared, r.state == EntryState::kHit) << r.index;
  const Outcome second = Load(compiled_, cache_);  // only the hit was memoized
  for (const auto& r : second.report) {
    EXPECT_EQ(r.memo, r.state == EntryState::kHit) << r.index;
    if (r.state == EntryState::kMiss) {
      EXPECT_STREQ(MissReasonCode(r.reason), "payload-digest");
    }
  }
  EXPECT_EQ(second.output, reference_);
}

// A payload rewritten with a matching payload digest passes both digests (a HIT under
// `always`), but not the comparison with the source: the first load under memo misses it.
TEST_F(VerifyMemoE2eTest, ConsistentlyRewrittenPayloadIsCaughtByTheComparison) {
  RewritePayloadConsistently("W_mm");
  WaitPastRacyMargin();
  CacheOptions always = cache_;
  always.verify = VerifyPolicy::kAlways;
  const Outcome hashed = Load(compiled_, always);
  for (const auto& r : hashed.report) EXPECT_EQ(r.state, EntryState::kHit) << r.index;
  const Outcome o = Load(compiled_, cache_);
  int misses = 0;
  for (const auto& r : o.report) {
    if (r.state != EntryState::kMiss) continue;
    ++misses;
    EXPECT_EQ(r.source_name, "W_mm");
    EXPECT_EQ(r.reason, MissReason::kPackMismatch) << r.detail;
  }
  EXPECT_EQ(misses, 1);
  EXPECT_EQ(o.output, reference_);
}

TEST_F(VerifyMemoE2eTest, PayloadChangedAfterTheMemoIsCaught) {
  WaitPastRacyMargin();
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "first");
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "second");
  FlipPayloadByte(/*keep_mtime=*/false);
  ExpectCaught(Load(compiled_, cache_));
}

TEST_F(VerifyMemoE2eTest, PayloadChangedWithSameSizeAndMtimeIsCaught) {
  WaitPastRacyMargin();
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "first");
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "second");
  FlipPayloadByte(/*keep_mtime=*/true);  // ctime still moves
  ExpectCaught(Load(compiled_, cache_));
}

TEST_F(VerifyMemoE2eTest, CopyElsewhereIsVerifiedAgain) {
  WaitPastRacyMargin();
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "first");
  const std::string other = dir_.path() + "/copy";
  fs::create_directory(other);
  fs::copy_file(compiled_, other + "/c.onnx");
  fs::copy_file(pack_, other + "/c.onnx.vtpack");
  ExpectAllHit(Load(other + "/c.onnx", cache_), Expect::kVerified, "copy");
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "original");
}

TEST_F(VerifyMemoE2eTest, DamagedMemoIsIgnoredAndRewritten) {
  WaitPastRacyMargin();
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "first");
  const auto files = MemoFiles();
  ASSERT_EQ(files.size(), 1u);
  for (const std::string damaged : {"0\n1\n", "", "garbage"}) {
    std::ofstream(files[0], std::ios::trunc) << damaged;
    ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "damaged memo");
    ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "rewritten memo");
  }
}

TEST_F(VerifyMemoE2eTest, UnwritableMemoDirectoryAndModelDirectoryLeftAlone) {
  WaitPastRacyMargin();
  // A memo directory that cannot be created (its parent is a file; root ignores modes):
  // every load verifies, none fails.
  std::ofstream(dir_.path() + "/file") << "x";
  CacheOptions blocked = cache_;
  blocked.memo_dir = dir_.path() + "/file/memo";
  ExpectAllHit(Load(compiled_, blocked), Expect::kVerified, "blocked 1");
  ExpectAllHit(Load(compiled_, blocked), Expect::kVerified, "blocked 2");
  // Nothing is ever written beside the model: a read-only model directory works the same.
  ::chmod(model_dir_.c_str(), 0555);
  ExpectAllHit(Load(compiled_, cache_), Expect::kVerified, "read-only model dir");
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "read-only model dir, memo");
  ::chmod(model_dir_.c_str(), 0755);
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(model_dir_)) ++n;
  EXPECT_EQ(n, 2u) << "only the model and its payload file";
}

TEST_F(VerifyMemoE2eTest, ConcurrentFirstLoadsLeaveOneCompleteMemo) {
  WaitPastRacyMargin();
  std::vector<Outcome> outs(4);
  std::vector<std::thread> threads;
  threads.reserve(outs.size());
  for (auto& o : outs) threads.emplace_back([&o, this] { o = Load(compiled_, cache_); });
  for (auto& t : threads) t.join();
  // A load that opens after another one recorded the memo may use it; each entry is HIT
  // through exactly one of the two, and at least the first writer verified.
  int verified = 0;
  for (const auto& o : outs) {
    ASSERT_EQ(o.report.size(), 2u);
    for (const auto& r : o.report) {
      EXPECT_EQ(r.state, EntryState::kHit) << r.index << " " << r.detail;
      EXPECT_NE(r.verified, r.memo) << r.index;
      verified += r.verified;
    }
    EXPECT_EQ(o.output, reference_);
  }
  EXPECT_GE(verified, 2);
  EXPECT_EQ(MemoFiles().size(), 1u) << "one memo, no temp files left";
  ExpectAllHit(Load(compiled_, cache_), Expect::kMemo, "after");
}

}  // namespace
}  // namespace vt
