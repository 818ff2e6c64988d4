// Row normalization microkernels: the residual add and layer (or RMS) normalization of one row,
// the computation behind ONNX Runtime's SkipLayerNormalization, SkipSimplifiedLayerNormalization
// and EmbedLayerNormalization and ONNX's LayerNormalization / RMSNormalization over the last
// axis (docs/contrib-ops.md).
//
// One call normalises one row of n elements (n >= 1):
//   s_i  = x_i + a_i + b_i                          a, b: optional addends (null: 0)
//   layer:  mean = sum(s) / n
//           var  = sum((s - mean)^2) / n            (a second pass, no cancellation)
//   rms:    mean = 0, var = sum(s^2) / n
//   inv  = 1 / sqrt(var + epsilon)
//   y_i  = (s_i - mean) * inv * gamma_i + beta_i    gamma null: 1, beta null: 0
//   sum_i = s_i                                     when `sum` is not null
// and reports mean and inv. y and sum are written (y is also the kernel's scratch for s), must
// not overlap a, b, gamma or beta, and may equal x. Like every vtensor microkernel it takes
// pointers only, allocates nothing and starts no threads; the operator parallelises over rows.
//
// The rows of the table differ only in summation order: every row is within a few units of
// f32 rounding (relative to |s| and sqrt(var)) of the reference twin, which the tests check
// against the definition in double.
#pragma once

#include <cstddef>

namespace vt::kernels {

struct LayerNormRow {
  size_t n = 0;
  const float* x = nullptr;
  const float* a = nullptr;      // skip / second embedding, or null
  const float* b = nullptr;      // bias / third embedding, or null
  const float* gamma = nullptr;  // scale, or null (1)
  const float* beta = nullptr;   // shift, or null (0)
  float* y = nullptr;
  float* sum = nullptr;  // s (x + a + b), or null
  float epsilon = 0.0f;
  bool rms = false;  // root mean square normalization (no mean subtracted)
};

using LayerNormUkernelFn = void (*)(const LayerNormRow& row, float* mean, float* inv_std);

// Scalar reference twin: the same passes in plain loops, sums accumulated in element order in
// T (float for the table's portable row; double for f64 tensors, whose operators call the
// double instance directly).
template <typename T>
struct LayerNormRowT {
  size_t n = 0;
  const T *x = nullptr, *a = nullptr, *b = nullptr, *gamma = nullptr, *beta = nullptr;
  T *y = nullptr, *sum = nullptr;
  double epsilon = 0.0;
  bool rms = false;
};
template <typename T>
void LayerNormReferenceT(const LayerNormRowT<T>& row, T* mean, T* inv_std);
void LayerNormReference(const LayerNormRow& row, float* mean, float* inv_std);

// AVX-512F (16 lanes) and AVX2 + FMA (8 lanes): the passes of layernorm_simd_inl.h with two
// vector accumulators per sum and masked row tails.
void layernorm_f32_f32_1x16_avx512(const LayerNormRow& row, float* mean, float* inv_std);
void layernorm_f32_f32_1x8_avx2(const LayerNormRow& row, float* mean, float* inv_std);

}  // namespace vt::kernels
