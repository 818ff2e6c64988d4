// GELU-family activation microkernels: the element functions behind com.microsoft Gelu,
// BiasGelu, FastGelu, QuickGelu, BiasSplitGelu and GatedRMSNorm's SiLU gate and ONNX Gelu-20
// (docs/contrib-ops.md), each with the optional bias add and gate multiply those operators fuse.
//
// One call maps a row of n elements (n >= 0):
//   v_i = x_i + bias_i                               bias null: 0
//   y_i = f(v_i) * mul_i                             mul null: 1
// with f by kind:
//   kErf      v * Phi(v), Phi(v) = erfc(-v / sqrt(2)) / 2       (Gelu, approximate "none")
//   kTanh     v * sigmoid(2 u), u = sqrt(2 / pi) * (v + 0.044715 v^3)
//             (= 0.5 v (1 + tanh(u)), FastGelu and Gelu approximate "tanh")
//   kSigmoid  v * sigmoid(alpha * v)                              (QuickGelu; alpha 1: SiLU)
// Phi and sigmoid are evaluated without cancellation (an erfc or exp of -|v| for the small
// side), so the result keeps its relative accuracy far into the negative tail where
// 0.5 v (1 + erf(...)) would round to 0. y may equal x or mul (elementwise, read before
// written); it must not otherwise overlap the inputs. Pointers only: no allocation, no threads.
//
// Every row is within a few f32 ulps of the function (relative to |y|, plus an absolute
// 1e-37 where the result underflows); the tests check the bound against the definition in
// double on every row, the twin included.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

enum class GeluKind : uint8_t { kErf, kTanh, kSigmoid };

struct GeluRow {
  size_t n = 0;
  const float* x = nullptr;
  const float* bias = nullptr;  // [n], or null
  const float* mul = nullptr;   // [n], or null
  float* y = nullptr;
  GeluKind kind = GeluKind::kErf;
  float alpha = 1.0f;  // kSigmoid only
};

using GeluUkernelFn = void (*)(const GeluRow& row);

// Scalar reference twin: the definitions above with libm's erfc and exp in f32.
void GeluReference(const GeluRow& row);

// AVX-512F (16 lanes) and AVX2 + FMA (8 lanes): gelu_simd_inl.h's vector erfc and exp.
void gelu_f32_f32_1x16_avx512(const GeluRow& row);
void gelu_f32_f32_1x8_avx2(const GeluRow& row);

}  // namespace vt::kernels
