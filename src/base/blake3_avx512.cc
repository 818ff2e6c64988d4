// BLAKE3 hash_many with AVX-512F: 16 inputs hashed in parallel, one input per 32-bit lane
// ("vertical" form, BLAKE3 specification §5.3). Compiled with -mavx512f only; called only
// after run-time detection (blake3.cc).
#include <immintrin.h>

#include "blake3_impl.h"

namespace vt::blake3 {

namespace {

inline __m512i Add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
inline __m512i Xor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }

inline void G(__m512i* v, int a, int b, int c, int d, __m512i x, __m512i y) {
  v[a] = Add(Add(v[a], v[b]), x);
  v[d] = _mm512_ror_epi32(Xor(v[d], v[a]), 16);
  v[c] = Add(v[c], v[d]);
  v[b] = _mm512_ror_epi32(Xor(v[b], v[c]), 12);
  v[a] = Add(Add(v[a], v[b]), y);
  v[d] = _mm512_ror_epi32(Xor(v[d], v[a]), 8);
  v[c] = Add(v[c], v[d]);
  v[b] = _mm512_ror_epi32(Xor(v[b], v[c]), 7);
}

// m[w] lane i = word w of the 64-byte block at in[i] + offset: a 16x16 transpose of 32-bit
// words in three steps (32-bit interleave, 64-bit interleave, 128-bit lane shuffles).
inline void LoadTransposed(const uint8_t* const* in, size_t offset, __m512i m[16]) {
  __m512i r[16], t[16];
  for (int i = 0; i < 16; ++i) {
    r[i] = _mm512_loadu_si512(in[i] + offset);
    // 16 interleaved streams are more than the hardware prefetcher follows well.
    _mm_prefetch(reinterpret_cast<const char*>(in[i] + offset + 256), _MM_HINT_T0);
  }
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  // After this, r[4g + j] holds, in 128-bit lane k, word 4k + j of rows 4g .. 4g + 3.
  for (int g = 0; g < 16; g += 4) {
    r[g + 0] = _mm512_unpacklo_epi64(t[g + 0], t[g + 2]);
    r[g + 1] = _mm512_unpackhi_epi64(t[g + 0], t[g + 2]);
    r[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
    r[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    __m512i p = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x44);    // A0 A1 B0 B1
    __m512i q = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xEE);    // A2 A3 B2 B3
    __m512i s = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x44);  // C0 C1 D0 D1
    __m512i u = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xEE);  // C2 C3 D2 D3
    m[j] = _mm512_shuffle_i32x4(p, s, 0x88);       // A0 B0 C0 D0
    m[4 + j] = _mm512_shuffle_i32x4(p, s, 0xDD);   // A1 B1 C1 D1
    m[8 + j] = _mm512_shuffle_i32x4(q, u, 0x88);   // A2 B2 C2 D2
    m[12 + j] = _mm512_shuffle_i32x4(q, u, 0xDD);  // A3 B3 C3 D3
  }
}

void Hash16(const uint8_t* const* in, size_t blocks, const uint32_t key[8], uint64_t counter,
            bool increment, uint8_t flags, uint8_t flags_start, uint8_t flags_end,
            uint8_t* out) {
  __m512i h[8];
  for (int i = 0; i < 8; ++i) h[i] = _mm512_set1_epi32(static_cast<int>(key[i]));
  alignas(64) uint32_t lo[16], hi[16];
  for (int i = 0; i < 16; ++i) {
    uint64_t c = counter + (increment ? static_cast<uint64_t>(i) : 0);
    lo[i] = static_cast<uint32_t>(c);
    hi[i] = static_cast<uint32_t>(c >> 32);
  }
  const __m512i clo = _mm512_load_si512(lo), chi = _mm512_load_si512(hi);
  const __m512i blen = _mm512_set1_epi32(kBlockLen);
  for (size_t b = 0; b < blocks; ++b) {
    __m512i m[16];
    LoadTransposed(in, b * kBlockLen, m);
    uint8_t f = flags;
    if (b == 0) f |= flags_start;
    if (b + 1 == blocks) f |= flags_end;
    __m512i v[16] = {h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                     _mm512_set1_epi32(static_cast<int>(kIv[0])),
                     _mm512_set1_epi32(static_cast<int>(kIv[1])),
                     _mm512_set1_epi32(static_cast<int>(kIv[2])),
                     _mm512_set1_epi32(static_cast<int>(kIv[3])),
                     clo, chi, blen, _mm512_set1_epi32(f)};
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
  alignas(64) uint32_t words[8][16];
  for (int i = 0; i < 8; ++i) _mm512_store_si512(words[i], h[i]);
  for (int lane = 0; lane < 16; ++lane)
    for (int w = 0; w < 8; ++w) Store32(out + 32 * lane + 4 * w, words[w][lane]);
}

}  // namespace

void HashManyAvx512(const uint8_t* const* inputs, size_t n, size_t blocks,
                    const uint32_t key[8], uint64_t counter, bool increment, uint8_t flags,
                    uint8_t flags_start, uint8_t flags_end, uint8_t* out) {
  while (n >= 16) {
    Hash16(inputs, blocks, key, counter, increment, flags, flags_start, flags_end, out);
    inputs += 16;
    n -= 16;
    out += 16 * 32;
    if (increment) counter += 16;
  }
  // AVX-512F implies AVX2 on every CPU that has it; the tail goes 8-wide, then one by one.
  HashManyAvx2(inputs, n, blocks, key, counter, increment, flags, flags_start, flags_end, out);
}

}  // namespace vt::blake3
