#include "vtensor/forms/cache_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vt {
namespace {

CacheEntryReport Hit(const std::string& source, const std::string& arch = "x86_64-avx512") {
  CacheEntryReport r;
  r.source_name = source;
  r.architecture = arch;
  r.state = EntryState::kHit;
  return r;
}

CacheEntryReport Miss(const std::string& source, MissReason reason,
                      const std::string& arch = "x86_64-avx512") {
  CacheEntryReport r;
  r.source_name = source;
  r.architecture = arch;
  r.state = EntryState::kMiss;
  r.reason = reason;
  return r;
}

TEST(CacheSummaryTest, NothingToSayWithoutEntriesOrWhenEveryWeightIsServed) {
  EXPECT_EQ(CacheMissLine(SummarizeCache({}), "m.onnx"), "");
  const CacheSummary full = SummarizeCache({Hit("a"), Hit("b")});
  EXPECT_EQ(full.entries, 2u);
  EXPECT_EQ(full.hits, 2u);
  EXPECT_EQ(full.missed(), 0u);
  EXPECT_EQ(CacheMissLine(full, "m.onnx"), "");
}

// A model compiled for two CPUs, or for both profiles: the session's own entries hit, the
// others miss by design and are not worth a warning.
TEST(CacheSummaryTest, MissesOfServedWeightsAreNotCounted) {
  const CacheSummary s = SummarizeCache({Hit("a"), Miss("a", MissReason::kOtherArchitecture, "x86_64-avx2"),
                                         Hit("b"), Miss("b", MissReason::kNotSelected)});
  EXPECT_EQ(s.entries, 4u);
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.missed(), 0u);
  EXPECT_EQ(CacheMissLine(s, "m.onnx"), "");
}

TEST(CacheSummaryTest, CacheTurnedOffByTheCallerIsNotAWarning) {
  const CacheSummary s = SummarizeCache({Miss("a", MissReason::kCacheDisabled)});
  EXPECT_EQ(s.missed(), 0u);
  EXPECT_EQ(CacheMissLine(s, "m.onnx"), "");
}

TEST(CacheSummaryTest, LineCountsMissesByCodeAndNamesTheInspectCommand) {
  const CacheSummary s = SummarizeCache(
      {Miss("a", MissReason::kMissingPayloadFile), Miss("b", MissReason::kMissingPayloadFile),
       Miss("c", MissReason::kPayloadDigest), Miss("d", MissReason::kNoPayloadDigest), Hit("e")});
  EXPECT_EQ(s.missed(), 4u);
  EXPECT_EQ(s.misses.at(MissReason::kMissingPayloadFile), 2u);
  EXPECT_EQ(s.misses.at(MissReason::kPayloadDigest), 1u);
  // Two reasons of one code ("payload-digest") add up; codes follow MissReason order.
  EXPECT_EQ(CacheMissLine(s, "dir/m.onnx"),
            "vtensor: warning: dir/m.onnx: 4 of 5 compiled tensors not used (payload-missing 2, "
            "payload-digest 2); their weights were packed at load; see `vtensor inspect "
            "dir/m.onnx --cache`");
}

TEST(CacheSummaryTest, ModelFromMemoryAndUnreadableExtension) {
  const CacheSummary s = SummarizeCache({Miss("a", MissReason::kNotSelected)});
  EXPECT_EQ(CacheMissLine(s, ""),
            "vtensor: warning: MODEL: 1 of 1 compiled tensors not used (not-selected 1); their "
            "weights were packed at load; see `vtensor inspect MODEL --cache`");
  EXPECT_EQ(CacheMissLine(SummarizeCache({}), "m.onnx", "field 28: truncated"),
            "vtensor: warning: m.onnx: compiled tensors ignored (field 28: truncated); every "
            "weight was packed at load; see `vtensor inspect m.onnx --cache`");
}

TEST(CacheSummaryTest, MissedSessionPlanHasItsOwnClause) {
  CacheSummary s = SummarizeCache({Hit("a")});
  s.plan_miss = MissReason::kStaleGraph;
  EXPECT_EQ(CacheMissLine(s, "m.onnx"),
            "vtensor: warning: m.onnx: the session plan was not used (stale-graph); the graph "
            "passes ran at load; see `vtensor inspect m.onnx --cache`");
  CacheSummary both = SummarizeCache({Miss("a", MissReason::kMissingPayloadFile)});
  both.plan_miss = MissReason::kTruncatedPayload;
  EXPECT_EQ(CacheMissLine(both, "m.onnx"),
            "vtensor: warning: m.onnx: 1 of 1 compiled tensors not used (payload-missing 1); "
            "their weights were packed at load; the session plan was not used (payload-size); "
            "the graph passes ran at load; see `vtensor inspect m.onnx --cache`");
}

}  // namespace
}  // namespace vt
