#include "vtensor/forms/miss_reason.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace vt {
namespace {

// Every reason prints one of the codes forms/weight_cache.h documents (the CLI's text), and has
// its own description.
TEST(MissReasonTest, EveryReasonHasADocumentedCodeAndADescription) {
  const std::set<std::string> codes = {
      "malformed",           "no-such-initializer",   "ambiguous-source",
      "device-out-of-range", "incompatible-device",   "invalid-struct",
      "unknown-physical-type", "unknown-format-version", "payload-size",
      "payload-missing",     "digest-mismatch",       "payload-digest",
      "not-selected"};
  EXPECT_STREQ(MissReasonCode(MissReason::kNone), "");
  std::set<std::string> descriptions, used;
  for (int i = 1; i <= static_cast<int>(MissReason::kNotSelected); ++i) {
    const auto r = static_cast<MissReason>(i);
    SCOPED_TRACE(i);
    EXPECT_TRUE(codes.count(MissReasonCode(r))) << MissReasonCode(r);
    used.insert(MissReasonCode(r));
    EXPECT_TRUE(descriptions.insert(MissReasonDescription(r)).second) << MissReasonDescription(r);
  }
  EXPECT_EQ(used, codes);  // every documented code is reachable
  EXPECT_STREQ(MissReasonCode(MissReason::kOtherAbi), "incompatible-device");
  EXPECT_STREQ(MissReasonCode(MissReason::kStaleDigest), "digest-mismatch");
  EXPECT_STREQ(MissReasonCode(MissReason::kMissingPayloadFile), "payload-missing");
}

}  // namespace
}  // namespace vt
