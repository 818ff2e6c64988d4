// gemm_q4_0_q8_8x16_avx512vnni and its activation quantizer (q4_ukernel.h, "q8 rows").
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mavx512vbmi; called
// only after run-time detection.
//
// A panel's 16 weight rows are taken as 4 groups of 4 consecutive 18-byte blocks (72 bytes per
// group and input block). One vpermt2b over two overlapping 64-byte loads puts the 16 nibble
// bytes of the group's block l into 128-bit lane l of a zmm; the low and high nibbles (elements
// 0..15 and 16..31, unsigned 0..15) meet the activation block's int8 values, broadcast to all 4
// lanes, in two vpdpbusd, each accumulation starting from {-8 * sum(q), 0, 0, 0} per lane. Two
// rounds of unpack + add sum each lane's four int32 partials across the 4 groups, giving the 16
// exact block dots of (u - 8) . q in one zmm (transposed: dword 4 l + g is row 4 g + l), which
// is converted to f32 (exact, |dot| < 2^24), multiplied by f32(dw * d) and added to one f32
// accumulator per activation row: the same roundings, in the same order, as the twin
// Q4_0Q8GemmReference, so the results are bit-identical to it (with FTZ|DAZ, as the driver
// runs, for data whose products and sums stay normal). The 16 f16 weight scales of an input
// block are picked out of the same loads (two vpermt2b and a blend) and converted together.
// Per 288 weight bytes and activation row: 8 vpdpbusd + 6 shuffles; plus 11 shared shuffles
// (the f32 row needs ~80 per row).
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/dispatch_mr.h"
#include <cstring>

#include "kernels/q4/q4_ukernel.h"

// GCC 12 reports the undefined pass-through operands inside its own AVX-512 intrinsic headers
// as maybe-uninitialized once these templates are inlined (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace vt::kernels {
namespace {

constexpr size_t kRows = 16;
constexpr size_t kBlockBytes = 18;
constexpr size_t kGroupBytes = 4 * kBlockBytes;       // 4 rows of one input block
constexpr size_t kPanelBlockBytes = kRows * kBlockBytes;  // 16 rows of one input block
// Software prefetch distances in bytes ahead of the block being read, one prefetch per 64-byte
// line at each distance: into L1 (prefetcht0) and, further ahead, into L2 (prefetcht2). The
// kernel's ~40 vector uops per 288 bytes keep the out-of-order window from running as far ahead
// as a bare read loop does, and the L1 prefetch alone (16 fill buffers) leaves the core at
// ~0.77x of a prefetching sequential read (kbench int4 row, Sapphire Rapids, weights from DRAM);
// the far L2 prefetch keeps more lines in flight and lifts it to ~0.92x. Measured plateau:
// L1 distance 2-3 KiB, L2 distance 8-32 KiB.
constexpr uintptr_t kPrefetchL1Bytes = 2048;
constexpr uintptr_t kPrefetchL2Bytes = 12288;

struct Tables {
  __m512i nibbles;  // vpermt2b index: lane l byte j = group byte 18 l + 2 + j
  __m512i sc_lo;    // bytes 2r, 2r+1 (r < 8) = the f16 scale of group-pair row r
  __m512i sc_hi;    // the same, placed at bytes 16 + 2r, 16 + 2r + 1
  __m512i transpose;  // vpermps index: dword 4 l + g = 4 g + l
};

// Group loads: A = bytes [0, 64) of the group, B = bytes [8, 72); index bit 6 picks B.
Tables MakeTables() {
  alignas(64) uint8_t nib[64], lo[64] = {}, hi[64] = {};
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < 16; ++j) {
      const int src = 18 * l + 2 + j;
      nib[16 * l + j] = static_cast<uint8_t>(src < 64 ? src : 64 + src - 8);
    }
  // Row r of a group pair: group r / 4 (first or second source), block r % 4 at byte 18 (r % 4).
  for (int r = 0; r < 8; ++r)
    for (int h = 0; h < 2; ++h) {
      const int idx = (r < 4 ? 0 : 64) + 18 * (r % 4) + h;
      lo[2 * r + h] = static_cast<uint8_t>(idx);
      hi[16 + 2 * r + h] = static_cast<uint8_t>(idx);
    }
  Tables t;
  t.nibbles = _mm512_load_si512(nib);
  t.sc_lo = _mm512_load_si512(lo);
  t.sc_hi = _mm512_load_si512(hi);
  alignas(64) int32_t tr[16];
  for (int i = 0; i < 16; ++i) tr[i] = 4 * (i % 4) + i / 4;
  t.transpose = _mm512_load_si512(tr);
  return t;
}

// MR activation rows, all 16 weight rows in one pass over the panel's input blocks.
template <size_t MR>
void PanelQ8(const Tables& t, size_t nc, size_t kb, const Q4Q8Block* xq, size_t ldxq,
             const uint8_t* w, const float* bias, float* y, size_t ldy) {
  const __m512i m0f = _mm512_set1_epi8(0x0F);
  __m512 acc[MR];  // dword 4 l + g: weight row 4 g + l
  for (size_t i = 0; i < MR; ++i) acc[i] = _mm512_setzero_ps();
  const uint8_t* blk = w;
  // The weights stream from DRAM once. Next line to prefetch at each distance (past the panel's
  // end this touches the next panel, which the driver reads next; prefetches never fault).
  const uintptr_t w0 = reinterpret_cast<uintptr_t>(w);
  uintptr_t pf1 = (w0 + kPrefetchL1Bytes) & ~uintptr_t{63};
  uintptr_t pf2 = (w0 + kPrefetchL2Bytes) & ~uintptr_t{63};
  for (size_t b = 0; b < kb; ++b, blk += kPanelBlockBytes) {
    const uintptr_t end = reinterpret_cast<uintptr_t>(blk) + kPanelBlockBytes;
    for (; pf1 < end + kPrefetchL1Bytes; pf1 += 64)
      _mm_prefetch(reinterpret_cast<const char*>(pf1), _MM_HINT_T0);
    for (; pf2 < end + kPrefetchL2Bytes; pf2 += 64)
      _mm_prefetch(reinterpret_cast<const char*>(pf2), _MM_HINT_T2);
    __m512i a[4], lo[4], hi[4];
    for (size_t g = 0; g < 4; ++g) {
      a[g] = _mm512_loadu_si512(blk + g * kGroupBytes);
      const __m512i v = _mm512_permutex2var_epi8(a[g], t.nibbles,
                                                 _mm512_loadu_si512(blk + g * kGroupBytes + 8));
      lo[g] = _mm512_and_si512(v, m0f);
      hi[g] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m0f);
    }
    const __m512i h = _mm512_mask_blend_epi8(0x00000000FFFF0000ull,
                                             _mm512_permutex2var_epi8(a[0], t.sc_lo, a[1]),
                                             _mm512_permutex2var_epi8(a[2], t.sc_hi, a[3]));
    // The 16 weight scales in accumulator order (dword 4 l + g: row 4 g + l).
    const __m512 sw = _mm512_permutexvar_ps(t.transpose, _mm512_cvtph_ps(_mm512_castsi512_si256(h)));
    for (size_t i = 0; i < MR; ++i) {
      const Q4Q8Block& xb = xq[i * ldxq + b];
      const __m512i xlo = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(xb.q)));
      const __m512i xhi = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(xb.q + 16)));
      const __m512i c = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(xb.neg8sum)));
      __m512i d[4];
      for (size_t g = 0; g < 4; ++g)
        d[g] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(c, lo[g], xlo), hi[g], xhi);
      // Sum each lane's 4 partials (exact int32), transposed: dword 4 l + g = row 4 g + l.
      const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(d[0], d[1]),
                                           _mm512_unpackhi_epi32(d[0], d[1]));
      const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(d[2], d[3]),
                                           _mm512_unpackhi_epi32(d[2], d[3]));
      const __m512i dot = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23),
                                           _mm512_unpackhi_epi64(t01, t23));
      // The twin's roundings exactly: f32(dw * d), f32(dot * s), f32(acc + term).
      const __m512 s = _mm512_mul_ps(sw, _mm512_set1_ps(xb.d));
      acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(_mm512_cvtepi32_ps(dot), s));
    }
  }
  for (size_t i = 0; i < MR; ++i) {
    alignas(64) float p[16];
    _mm512_store_ps(p, acc[i]);
    for (size_t r = 0; r < nc; ++r)
      y[i * ldy + r] = p[4 * (r % 4) + r / 4] + (bias != nullptr ? bias[r] : 0.0f);
  }
}

}  // namespace

void Q4_0QuantizeXQ8Avx512(size_t m, size_t k, const float* x, size_t ldx, Q4Q8Block* xq) {
  const size_t kb = (k + 31) / 32;
  const __m512 sign = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
  for (size_t i = 0; i < m; ++i)
    for (size_t b = 0; b < kb; ++b) {
      const float* src = x + i * ldx + b * 32;
      const size_t n = k - b * 32 < 32 ? k - b * 32 : 32;
      const __mmask16 m0 = n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
      const __mmask16 m1 = n >= 32 ? __mmask16(0xFFFF) : n <= 16 ? __mmask16(0) : __mmask16((1u << (n - 16)) - 1);
      const __m512 v0 = _mm512_maskz_loadu_ps(m0, src), v1 = _mm512_maskz_loadu_ps(m1, src + 16);
      const float amax =
          _mm512_reduce_max_ps(_mm512_max_ps(_mm512_and_ps(v0, sign), _mm512_and_ps(v1, sign)));
      const float d = amax / 127.0f;
      Q4Q8Block& out = xq[i * kb + b];
      if (d == 0.0f) {
        std::memset(&out, 0, sizeof(out));
        continue;
      }
      const __m512 vd = _mm512_set1_ps(d);
      // vcvtps2dq rounds by MXCSR (nearest even, like the twin's nearbyint); |x / d| < 127.5.
      const __m512i q0 = _mm512_cvtps_epi32(_mm512_div_ps(v0, vd));
      const __m512i q1 = _mm512_cvtps_epi32(_mm512_div_ps(v1, vd));
      _mm_store_si128(reinterpret_cast<__m128i*>(out.q), _mm512_cvtsepi32_epi8(q0));
      _mm_store_si128(reinterpret_cast<__m128i*>(out.q + 16), _mm512_cvtsepi32_epi8(q1));
      const int32_t sum = _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
      _mm_store_si128(reinterpret_cast<__m128i*>(out.neg8sum), _mm_setr_epi32(-8 * sum, 0, 0, 0));
      out.d = d;
      std::memset(out.pad, 0, sizeof(out.pad));
    }
}

void gemm_q4_0_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, const Q4Q8Block* xq,
                                  size_t ldxq, const uint8_t* w, const float* bias, float* y,
                                  size_t ldy) {
  static const Tables tables = MakeTables();
  const Tables& t = tables;
  DispatchMr<kQ4MaxMr>(mr, [&](auto m) {
    PanelQ8<decltype(m)::value>(t, nc, kb, xq, ldxq, w, bias, y, ldy);
  });
}

}  // namespace vt::kernels
