// Rotary position embedding of one head row, shared by the RotaryEmbedding operators and the
// attention operators' do_rotary (which rotate Q and K as they load them, never as a separate
// pass over a copy).
//
// For i < R/2 the pair (x1, x2) is (in[i], in[i + R/2]), or (in[2i], in[2i + 1]) when
// interleaved; out1 = x1 cos[i] - x2 sin[i], out2 = x1 sin[i] + x2 cos[i]. Elements at and past
// R = rotary_dim are copied. Arithmetic in f32 (f16 / bf16 widened), rounded once on store.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vtensor/layout/dtype.h"

namespace vt::ops {

inline float LoadF32(float v) { return v; }
inline float LoadF32(double v) { return static_cast<float>(v); }
inline float LoadF32(Float16 v) { return HalfToFloat(v.bits); }
inline float LoadF32(BFloat16 v) { return BFloat16ToFloat(v.bits); }

template <typename T>
inline T StoreF32(float v);
template <>
inline float StoreF32<float>(float v) { return v; }
template <>
inline double StoreF32<double>(float v) { return v; }
template <>
inline Float16 StoreF32<Float16>(float v) { return Float16{FloatToHalf(v)}; }
template <>
inline BFloat16 StoreF32<BFloat16>(float v) { return BFloat16{FloatToBFloat16(v)}; }

// in / out: head_size elements; cos / sin: rotary_dim / 2 elements of the position's cache
// row. in and out may be the same row.
template <typename In, typename Out, typename C>
void RotateRow(const In* in, Out* out, const C* cos, const C* sin, size_t rotary_dim,
               size_t head_size, bool interleaved) {
  const size_t half = rotary_dim / 2;
  if (interleaved) {
    for (size_t i = 0; i < half; ++i) {
      const float x1 = LoadF32(in[2 * i]), x2 = LoadF32(in[2 * i + 1]);
      const float c = LoadF32(cos[i]), s = LoadF32(sin[i]);
      out[2 * i] = StoreF32<Out>(x1 * c - x2 * s);
      out[2 * i + 1] = StoreF32<Out>(x1 * s + x2 * c);
    }
  } else {
    for (size_t i = 0; i < half; ++i) {
      const float x1 = LoadF32(in[i]), x2 = LoadF32(in[i + half]);
      const float c = LoadF32(cos[i]), s = LoadF32(sin[i]);
      out[i] = StoreF32<Out>(x1 * c - x2 * s);
      out[i + half] = StoreF32<Out>(x1 * s + x2 * c);
    }
  }
  for (size_t d = rotary_dim; d < head_size; ++d) out[d] = StoreF32<Out>(LoadF32(in[d]));
}

// Copies (and converts) a row of n elements.
template <typename In, typename Out>
void ConvertRow(const In* in, Out* out, size_t n) {
  for (size_t d = 0; d < n; ++d) out[d] = StoreF32<Out>(LoadF32(in[d]));
}
template <>
inline void ConvertRow<float, float>(const float* in, float* out, size_t n) {
  for (size_t d = 0; d < n; ++d) out[d] = in[d];
}

}  // namespace vt::ops
