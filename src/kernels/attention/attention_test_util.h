// Test support for the attention kernels: a whole attention problem (batch x query heads x KV
// heads, GQA sharing, BSNH activations, a BNSH KV cache with spare capacity, masks), run
// through a row the way an operator would (one call per batch x KV head x query block), and
// the materialised definition evaluated in double with an error bound for f32 results.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "kernels/attention/attention_ukernel.h"
#include "vtensor/layout/dtype.h"

namespace vt::kernels::attention_test {

struct Problem {
  size_t batch = 1, q_heads = 1, kv_heads = 1, rows = 1, keys = 1, head_size = 8,
         v_head_size = 8;
  size_t capacity = 0;  // KV cache rows per head (>= keys; 0: keys + 3)
  AttentionKv kv_type = AttentionKv::kF32;
  int64_t past = 0;     // position of query row 0 (same for every batch entry)
  bool causal = false;
  int64_t window_left = -1, window_right = -1;
  std::vector<size_t> kv_begin, kv_end;  // per batch entry (empty: 0 and keys)
  float scale = 0.0f;                    // 0: 1 / sqrt(head_size)
  float softcap = 0.0f;
  // Additive bias [batch or 1, q_heads or 1, rows or 1, keys or 1] (broadcast dims of size 1).
  bool bias = false, bias_batch = true, bias_heads = true, bias_rows = true, bias_keys = true;
  double bias_neg_inf = 0.0;  // fraction of bias entries set to -inf (a boolean mask)
  bool bias_row_all_neg_inf = false;  // one whole bias row -inf (a fully masked row)
  // Key padding mask [batch, keys] as the `mask` term: entries key_mask_value (e.g. -inf or
  // MultiHeadAttention's mask_filter_value -10000) with probability key_mask_fraction, else 0.
  bool key_mask = false;
  float key_mask_value = -10000.0f;
  double key_mask_fraction = 0.3;
  bool sink = false;
  size_t query_block = 16;  // query rows per kernel call
  float amplitude = 1.0f;   // spread of q (scores)
  uint32_t seed = 1;
};

// Filled tensors of a Problem. Q, out: [batch, rows, q_heads, *] with padded row strides;
// K, V: [batch, kv_heads, capacity, *] with padded row strides (f32 or f16 bits).
struct Tensors {
  Problem p;
  size_t q_row, k_row, v_row, o_row;  // element strides of one (token, head) row
  std::vector<float> q, bias, key_mask, sink;
  std::vector<float> kf, vf;        // K / V values as the kernel sees them
  std::vector<uint16_t> kh, vh;     // f16 bits when kv_type == kF16
  std::vector<size_t> begin, end;
  size_t bias_dims[4];
  float scale;

  const float* QAt(size_t b, size_t i, size_t h) const {
    return q.data() + ((b * p.rows + i) * p.q_heads + h) * q_row;
  }
  size_t KvIndex(size_t b, size_t kvh, size_t j, size_t row) const {
    return ((b * p.kv_heads + kvh) * p.capacity + j) * row;
  }
  size_t OutIndex(size_t b, size_t i, size_t h) const {
    return ((b * p.rows + i) * p.q_heads + h) * o_row;
  }
  ptrdiff_t BiasStride(int dim) const {  // 0 along broadcast dims
    ptrdiff_t s = 1;
    for (int d = 3; d > dim; --d) s *= static_cast<ptrdiff_t>(bias_dims[d]);
    return bias_dims[dim] == 1 ? 0 : s;
  }
  float BiasAt(size_t b, size_t h, size_t i, size_t j) const {
    return bias[static_cast<size_t>(BiasStride(0) * b + BiasStride(1) * h + BiasStride(2) * i +
                                    BiasStride(3) * j)];
  }
};

inline Tensors MakeTensors(Problem p) {
  if (p.capacity == 0) p.capacity = p.keys + 3;
  Tensors t;
  std::mt19937 g(p.seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  t.q_row = p.head_size + 3, t.k_row = p.head_size + 5, t.v_row = p.v_head_size + 1;
  t.o_row = p.v_head_size + 2;
  t.q.resize(p.batch * p.rows * p.q_heads * t.q_row);
  for (auto& x : t.q) x = p.amplitude * u(g);
  const size_t kn = p.batch * p.kv_heads * p.capacity;
  t.kf.resize(kn * t.k_row), t.vf.resize(kn * t.v_row);
  for (auto& x : t.kf) x = u(g);
  for (auto& x : t.vf) x = u(g);
  if (p.kv_type == AttentionKv::kF16) {
    t.kh.resize(t.kf.size()), t.vh.resize(t.vf.size());
    for (size_t i = 0; i < t.kf.size(); ++i) t.kf[i] = HalfToFloat(t.kh[i] = FloatToHalf(t.kf[i]));
    for (size_t i = 0; i < t.vf.size(); ++i) t.vf[i] = HalfToFloat(t.vh[i] = FloatToHalf(t.vf[i]));
  }
  t.begin = p.kv_begin.empty() ? std::vector<size_t>(p.batch, 0) : p.kv_begin;
  t.end = p.kv_end.empty() ? std::vector<size_t>(p.batch, p.keys) : p.kv_end;
  const size_t dims[4] = {p.bias_batch ? p.batch : 1, p.bias_heads ? p.q_heads : 1,
                          p.bias_rows ? p.rows : 1, p.bias_keys ? p.keys : 1};
  std::copy(dims, dims + 4, t.bias_dims);
  if (p.bias) {
    t.bias.resize(dims[0] * dims[1] * dims[2] * dims[3]);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (auto& x : t.bias)
      x = coin(g) < p.bias_neg_inf ? -std::numeric_limits<float>::infinity() : 2.0f * u(g);
    if (p.bias_row_all_neg_inf)
      for (size_t j = 0; j < dims[3]; ++j) t.bias[j] = -std::numeric_limits<float>::infinity();
  }
  if (p.key_mask) {
    t.key_mask.resize(p.batch * p.keys);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (auto& x : t.key_mask) x = coin(g) < p.key_mask_fraction ? p.key_mask_value : 0.0f;
  }
  if (p.sink) {
    t.sink.resize(p.q_heads);
    for (auto& x : t.sink) x = 2.0f * u(g);
  }
  t.scale = p.scale != 0.0f ? p.scale : 1.0f / std::sqrt(static_cast<float>(p.head_size));
  t.p = p;
  return t;
}

// Runs `fn` over the problem as an operator would: for each batch entry, KV head and block of
// query rows, one call whose heads are the KV head's query heads (pointers shared, not copied).
// `fn` also gets the call's batch entry, first query head and first query row.
using CallFn = std::function<void(const AttentionCall&, float* scratch, size_t b, size_t h0,
                                  size_t i0)>;

inline std::vector<float> RunProblem(const Tensors& t, const CallFn& fn) {
  const Problem& p = t.p;
  const size_t group = p.q_heads / p.kv_heads;
  std::vector<float> out(p.batch * p.rows * p.q_heads * t.o_row, 12345.0f);
  std::vector<float> scratch(std::max(AttentionScratchFloats(group * p.query_block, p.head_size),
                                      AttentionMaterializedScratchFloats(p.keys)));
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t kvh = 0; kvh < p.kv_heads; ++kvh)
      for (size_t i0 = 0; i0 < p.rows; i0 += p.query_block) {
        const size_t h0 = kvh * group;
        AttentionCall c;
        c.heads = group, c.rows = std::min(p.query_block, p.rows - i0);
        c.head_size = p.head_size, c.v_head_size = p.v_head_size;
        c.q = t.QAt(b, i0, h0), c.q_head_stride = t.q_row;
        c.q_row_stride = p.q_heads * t.q_row;
        c.kv_type = p.kv_type;
        if (p.kv_type == AttentionKv::kF16)
          c.k = t.kh.data() + t.KvIndex(b, kvh, 0, t.k_row), c.v = t.vh.data() + t.KvIndex(b, kvh, 0, t.v_row);
        else
          c.k = t.kf.data() + t.KvIndex(b, kvh, 0, t.k_row), c.v = t.vf.data() + t.KvIndex(b, kvh, 0, t.v_row);
        c.k_row_stride = t.k_row, c.v_row_stride = t.v_row;
        c.out = out.data() + t.OutIndex(b, i0, h0), c.out_head_stride = t.o_row;
        c.out_row_stride = p.q_heads * t.o_row;
        c.kv_begin = t.begin[b], c.kv_end = t.end[b];
        c.q_pos = p.past + static_cast<int64_t>(i0);
        c.causal = p.causal, c.window_left = p.window_left, c.window_right = p.window_right;
        c.scale = t.scale, c.softcap = p.softcap;
        if (p.bias) {
          c.bias.data = t.bias.data() + t.BiasStride(0) * b + t.BiasStride(1) * h0 + t.BiasStride(2) * i0;
          c.bias.head_stride = t.BiasStride(1), c.bias.row_stride = t.BiasStride(2);
          c.bias.key_stride = t.BiasStride(3);
        }
        if (p.key_mask) c.mask.data = t.key_mask.data() + b * p.keys, c.mask.key_stride = 1;
        if (p.sink) c.sink = t.sink.data() + h0;
        fn(c, scratch.data(), b, h0, i0);
      }
  return out;
}

inline std::vector<float> RunProblem(const Tensors& t, AttentionUkernelFn fn) {
  return RunProblem(t, [fn](const AttentionCall& c, float* s, size_t, size_t, size_t) {
    fn(c, s);
  });
}

// The definition (attention_ukernel.h) in double, and for each output element a bound on the
// error of an f32 evaluation: score errors of (D + 4) roundings of sum |q k| (plus the softcap's
// few ulp of softcap), exp and block corrections of a few ulp each, and the P V sum's
// rounding, all relative to sum_j p_j |v_j|.
struct Exact {
  std::vector<double> out, bound;
};

inline bool Visible(const Tensors& t, size_t b, size_t i, size_t j) {
  const Problem& p = t.p;
  const int64_t pos = p.past + static_cast<int64_t>(i), jj = static_cast<int64_t>(j);
  if (j < t.begin[b] || j >= t.end[b]) return false;
  if (p.causal && jj > pos) return false;
  if (p.window_left >= 0 && jj < pos - p.window_left) return false;
  if (p.window_right >= 0 && jj > pos + p.window_right) return false;
  return true;
}

inline Exact ExactProblem(const Tensors& t) {
  const Problem& p = t.p;
  const double u = std::ldexp(1.0, -24);
  const size_t group = p.q_heads / p.kv_heads;
  Exact ex;
  ex.out.assign(p.batch * p.rows * p.q_heads * t.o_row, 0.0);
  ex.bound.assign(ex.out.size(), 0.0);
  std::vector<double> s(p.keys);
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t h = 0; h < p.q_heads; ++h)
      for (size_t i = 0; i < p.rows; ++i) {
        const size_t kvh = h / group;
        const float* q = t.QAt(b, i, h);
        double m = -INFINITY, delta = 0.0;
        for (size_t j = 0; j < p.keys; ++j) {
          s[j] = -INFINITY;
          if (!Visible(t, b, i, j)) continue;
          double dot = 0.0, mag = 0.0;
          for (size_t d = 0; d < p.head_size; ++d) {
            const double x = double(q[d]) * t.kf[t.KvIndex(b, kvh, j, t.k_row) + d];
            dot += x, mag += std::fabs(x);
          }
          double v = dot * t.scale;
          if (p.softcap > 0.0f) v = p.softcap * std::tanh(v / p.softcap);
          if (p.bias) v += t.BiasAt(b, h, i, j);
          if (p.key_mask) v += t.key_mask[b * p.keys + j];
          s[j] = v;
          m = std::max(m, v);
          if (std::isfinite(v))
            delta = std::max(delta, (p.head_size + 4) * u * t.scale * mag +
                                        (p.softcap > 0.0f ? 16 * u * p.softcap : 0.0) +
                                        4 * u * std::fabs(v));
        }
        const size_t o = t.OutIndex(b, i, h);
        if (m == -INFINITY) continue;  // no visible finite score: 0
        const double sk = p.sink ? double(t.sink[h]) : -INFINITY;
        const double mm = std::max(m, sk);
        double den = std::exp(sk - mm), mag = 0.0;
        for (size_t j = 0; j < p.keys; ++j) den += std::exp(s[j] - mm);
        for (size_t j = 0; j < p.keys; ++j) {
          const double w = std::exp(s[j] - mm) / den;
          for (size_t e = 0; e < p.v_head_size; ++e)
            ex.out[o + e] += w * t.vf[t.KvIndex(b, kvh, j, t.v_row) + e];
        }
        for (size_t e = 0; e < p.v_head_size; ++e) {
          mag = 0.0;
          for (size_t j = 0; j < p.keys; ++j)
            mag += std::exp(s[j] - mm) / den * std::fabs(t.vf[t.KvIndex(b, kvh, j, t.v_row) + e]);
          const double blocks = double(p.keys) / 16 + 2;
          const double eps = 4 * delta + (24 + 8 * blocks) * u;
          ex.bound[o + e] = (eps + (p.keys + 8) * u) * (mag + u * std::fabs(ex.out[o + e])) + 1e-30;
        }
      }
  return ex;
}

}  // namespace vt::kernels::attention_test
