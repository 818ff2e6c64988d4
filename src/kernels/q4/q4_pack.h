// Quantizing f32 weights to q4_0 / q4_k and packing them into kernel-feed panels
// (docs/design.md §2; encodings in include/vtensor/layout/encoding.h).
//
// Packed form: the bytes of vt::BlockQuantizedWeight(N, K, enc, BlockOrder::kInputBlockMajor,
// rows): N padded up to a multiple of `rows`, K up to whole blocks (32 for q4_0, 256 for q4_k)
// with zero values; for each panel of `rows` output rows, for each input block kb, the `rows`
// blocks (n, kb) back to back. Padded rows hold encoded zeros (decoding to 0), as
// vt::PackFloats writes them. The functions are deterministic: plain scalar code whose result
// depends on neither the ISA nor the thread count.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// How the scale of a q4_0 block is chosen.
enum class Q4ScaleSearch {
  // d = m / -8 where m is the signed value of largest magnitude: exactly the encoding's own
  // quantizer (GetEncodingTraits(kQ4_0).from_float), so the bytes equal vt::PackFloats'.
  kAmax,
  // The candidate scale (each rounded to f16 first) with the least sum of squared errors of
  // the dequantized block: m / -8 and m / 7, each times 1 + i/32 for i in [-8, 8], then the
  // least-squares refit of the best candidate's levels. Ties keep the earlier candidate, and
  // the kAmax scale is the first candidate, so the error is never above kAmax's. ~36x the
  // work of kAmax.
  kMinError,
};

// Bytes of a packed weight: ceil(N / rows) * rows * ceil(K / E) * B, with (E, B) = (32, 18)
// for q4_0 and (256, 144) for q4_k. rows >= 1.
size_t Q4_0PackedBytes(size_t n, size_t k, size_t rows);
size_t Q4_KPackedBytes(size_t n, size_t k, size_t rows);

// Quantizes one q4_0 block of 32 values into 18 bytes (vt::BlockQ4_0). Non-finite inputs
// give an unspecified (but deterministic, finite-scale) block.
void QuantizeQ4_0Block(const float* x, Q4ScaleSearch search, uint8_t* dst);

// Sum of squared errors of one q4_0 block against its source (the search's objective).
double Q4_0BlockSquaredError(const float* x, const uint8_t* block);

// q4_0 packers named after the source layout:
//   Nk: W(n, k) = w[n * ldw + k]   (ONNX Gemm transB=1, MatMulNBits, GGUF)
//   Kn: W(n, k) = w[k * ldw + n]   (ONNX MatMul right operand B[K, N])
// `dst` receives Q4_0PackedBytes(n, k, rows) bytes. threads > 1 splits panels over OpenMP
// threads; the bytes are the same for every thread count.
// Preconditions (programming errors, asserted): rows >= 1, ldw >= k (Nk) or >= n (Kn).
void PackF32NkToQ4_0Panels(size_t n, size_t k, const float* w, size_t ldw, size_t rows,
                           Q4ScaleSearch search, uint8_t* dst, int threads = 1);
void PackF32KnToQ4_0Panels(size_t k, size_t n, const float* w, size_t ldw, size_t rows,
                           Q4ScaleSearch search, uint8_t* dst, int threads = 1);

// q4_k packers: each super-block is quantized by the encoding's own quantizer
// (GetEncodingTraits(kQ4_K).from_float: min/max per 32-sub-block, 6-bit scales and mins
// against f16 super-scales), so the bytes equal vt::PackFloats'. Same conventions as above.
void PackF32NkToQ4_KPanels(size_t n, size_t k, const float* w, size_t ldw, size_t rows,
                           uint8_t* dst, int threads = 1);
void PackF32KnToQ4_KPanels(size_t k, size_t n, const float* w, size_t ldw, size_t rows,
                           uint8_t* dst, int threads = 1);

}  // namespace vt::kernels
