#include "vtensor/format/payload_digest.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <string>
#include <vector>

#include "vtensor/base/blake3.h"

namespace vt {
namespace {

// The library's own (SSE2) XXH3-128 in canonical hex: the reference for the dispatched build.
std::string LibraryXxh3(const std::vector<unsigned char>& b) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(b.data(), b.size()));
  return "xxh3-128:" + ToHex(c.digest, sizeof(c.digest));
}

TEST(PayloadDigestTest, DispatchedXxh3EqualsTheLibraryAtEverySizeClass) {
  for (size_t n : {0, 1, 3, 16, 17, 128, 129, 240, 241, 1024, 4096, 100000, 1 << 20}) {
    std::vector<unsigned char> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 131 + (i >> 7));
    EXPECT_EQ(PayloadDigest(b.data(), b.size()), LibraryXxh3(b)) << n;
  }
}

TEST(PayloadDigestTest, CheckAcceptsItsOwnDigestAndRejectsAFlippedByte) {
  std::vector<unsigned char> b(5000, 7);
  const std::string d = PayloadDigest(b.data(), b.size());
  EXPECT_TRUE(CheckPayloadDigest(d, b.data(), b.size()).ok());
  b[4321] ^= 1;
  const Status st = CheckPayloadDigest(d, b.data(), b.size());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("mismatch"), std::string::npos);
}

TEST(PayloadDigestTest, OtherAlgorithmsAndMalformedValues) {
  const std::string abc = "abc";
  // BLAKE3("abc") from the official test vectors.
  EXPECT_TRUE(CheckPayloadDigest(
                  "blake3:6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
                  abc.data(), abc.size())
                  .ok());
  EXPECT_EQ(CheckPayloadDigest("md5:00", abc.data(), abc.size()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckPayloadDigest("xxh3-128", abc.data(), abc.size()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckPayloadDigest("xxh3-128:abcd", abc.data(), abc.size()).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vt
