// Internal: ISA-specific XXH3-128 builds behind format/payload_digest.h.
#pragma once

#include <cstddef>

namespace vt::internal {

// XXH3-128 (seed 0) of n bytes in canonical (big-endian) byte order. Requires AVX2.
void Xxh3_128Avx2(const void* data, size_t n, unsigned char out[16]);

}  // namespace vt::internal
