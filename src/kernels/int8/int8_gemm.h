// Blocked int8 GEMM driver (quantized MatMul / MatMulInteger / Gemm, ONNX opset 10+ integer
// semantics): C[M, N] = sum_k (A[m, k] - a_zero_point) * W[k, n], exact in int32, with u8 or s8
// activations A and prepacked s8 weights W (zero point 0, int8_gemm_pack.h). Optionally
// dequantized in the same pass: Y = C * scale_a * scale_n[n] + bias_n[n] as f32.
//
// The driver packs A into MR-row VNNI panels (s8 shifted to u8 on the way), cuts the problem
// into cache blocks (N by NC, K by KC) and calls one table microkernel (int8_gemm_table.h) per
// MR x NR tile; the s8 shift and the zero point are undone exactly by the column-sum
// compensation stored with the weight panels. With threads > 1 the tiles are split over OpenMP
// threads; results do not depend on the thread count.
//
// Exactness: the int32 sums are exact while K * 255 * 128 (K * 256 * 128 for s8, plus the
// compensation) stays below 2^31, i.e. K <= 65536.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/int8/int8_gemm_pack.h"
#include "kernels/int8/int8_gemm_table.h"

namespace vt::kernels {

// Left operand (activations), logical shape [M, K], row-major with row stride `ld` elements.
struct Int8GemmA {
  enum class Kind { kU8Mk, kS8Mk };
  Kind kind = Kind::kU8Mk;
  const void* data = nullptr;  // uint8_t (kU8Mk) or int8_t (kS8Mk)
  size_t ld = 0;
  int32_t zero_point = 0;  // in the activation's own type: [0, 255] for u8, [-128, 127] for s8
};

// f32 output of a dequantizing GEMM (per-tensor activation scale, per-column weight scale).
struct Int8GemmDequantize {
  float scale_a = 1.0f;
  const float* scale_n = nullptr;  // [N], required
  const float* bias_n = nullptr;   // [N], or null
};

// int32 output: c[m * ldc + n] = sum_k (A(m, k) - zero_point) * W(k, n).
// M, N or K may be 0. Preconditions (programming errors, asserted): w.nr == kernel.nr,
// w.k == K, w.n >= N.
void Int8Gemm(const Int8GemmKernel& kernel, size_t M, size_t N, size_t K, const Int8GemmA& a,
              const Int8Panels& w, int32_t* c, size_t ldc, int threads = 1);

// f32 output: y[m * ldy + n] = float(C(m, n)) * (scale_a * scale_n[n]) + bias_n[n].
void Int8Gemm(const Int8GemmKernel& kernel, size_t M, size_t N, size_t K, const Int8GemmA& a,
              const Int8Panels& w, float* y, size_t ldy, const Int8GemmDequantize& dq,
              int threads = 1);

}  // namespace vt::kernels
