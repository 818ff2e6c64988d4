// Portable BLAKE3 compression and the one-input-at-a-time hash_many fallback.
#include "blake3_impl.h"

namespace vt::blake3 {

namespace {

inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

inline void G(uint32_t* v, int a, int b, int c, int d, uint32_t x, uint32_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = Rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = Rotr(v[b] ^ v[c], 12);
  v[a] = v[a] + v[b] + y;
  v[d] = Rotr(v[d] ^ v[a], 8);
  v[c] = v[c] + v[d];
  v[b] = Rotr(v[b] ^ v[c], 7);
}

}  // namespace

void Compress(const uint32_t cv[8], const uint8_t block[kBlockLen], uint8_t block_len,
              uint64_t counter, uint8_t flags, uint32_t out[8]) {
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = Load32(block + 4 * i);
  uint32_t v[16] = {cv[0],  cv[1],  cv[2],  cv[3],  cv[4],  cv[5],
                    cv[6],  cv[7],  kIv[0], kIv[1], kIv[2], kIv[3],
                    static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32),
                    block_len, flags};
  // Fully unrolled so every message index is a compile-time constant.
#pragma GCC unroll 7
  for (int r = 0; r < 7; ++r) {
    const uint8_t* s = kSchedule.s[r];
    G(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    G(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    G(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    G(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    G(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    G(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    G(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    G(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) out[i] = v[i] ^ v[i + 8];
}

void HashManyPortable(const uint8_t* const* inputs, size_t n, size_t blocks,
                      const uint32_t key[8], uint64_t counter, bool increment, uint8_t flags,
                      uint8_t flags_start, uint8_t flags_end, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t cv[8];
    std::memcpy(cv, key, sizeof cv);
    for (size_t b = 0; b < blocks; ++b) {
      uint8_t f = flags;
      if (b == 0) f |= flags_start;
      if (b + 1 == blocks) f |= flags_end;
      Compress(cv, inputs[i] + b * kBlockLen, kBlockLen, counter + (increment ? i : 0), f, cv);
    }
    for (int w = 0; w < 8; ++w) Store32(out + 32 * i + 4 * w, cv[w]);
  }
}

}  // namespace vt::blake3
