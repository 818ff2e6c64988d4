// Row-wise kernels of transformer blocks (docs/transformer-fusion.md): layer and RMS
// normalisation with an optional residual added first, bias + activation (GELU in its erf and
// tanh forms, SiLU, Relu) with an optional multiplier (SwiGLU), and rotary position embedding.
// The fused operators of src/ops/fused and the f32 paths of LayerNormalization,
// RMSNormalization and Gelu call them.
//
// Like every vtensor microkernel they take pointers and strides (in floats), allocate nothing
// and start no threads: an operator splits the rows over its threads. All data is f32; rows are
// contiguous (element stride 1), row r of an operand at base + r * stride. Outputs may alias
// the inputs they replace element for element (y == x with equal strides), unless a call says
// otherwise.
//
// Numerics (checked by rowwise_test.cc against the reference twin and a double definition):
//   norm: mean and variance in f32 from the row summed in lanes (two passes: mean, then the
//         squared deviations), inv = 1 / sqrt(var + epsilon); a few ulp of the row's scale.
//   gelu_erf: 0.5 x (1 + erf(x / sqrt(2))) with 1 + erf(z) taken from erfc(|z|) (a Chebyshev
//         fit with relative error below 1.2e-7 times an exp within 2 ulp): relative error of a
//         few 1e-7 plus about 2 x^2 u (the roundings of x / sqrt(2) and of the exponent carried
//         into exp(-x^2 / 2), u = 2^-24), also in
//         the tail x << 0 where 1 + erf is tiny (computed as 1 + erf(z) it would be 0 there).
//   gelu_tanh: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed as
//         x sigmoid(2u) (the same function, exactly; no cancellation for u << 0).
//   silu: x sigmoid(x). The vector rows take sigmoid(a) from exp(-|a|), so far negative
//         arguments give exact (signed) zeros.
// Subnormals follow the caller's MXCSR (operators run the kernels under ScopedFlushDenormals).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// y = ((v - mean) * inv) * gamma + beta (LayerNorm) or (v * inv) * gamma (RMS: no mean, no
// beta), per row, with v = x + skip + bias (skip and bias optional) and mean / inv over the
// row's n elements of v; `sum` (optional) receives v. `y` may alias `x` or `skip`.
struct NormRowsCall {
  size_t rows = 0, n = 0;  // n >= 1
  const float* x = nullptr;
  ptrdiff_t x_stride = 0;
  const float* skip = nullptr;  // null: none
  ptrdiff_t skip_stride = 0;
  const float* bias = nullptr;  // [n], null: none
  float* sum = nullptr;         // null: not written
  ptrdiff_t sum_stride = 0;
  const float* gamma = nullptr;  // [n]
  const float* beta = nullptr;   // [n], null: none (always none for RMS)
  float* y = nullptr;
  ptrdiff_t y_stride = 0;
  float epsilon = 1e-5f;
  bool rms = false;
};

enum class RowAct : uint8_t { kNone, kRelu, kGeluErf, kGeluTanh, kSilu };

// y = act(x + bias) * mul per element (bias [n] and mul optional: SwiGLU is act = kSilu with
// x the gate and mul the up projection). `y` may alias `x` or `mul`.
struct ActRowsCall {
  size_t rows = 0, n = 0;
  const float* x = nullptr;
  ptrdiff_t x_stride = 0;
  const float* bias = nullptr;  // [n], null: none
  const float* mul = nullptr;   // null: none
  ptrdiff_t mul_stride = 0;
  float* y = nullptr;
  ptrdiff_t y_stride = 0;
  RowAct act = RowAct::kNone;
};

// Rotary position embedding in the rotate_half form: with h = n / 2 (n even),
//   y[d] = x[d] * cos[d] - x[d + h] * sin[d]          for d < h
//   y[d] = x[d] * cos[d] + x[d - h] * sin[d]          for d >= h
// i.e. y = x * cos + concat(-x[h:], x[:h]) * sin; cos / sin rows hold n values (row r at
// cos + r * cs_stride; stride 0 repeats one row). `y` may alias `x`.
struct RotaryRowsCall {
  size_t rows = 0, n = 0;  // n even, >= 2
  const float* x = nullptr;
  ptrdiff_t x_stride = 0;
  const float* cos = nullptr;
  const float* sin = nullptr;
  ptrdiff_t cs_stride = 0;
  float* y = nullptr;
  ptrdiff_t y_stride = 0;
};

using NormRowsFn = void (*)(const NormRowsCall&);
using ActRowsFn = void (*)(const ActRowsCall&);
using RotaryRowsFn = void (*)(const RotaryRowsCall&);

// Scalar reference twins: the same algorithms in plain loops, f32 arithmetic, sums in index
// order, std::erfc / std::exp / std::sqrt (1 + erf(z) as erfc(-z), no cancellation).
void NormRowsReference(const NormRowsCall& c);
void ActRowsReference(const ActRowsCall& c);
void RotaryRowsReference(const RotaryRowsCall& c);

// AVX-512 F/BW/VL/DQ (16 lanes) and AVX2 + FMA (8 lanes) rows, one algorithm
// (rowwise_simd_inl.h) compiled per ISA file.
void norm_rows_f32_f32_1x16_avx512(const NormRowsCall& c);
void act_rows_f32_f32_1x16_avx512(const ActRowsCall& c);
void rotary_rows_f32_f32_1x16_avx512(const RotaryRowsCall& c);
void norm_rows_f32_f32_1x8_avx2(const NormRowsCall& c);
void act_rows_f32_f32_1x8_avx2(const ActRowsCall& c);
void rotary_rows_f32_f32_1x8_avx2(const RotaryRowsCall& c);

}  // namespace vt::kernels
