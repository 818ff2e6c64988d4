// nbits4_unpack_q8_avx512vnni and gemm_nbits4u_q8_8x16_avx512vnni (nbits_ukernel.h, "q8 tile
// rows"). Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni
// -ffp-contract=off; called only after run-time detection.
//
// The unpacked layout puts the 16 rows of a quad in the 16 dwords of a line, so one vpdpbusd of a quad against the
// broadcast dword of 4 activations gives the 16 rows' partial dots: a chunk is 8
// vpdpbusd per activation row and nothing else integer. The VNNI q8 row
// (nbits_gemm_avx512vnni.cc) instead spends a nibble split per MR rows and a 6-instruction
// lane reduction per row and chunk; for M > 1 that work, not the dots, bounded prefill.
#include <immintrin.h>

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as (maybe-)uninitialized once these templates are inlined: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>
#include <cstring>

#include "kernels/cpu/dispatch_mr.h"
#include "kernels/nbits/nbits_avx512_inl.h"
#include "kernels/nbits/nbits_ukernel.h"

namespace vt::kernels {
namespace {

using nbits_avx512::ZeroPoints;

// Rows 4g..4g+3 of chunk c of a block (16 rows of `blob` bytes): dword 4 l + t = row 4 g + l,
// code bytes 4 t..4 t + 3.
inline __m512i LoadRows4(const uint8_t* blk, size_t blob, size_t g, size_t c) {
  const uint8_t* p = blk + 4 * g * blob + c * 16;
  if (blob == 16) return _mm512_loadu_si512(p);
  __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + blob)), 1);
  v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * blob)), 2);
  return _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 3 * blob)), 3);
}

inline int32_t Quad(const int8_t* q) {
  int32_t v;
  std::memcpy(&v, q, 4);
  return v;
}

template <size_t MR>
void TileQ8(size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq, size_t ldxq, const uint8_t* u,
            const NBitsPanel& w, const float* bias, float* y, size_t ldy) {
  const size_t chunks = bs / 32;
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m512 acc[MR];
  for (size_t i = 0; i < MR; ++i) acc[i] = _mm512_setzero_ps();
  for (size_t b = 0; b < kb; ++b) {
    // Scales and zero points in the layout's dword order (dword 4 l + k: row 4 k + l).
    const __m512 sw = _mm512_permutexvar_ps(order, _mm512_loadu_ps(w.scales + b * kNBitsRows));
    const __m512 zp = _mm512_permutexvar_ps(order, ZeroPoints(w, b));
    for (size_t c = 0; c < chunks; ++c) {
      const uint8_t* quads = u + (b * chunks + c) * 8 * 64;
      __m512i wq[8];
      for (size_t t = 0; t < 8; ++t) wq[t] = _mm512_load_si512(quads + t * 64);
      for (size_t i = 0; i < MR; ++i) {
        const Q4Q8Block& xb = xq[i * ldxq + b * chunks + c];
        // Two chains of exact int32 partial dots, so that MR rows keep the VNNI unit busy.
        __m512i d0 = _mm512_setzero_si512(), d1 = _mm512_setzero_si512();
        for (size_t t = 0; t < 8; t += 2) {
          d0 = _mm512_dpbusd_epi32(d0, wq[t], _mm512_set1_epi32(Quad(xb.q + 4 * t)));
          d1 = _mm512_dpbusd_epi32(d1, wq[t + 1], _mm512_set1_epi32(Quad(xb.q + 4 * t + 4)));
        }
        const __m512i dot = _mm512_add_epi32(d0, d1);
        const int32_t qsum = -xb.neg8sum[0] / 8;  // exact: neg8sum[0] is -8 * sum q
        const float sum = static_cast<float>(qsum);
        const __m512 v = _mm512_fnmadd_ps(zp, _mm512_set1_ps(sum), _mm512_cvtepi32_ps(dot));
        const __m512 s = _mm512_mul_ps(sw, _mm512_set1_ps(xb.d));
        acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(v, s));
      }
    }
  }
  const __mmask16 mask = static_cast<__mmask16>((1u << nc) - 1);
  const __m512 bv = bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias) : _mm512_setzero_ps();
  // The order is its own inverse (a 4 x 4 transpose): permuting back gives row order.
  for (size_t i = 0; i < MR; ++i)
    _mm512_mask_storeu_ps(y + i * ldy, mask,
                          _mm512_add_ps(_mm512_permutexvar_ps(order, acc[i]), bv));
}

}  // namespace

void nbits4_unpack_q8_avx512vnni(size_t kb, size_t bs, const uint8_t* codes, uint8_t* u) {
  const size_t blob = bs / 2, chunks = bs / 32, block_bytes = kNBitsRows * blob;
  const __m512i m0f = _mm512_set1_epi8(0x0F);
  for (size_t b = 0; b < kb; ++b) {
    const uint8_t* blk = codes + b * block_bytes;
    // The codes stream from memory once per call: keep lines in flight ahead of the unpack
    // (the decode rows' distance, nbits_avx512_inl.h).
    for (size_t off = 0; off < block_bytes; off += 64)
      _mm_prefetch(reinterpret_cast<const char*>(blk + off + nbits_avx512::kPrefetchL2Bytes),
                   _MM_HINT_T0);
    for (size_t c = 0; c < chunks; ++c) {
      // g[k] lane l: row 4 k + l, quads 0..3. A 4 x 4 dword transpose inside each 128-bit
      // lane gives quad t of every row, row 4 k + l in dword 4 l + k (the layout's order).
      __m512i g[4];
      for (size_t k = 0; k < 4; ++k) g[k] = LoadRows4(blk, blob, k, c);
      const __m512i t01l = _mm512_unpacklo_epi32(g[0], g[1]), t01h = _mm512_unpackhi_epi32(g[0], g[1]);
      const __m512i t23l = _mm512_unpacklo_epi32(g[2], g[3]), t23h = _mm512_unpackhi_epi32(g[2], g[3]);
      const __m512i bytes[4] = {_mm512_unpacklo_epi64(t01l, t23l), _mm512_unpackhi_epi64(t01l, t23l),
                                _mm512_unpacklo_epi64(t01h, t23h), _mm512_unpackhi_epi64(t01h, t23h)};
      uint8_t* dst = u + (b * chunks + c) * 8 * 64;
      for (size_t t = 0; t < 4; ++t) {
        _mm512_store_si512(dst + t * 64, _mm512_and_si512(bytes[t], m0f));
        _mm512_store_si512(dst + (t + 4) * 64,
                           _mm512_and_si512(_mm512_srli_epi16(bytes[t], 4), m0f));
      }
    }
  }
}

void gemm_nbits4u_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, size_t bs,
                                     const Q4Q8Block* xq, size_t ldxq, const uint8_t* u,
                                     const NBitsPanel& w, const float* bias, float* y,
                                     size_t ldy) {
  DispatchMr<kNBitsMaxMr>(mr, [&](auto m) {
    TileQ8<decltype(m)::value>(nc, kb, bs, xq, ldxq, u, w, bias, y, ldy);
  });
}

}  // namespace vt::kernels
