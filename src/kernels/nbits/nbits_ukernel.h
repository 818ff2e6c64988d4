// MatMulNBits (com.microsoft, bits = 4) GEMM microkernels over planar kernel-feed panels
// (the int4 decode family).
//
// Weights. The logical weight is W[N, K] (N output channels, K the reduction), stored by
// MatMulNBits as three planes: 4-bit codes B[N, kb, bs/2] (kb = ceil(K / bs) blocks of bs
// elements per row, two codes per byte, element 2j of a block in the low nibble of byte j),
// one scale per (n, block) and optionally one zero point per (n, block); an absent zero point
// is 8. Decoded exactly as ONNX Runtime defines it:
//   W(n, k) = f32((u(n, k) - zp(n, k / bs)) * scale(n, k / bs))
// The kernel-feed form keeps every plane's bytes and only reorders them into panels of
// kNBitsRows (16) output rows (nbits_pack.h), so packing is lossless and a compiled entry of
// each plane is a plain blocked layout of its source initializer:
//   codes     panel p, block b, row r: the bs/2 bytes at codes + ((p * kb + b) * 16 + r) * bs/2
//   scales    f32 at scales[(p * kb + b) * 16 + r]
//   zp (u4)   u4 pairs as stored (row n holds ceil(kb / 2) bytes, block b in the low nibble of
//             byte b / 2 when b is even, the high nibble when odd):
//             byte zp_u4[(p * ceil(kb / 2) + b / 2) * 16 + r]
//   zp (f32)  f32 at zp_f32[(p * kb + b) * 16 + r]   (zero points stored as floats)
// Rows past N in the last panel hold zero bytes (scale 0: they decode to 0 or -0).
//
// Contract of every `gemm_nbits4_f32_<MR>x16_<isa>` microkernel (XNNPACK style: pointers and
// strides in, no allocation, no threads):
//   x  mr <= MR activation rows in *pair order*: row i holds kb * bs floats at x + i * ldx;
//      within each aligned chunk of 32 logical elements, the 16 even elements come first, then
//      the 16 odd ones (the driver reorders and zero-pads; a code's low nibble meets the even
//      half, its high nibble the odd half).
//   w  one panel (NBitsPanel pointers already offset to panel p); nc <= 16 rows are written.
//   y  y(i, r) at y[i * ldy + r] = bias[r] + sum_k x(i, k) * W(r, k) (bias may be null).
// bs is a multiple of 32. Every kernel decodes W exactly as above (one f32 rounding of the
// exact (u - zp) * scale for integer zero points) and differs from the reference twin only in
// the order of the f32 sums, so every row satisfies, with K' = kb * bs,
//   |y - y_ref| <= 2 * (K' + 16) * 2^-24 * sum_k |x(i, k) * W(r, k)|,
// checked by the tests. Denormals follow the caller's MXCSR (the driver flushes them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/q4/q4_ukernel.h"  // Q4Q8Block: int8 activation blocks

namespace vt::kernels {

// Output rows per panel of every MatMulNBits form and kernel.
constexpr size_t kNBitsRows = 16;
// Largest number of activation rows one microkernel call takes.
constexpr size_t kNBitsMaxMr = 8;

enum class NBitsZeroPoints : uint8_t {
  kNone,  // every zero point is 8
  kU4,    // packed u4 pairs (MatMulNBits uint8 zero_points)
  kF32,   // one float per block (MatMulNBits zero_points of the scales' type)
};

// Pointers to one panel (or, for the driver, to panel 0) of the three planes.
struct NBitsPanel {
  const uint8_t* codes = nullptr;
  const float* scales = nullptr;
  NBitsZeroPoints zp_kind = NBitsZeroPoints::kNone;
  const uint8_t* zp_u4 = nullptr;  // kU4
  const float* zp_f32 = nullptr;   // kF32
};

using NBitsGemmUkernelFn = void (*)(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                                    size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                                    size_t ldy);

// Zero point of row r, block b of a panel, as the kernels read it.
inline float NBitsZeroPoint(const NBitsPanel& w, size_t b, size_t r) {
  switch (w.zp_kind) {
    case NBitsZeroPoints::kNone: return 8.0f;
    case NBitsZeroPoints::kU4: {
      const uint8_t byte = w.zp_u4[(b / 2) * kNBitsRows + r];
      return static_cast<float>((b & 1) != 0 ? byte >> 4 : byte & 15);
    }
    case NBitsZeroPoints::kF32: return w.zp_f32[b * kNBitsRows + r];
  }
  return 8.0f;
}

// Scalar reference twin: decodes each weight with the formula above and accumulates
// sum_k x*W in f32 in increasing k order (x in pair order, so the logical k order of the
// decoded elements is followed), then adds the bias.
void NBitsGemmReference(size_t mr, size_t nc, size_t kb, size_t bs, const float* x, size_t ldx,
                        const NBitsPanel& w, const float* bias, float* y, size_t ldy);

// Portable row (plain C++): the twin's arithmetic, any MR.
void gemm_nbits4_f32_8x16_scalar(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                                 size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                                 size_t ldy);
// AVX2 + FMA (nbits_gemm_avx2.cc): nibbles widened to 8-lane dwords and decoded arithmetically
// ((u - zp) * scale), FMA into 8-lane accumulators.
void gemm_nbits4_f32_8x16_avx2(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                               size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                               size_t ldy);
// AVX-512F/BW/VL/DQ (nbits_gemm_avx512.cc): 16 codes widened to dwords, looked up in a
// per-(row, block) 16-entry table (u - zp) * scale with vpermps, FMA into 16-lane
// accumulators, reduced once at the end.
void gemm_nbits4_f32_8x16_avx512(size_t mr, size_t nc, size_t kb, size_t bs, const float* x,
                                 size_t ldx, const NBitsPanel& w, const float* bias, float* y,
                                 size_t ldy);

// ---- int8-activation (q8) rows: MatMulNBits accuracy_level 4 ----
//
// ONNX Runtime's accuracy_level 4 lets a runtime quantize the activations to int8, one scale per
// weight block (as ONNX Runtime does). The q8 rows take X in pair order, quantized by
// NBitsQuantizeXQ8 into one Q4Q8Block (q4_ukernel.h) per 32-element chunk: for each block of bs
// elements of a row, d = amax / 127 over the block (f32 division), q = nearbyint(x * r) with
// r = 127 / amax (f32 division and product, round half to even; 0 when amax == 0: ONNX
// Runtime's rounding), and every chunk of the block carries that d
// and neg8sum[0] = -8 * sum of its q (so sum q = -neg8sum[0] / 8). Activation row i holds
// kb * bs / 32 blocks at xq + i * ldxq. For row r, block b and chunk c of the block (codes u,
// zero point zp, scale s of (r, b)):
//   int_c = sum_k q_k * u_k - zp * sum_k q_k      (exact; with float zero points the
//                                                   difference is taken in f32)
//   term  = f32(int_c * f32(s * d_b)),   acc = f32(acc + term)   in increasing (b, c) order,
//   y(i, r) = f32(acc + bias[r])
// i.e. the exact product of the decoded weights (u - zp) * s with the dequantized activations
// d * q (|x - d q| <= 0.5001 d), up to f32 rounding. The q8 rows are bit-identical to
// NBitsQ8GemmReference.
using NBitsGemmQ8UkernelFn = void (*)(size_t mr, size_t nc, size_t kb, size_t bs,
                                      const Q4Q8Block* xq, size_t ldxq, const NBitsPanel& w,
                                      const float* bias, float* y, size_t ldy);

// The activation quantizer of every q8 row (the definition above; plain C++, deterministic):
// rows of k floats (k a multiple of bs, bs a multiple of 32) at x + i * ldx, already in pair
// order, into k / 32 blocks per row at xq + i * (k / 32). Run under FTZ|DAZ by the driver.
void NBitsQuantizeXQ8(size_t m, size_t k, size_t bs, const float* x, size_t ldx, Q4Q8Block* xq);

// The driver's quantizer of the q8 rows: m rows of K logical-order floats at x + i * ldx,
// zero-padded to kb * bs columns, reordered into pair order and quantized exactly as
// NBitsQuantizeXQ8 defines (the same blocks, bit for bit), into kb * bs / 32 blocks per row at
// xq + i * ldxq. Run under FTZ|DAZ by the driver. Finite activations (as NBitsQuantizeXQ8).
using NBitsQuantizeQ8Fn = void (*)(size_t m, size_t K, size_t kb, size_t bs, const float* x,
                                   size_t ldx, Q4Q8Block* xq, size_t ldxq);
// Portable: each row reordered and padded into a buffer, then NBitsQuantizeXQ8.
void nbits_quantize_q8_scalar(size_t m, size_t K, size_t kb, size_t bs, const float* x,
                              size_t ldx, Q4Q8Block* xq, size_t ldxq);
// AVX-512F/BW/VL/DQ (nbits_quantize_avx512.cc): the same arithmetic on 16 lanes (roundscale
// to nearest even, the reorder by two-source permutes), no buffer.
void nbits_quantize_q8_avx512(size_t m, size_t K, size_t kb, size_t bs, const float* x,
                              size_t ldx, Q4Q8Block* xq, size_t ldxq);

// Scalar reference twin of the q8 rows.
void NBitsQ8GemmReference(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                          size_t ldxq, const NBitsPanel& w, const float* bias, float* y,
                          size_t ldy);

// AVX-512F/BW/VL/DQ + VNNI (nbits_gemm_avx512vnni.cc): the 16 code bytes of a row's chunk sit
// in one 128-bit lane (4 rows per zmm), split into low (even elements) and high (odd) nibbles
// and multiplied with vpdpbusd against the broadcast even / odd halves of the int8 activations;
// the 16 rows' exact dots of a chunk are reduced into one zmm.
void gemm_nbits4_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, size_t bs,
                                    const Q4Q8Block* xq, size_t ldxq, const NBitsPanel& w,
                                    const float* bias, float* y, size_t ldy);

// AVX2 + FMA (nbits_gemm_q8_avx2.cc): vpmaddubsw / vpmaddwd exact dots of 8 rows at a time,
// reduced with vphaddd; for CPUs without AVX-512 VNNI.
void gemm_nbits4_q8_8x16_avx2(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                              size_t ldxq, const NBitsPanel& w, const float* bias, float* y,
                              size_t ldy);

// ---- q8 tile rows: M > 1 (prefill) over a panel's codes unpacked once per call ----
//
// The rows above split each chunk's code bytes into nibbles again for every MR rows and reduce
// every dot across lanes per activation row. For M > 1 the driver instead unpacks a panel's
// codes once into u8 "k-quads" (one code per byte, 4 consecutive pair-order activations of one
// row in one dword, the 16 rows of the panel in the 16 dwords of a 64-byte line), then every
// activation row runs against that buffer with no nibble split and no lane reduction. For
// block b, chunk c, quad t (0..7), row r, byte j (0..3) the code of pair-order activation
// p = 4 t + j (p < 16: low nibble of code byte p, the even element 2 p; p >= 16: high nibble
// of code byte p - 16, the odd element) sits in dword d(r) = 4 (r % 4) + r / 4 (the order a
// 4 x 4 dword transpose inside each 128-bit lane leaves the rows in; it is its own inverse):
//   u[((b * bs / 32 + c) * 8 + t) * 64 + d(r) * 4 + j]       (NBitsUnpackedBytes(kb, bs) bytes)
// A tile microkernel computes exactly the q8 arithmetic above (the same int_c, term and
// accumulation order), so every tile row is bit-identical to NBitsQ8GemmReference.
constexpr size_t NBitsUnpackedBytes(size_t kb, size_t bs) { return kb * bs * kNBitsRows; }

// Unpacks one panel's codes (kb blocks of bs / 2 bytes per row, the panel layout above) into u
// (64-byte aligned, NBitsUnpackedBytes(kb, bs) bytes).
using NBitsUnpackQ8Fn = void (*)(size_t kb, size_t bs, const uint8_t* codes, uint8_t* u);
// Tile microkernel: mr <= kNBitsMaxMr activation rows (as the q8 rows take them) against one
// unpacked panel `u`; scales and zero points come from `w` (codes unused); nc <= 16 rows of y.
using NBitsGemmQ8TileFn = void (*)(size_t mr, size_t nc, size_t kb, size_t bs,
                                   const Q4Q8Block* xq, size_t ldxq, const uint8_t* u,
                                   const NBitsPanel& w, const float* bias, float* y, size_t ldy);

// Portable unpack and tile (nbits_tile_scalar.cc): the layout and arithmetic above in plain
// C++, the twins of the AVX-512 pair.
void nbits4_unpack_q8_scalar(size_t kb, size_t bs, const uint8_t* codes, uint8_t* u);
void gemm_nbits4u_q8_8x16_scalar(size_t mr, size_t nc, size_t kb, size_t bs, const Q4Q8Block* xq,
                                 size_t ldxq, const uint8_t* u, const NBitsPanel& w,
                                 const float* bias, float* y, size_t ldy);
// AVX-512F/BW/VL/DQ + VNNI (nbits_tile_avx512vnni.cc): the unpack transposes each chunk's
// code dwords inside 128-bit lanes and splits the nibbles; the tile runs 8 vpdpbusd per row and
// chunk (one broadcast activation quad against 16 rows each), no lane reduction.
void nbits4_unpack_q8_avx512vnni(size_t kb, size_t bs, const uint8_t* codes, uint8_t* u);
void gemm_nbits4u_q8_8x16_avx512vnni(size_t mr, size_t nc, size_t kb, size_t bs,
                                     const Q4Q8Block* xq, size_t ldxq, const uint8_t* u,
                                     const NBitsPanel& w, const float* bias, float* y,
                                     size_t ldy);

}  // namespace vt::kernels
