// Rotary position embedding microkernels in the rotate_half form (the Llama / GPT-NeoX layout),
// behind ai.vtensor RotaryEmbedding (ops/fused/rotary_embedding.cc, docs/transformer-fusion.md).
// With h = n / 2 (n even), per row:
//   y[d] = x[d] * cos[d] - x[d + h] * sin[d]          for d < h
//   y[d] = x[d] * cos[d] + x[d - h] * sin[d]          for d >= h
// i.e. y = x * cos + concat(-x[h:], x[:h]) * sin. Rows are contiguous (element stride 1), row
// r of an operand at base + r * stride (floats); cos / sin rows hold n values (cs_stride 0
// repeats one row). y may alias x (both halves of a lane group are read before either is
// written). Pointers only: no allocation, no threads; the operator splits the rows.
//
// Numerics: each output is two f32 products and one add; the vector rows fuse one product into
// the add (FMA), so they differ from the twin by at most one rounding of a product (the tests
// bound the difference against the definition in double).
#pragma once

#include <cstddef>

namespace vt::kernels {

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

using RotaryRowsFn = void (*)(const RotaryRowsCall&);

// Scalar reference twin: the definition in plain f32 loops.
void RotaryRowsReference(const RotaryRowsCall& c);

// AVX-512F (16 lanes) and AVX2 + FMA (8 lanes) rows of rotary_simd_inl.h, masked tails.
void rotary_f32_f32_1x16_avx512(const RotaryRowsCall& c);
void rotary_f32_f32_1x8_avx2(const RotaryRowsCall& c);

}  // namespace vt::kernels
