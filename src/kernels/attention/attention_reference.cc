// The scalar reference twin of the attention rows and the materialised-scores path
// (attention_ukernel.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/attention/attention_ukernel.h"
#include "vtensor/layout/dtype.h"

namespace vt::kernels {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

float KvAt(const void* base, AttentionKv type, ptrdiff_t idx) {
  if (type == AttentionKv::kF16) return HalfToFloat(static_cast<const uint16_t*>(base)[idx]);
  return static_cast<const float*>(base)[idx];
}

// s = scale * q.k_j (f32 sum in d order), then softcap.
float Score(const AttentionCall& c, const float* q, size_t j, bool capped) {
  float dot = 0.0f;
  const ptrdiff_t row = static_cast<ptrdiff_t>(j) * c.k_row_stride;
  for (size_t d = 0; d < c.head_size; ++d)
    dot += q[d] * KvAt(c.k, c.kv_type, row + static_cast<ptrdiff_t>(d));
  float s = dot * c.scale;
  if (capped && c.softcap > 0.0f) s = c.softcap * std::tanh(s / c.softcap);
  return s;
}

float TermAt(const AttentionBias& b, size_t g, size_t i, size_t j) {
  return b.data[static_cast<ptrdiff_t>(g) * b.head_stride + static_cast<ptrdiff_t>(i) * b.row_stride +
                static_cast<ptrdiff_t>(j) * b.key_stride];
}

// s + bias + mask, in that order.
float AddTerms(const AttentionCall& c, float s, size_t g, size_t i, size_t j) {
  if (c.bias.data != nullptr) s += TermAt(c.bias, g, i, j);
  if (c.mask.data != nullptr) s += TermAt(c.mask, g, i, j);
  return s;
}

// o += w * v_j over the output row.
void AddValue(const AttentionCall& c, size_t j, float w, float* o) {
  const ptrdiff_t row = static_cast<ptrdiff_t>(j) * c.v_row_stride;
  for (size_t e = 0; e < c.v_head_size; ++e)
    o[e] += w * KvAt(c.v, c.kv_type, row + static_cast<ptrdiff_t>(e));
}

// out = o * f / den, or zeros when the row saw no finite score (m == -inf).
void Finish(const AttentionCall& c, size_t g, float m, float l, float* o) {
  if (m == kNegInf) {
    std::fill(o, o + c.v_head_size, 0.0f);
    return;
  }
  float f = 1.0f;
  if (c.sink != nullptr) {
    const float m2 = std::max(m, c.sink[g]);
    f = std::exp(m - m2);
    l = l * f + std::exp(c.sink[g] - m2);
  }
  const float w = f / l;
  for (size_t e = 0; e < c.v_head_size; ++e) o[e] *= w;
}

float* OutRow(const AttentionCall& c, size_t g, size_t i) {
  return c.out + static_cast<ptrdiff_t>(g) * c.out_head_stride +
         static_cast<ptrdiff_t>(i) * c.out_row_stride;
}

const float* QRow(const AttentionCall& c, size_t g, size_t i) {
  return c.q + static_cast<ptrdiff_t>(g) * c.q_head_stride +
         static_cast<ptrdiff_t>(i) * c.q_row_stride;
}

}  // namespace

void AttentionVisibleKeys(const AttentionCall& c, size_t i, size_t* lo, size_t* hi) {
  const int64_t p = c.q_pos + static_cast<int64_t>(i);
  int64_t a = static_cast<int64_t>(c.kv_begin), b = static_cast<int64_t>(c.kv_end);
  if (c.causal) b = std::min(b, p + 1);
  if (c.window_right >= 0) b = std::min(b, p + c.window_right + 1);
  if (c.window_left >= 0) a = std::max(a, p - c.window_left);
  b = std::max(a, b);
  *lo = static_cast<size_t>(std::max<int64_t>(a, 0));
  *hi = static_cast<size_t>(std::max<int64_t>(b, 0));
}

void AttentionReference(const AttentionCall& c, float* scratch) {
  float* s = scratch;  // one block of scores
  for (size_t g = 0; g < c.heads; ++g)
    for (size_t i = 0; i < c.rows; ++i) {
      const float* q = QRow(c, g, i);
      float* o = OutRow(c, g, i);
      std::fill(o, o + c.v_head_size, 0.0f);
      size_t lo, hi;
      AttentionVisibleKeys(c, i, &lo, &hi);
      float m = kNegInf, l = 0.0f;
      for (size_t j0 = lo; j0 < hi; j0 += kAttentionReferenceBlock) {
        const size_t n = std::min(kAttentionReferenceBlock, hi - j0);
        float bm = kNegInf;
        for (size_t jj = 0; jj < n; ++jj) {
          s[jj] = AddTerms(c, Score(c, q, j0 + jj, true), g, i, j0 + jj);
          bm = std::max(bm, s[jj]);
        }
        const float mn = std::max(m, bm);
        if (mn == kNegInf) continue;  // every score so far is -inf
        const float corr = std::exp(m - mn);
        l *= corr;
        for (size_t e = 0; e < c.v_head_size; ++e) o[e] *= corr;
        for (size_t jj = 0; jj < n; ++jj) {
          const float p = std::exp(s[jj] - mn);
          l += p;
          AddValue(c, j0 + jj, p, o);
        }
        m = mn;
      }
      Finish(c, g, m, l, o);
    }
}

void AttentionMaterialized(const AttentionCall& c, const AttentionScoresOut& qk,
                           float* scratch) {
  const AttentionScoresStage stage = qk.stage;
  for (size_t g = 0; g < c.heads; ++g)
    for (size_t i = 0; i < c.rows; ++i) {
      const float* q = QRow(c, g, i);
      float* o = OutRow(c, g, i);
      float* qs = qk.scores + static_cast<ptrdiff_t>(g) * qk.head_stride +
                  static_cast<ptrdiff_t>(i) * qk.row_stride;
      size_t lo, hi;
      AttentionVisibleKeys(c, i, &lo, &hi);
      float* s = scratch;  // s[j] for kv_begin <= j < kv_end
      float m = kNegInf;
      for (size_t j = c.kv_begin; j < c.kv_end; ++j) {
        const float raw = Score(c, q, j, false);
        if (stage == AttentionScoresStage::kScaled) qs[j] = raw;
        float v = c.softcap > 0.0f ? c.softcap * std::tanh(raw / c.softcap) : raw;
        if (stage == AttentionScoresStage::kSoftcapped) qs[j] = v;
        v = j >= lo && j < hi ? AddTerms(c, v, g, i, j) : kNegInf;
        if (stage == AttentionScoresStage::kMasked) qs[j] = v;
        s[j] = v;
        m = std::max(m, v);
      }
      float l = 0.0f;
      if (m != kNegInf) {
        for (size_t j = lo; j < hi; ++j) l += s[j] = std::exp(s[j] - m);
        if (c.sink != nullptr) {
          const float m2 = std::max(m, c.sink[g]);
          const float f = std::exp(m - m2);
          l = l * f + std::exp(c.sink[g] - m2);
          for (size_t j = lo; j < hi; ++j) s[j] *= f;
        }
      }
      std::fill(o, o + c.v_head_size, 0.0f);
      for (size_t j = c.kv_begin; j < c.kv_end; ++j) {
        const float p = m != kNegInf && j >= lo && j < hi ? s[j] / l : 0.0f;
        if (stage == AttentionScoresStage::kProbabilities) qs[j] = p;
        if (p != 0.0f) AddValue(c, j, p, o);
      }
    }
}

}  // namespace vt::kernels
