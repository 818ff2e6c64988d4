// BLAKE3 hash_many with AVX2: 8 inputs hashed in parallel, one input per 32-bit lane.
// Compiled with -mavx2 only; called only after run-time detection (blake3.cc).
#include <immintrin.h>

#include "blake3_impl.h"

namespace vt::blake3 {

namespace {

inline __m256i Add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
inline __m256i Xor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
// Rotations by 16 and 8 move whole bytes: one byte shuffle instead of two shifts and an or.
inline __m256i Rot16(__m256i x) {
  const __m256i k = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3,
                                     0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  return _mm256_shuffle_epi8(x, k);
}
inline __m256i Rot8(__m256i x) {
  const __m256i k = _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2,
                                     3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
  return _mm256_shuffle_epi8(x, k);
}
inline __m256i Rot12(__m256i x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, 12), _mm256_slli_epi32(x, 20));
}
inline __m256i Rot7(__m256i x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, 7), _mm256_slli_epi32(x, 25));
}

inline void G(__m256i* v, int a, int b, int c, int d, __m256i x, __m256i y) {
  v[a] = Add(Add(v[a], v[b]), x);
  v[d] = Rot16(Xor(v[d], v[a]));
  v[c] = Add(v[c], v[d]);
  v[b] = Rot12(Xor(v[b], v[c]));
  v[a] = Add(Add(v[a], v[b]), y);
  v[d] = Rot8(Xor(v[d], v[a]));
  v[c] = Add(v[c], v[d]);
  v[b] = Rot7(Xor(v[b], v[c]));
}

// m[w] lane i = word (half * 8 + w) of the block at in[i] + offset: an 8x8 transpose.
inline void Transpose8(const uint8_t* const* in, size_t offset, __m256i* m) {
  __m256i r[8], t[8];
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[i] + offset));
    _mm_prefetch(reinterpret_cast<const char*>(in[i] + offset + 256), _MM_HINT_T0);
  }
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
  }
  // r[4g + j] holds, in 128-bit lane k, word 4k + j of rows 4g .. 4g + 3.
  for (int g = 0; g < 8; g += 4) {
    r[g + 0] = _mm256_unpacklo_epi64(t[g + 0], t[g + 2]);
    r[g + 1] = _mm256_unpackhi_epi64(t[g + 0], t[g + 2]);
    r[g + 2] = _mm256_unpacklo_epi64(t[g + 1], t[g + 3]);
    r[g + 3] = _mm256_unpackhi_epi64(t[g + 1], t[g + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    m[j] = _mm256_permute2x128_si256(r[j], r[4 + j], 0x20);
    m[4 + j] = _mm256_permute2x128_si256(r[j], r[4 + j], 0x31);
  }
}

void Hash8(const uint8_t* const* in, size_t blocks, const uint32_t key[8], uint64_t counter,
           bool increment, uint8_t flags, uint8_t flags_start, uint8_t flags_end, uint8_t* out) {
  __m256i h[8];
  for (int i = 0; i < 8; ++i) h[i] = _mm256_set1_epi32(static_cast<int>(key[i]));
  alignas(32) uint32_t lo[8], hi[8];
  for (int i = 0; i < 8; ++i) {
    uint64_t c = counter + (increment ? static_cast<uint64_t>(i) : 0);
    lo[i] = static_cast<uint32_t>(c);
    hi[i] = static_cast<uint32_t>(c >> 32);
  }
  const __m256i clo = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
  const __m256i chi = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
  const __m256i blen = _mm256_set1_epi32(kBlockLen);
  for (size_t b = 0; b < blocks; ++b) {
    __m256i m[16];
    Transpose8(in, b * kBlockLen, m);
    Transpose8(in, b * kBlockLen + 32, m + 8);
    uint8_t f = flags;
    if (b == 0) f |= flags_start;
    if (b + 1 == blocks) f |= flags_end;
    __m256i v[16] = {h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                     _mm256_set1_epi32(static_cast<int>(kIv[0])),
                     _mm256_set1_epi32(static_cast<int>(kIv[1])),
                     _mm256_set1_epi32(static_cast<int>(kIv[2])),
                     _mm256_set1_epi32(static_cast<int>(kIv[3])),
                     clo, chi, blen, _mm256_set1_epi32(f)};
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
    for (int i = 0; i < 8; ++i) h[i] = Xor(v[i], v[i + 8]);
  }
  alignas(32) uint32_t words[8][8];
  for (int i = 0; i < 8; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(words[i]), h[i]);
  for (int lane = 0; lane < 8; ++lane)
    for (int w = 0; w < 8; ++w) Store32(out + 32 * lane + 4 * w, words[w][lane]);
}

}  // namespace

void HashManyAvx2(const uint8_t* const* inputs, size_t n, size_t blocks, const uint32_t key[8],
                  uint64_t counter, bool increment, uint8_t flags, uint8_t flags_start,
                  uint8_t flags_end, uint8_t* out) {
  while (n >= 8) {
    Hash8(inputs, blocks, key, counter, increment, flags, flags_start, flags_end, out);
    inputs += 8;
    n -= 8;
    out += 8 * 32;
    if (increment) counter += 8;
  }
  HashManyPortable(inputs, n, blocks, key, counter, increment, flags, flags_start, flags_end,
                   out);
}

}  // namespace vt::blake3
