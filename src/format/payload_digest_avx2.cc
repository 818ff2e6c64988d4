// XXH3-128 compiled for AVX2 (this file only; called after run-time detection): Debian's
// libxxhash is built for SSE2 without dispatch. XXH3 is defined bit-exactly, so both builds
// give the same digest (checked in payload_digest_test.cc).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/payload_digest_impl.h"

namespace vt::internal {

void Xxh3_128Avx2(const void* data, size_t n, unsigned char out[16]) {
  const XXH128_hash_t h = XXH3_128bits(data, n);
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  for (int i = 0; i < 16; ++i) out[i] = c.digest[i];
}

}  // namespace vt::internal
