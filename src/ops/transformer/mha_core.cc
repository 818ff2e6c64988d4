#include "ops/transformer/mha_core.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/common/f32_compute.h"
#include "ops/transformer/attention_common.h"
#include "ops/transformer/kv_cache.h"
#include "ops/transformer/rotary.h"

namespace vt::ops {
namespace {

// Element d of row (b, h, s) as f32, bias included.
template <typename T>
void ReadRow(const MhaRows& r, int64_t b, int64_t h, int64_t s, int64_t size, float* dst) {
  const T* src = static_cast<const T*>(r.data) + b * r.batch + h * r.head + s * r.row;
  const float* bias = r.bias != nullptr ? r.bias + h * size : nullptr;
  for (int64_t d = 0; d < size; ++d) dst[d] = LoadF32(src[d]) + (bias ? bias[d] : 0.0f);
}

void ReadRowAny(const MhaRows& r, int64_t b, int64_t h, int64_t s, int64_t size, float* dst) {
  switch (r.dtype) {
    case DType::kFloat16: return ReadRow<Float16>(r, b, h, s, size, dst);
    case DType::kBFloat16: return ReadRow<BFloat16>(r, b, h, s, size, dst);
    default: return ReadRow<float>(r, b, h, s, size, dst);
  }
}

// Writes f32 values as `dt` elements.
void WriteRow(const float* src, DType dt, void* dst, int64_t n) {
  switch (dt) {
    case DType::kFloat16: return ConvertRow(src, static_cast<Float16*>(dst), n);
    case DType::kBFloat16: return ConvertRow(src, static_cast<BFloat16*>(dst), n);
    default: return ConvertRow(src, static_cast<float*>(dst), n);
  }
}

// Appends the new rows of `rows` after the past rows into `present` (dtype c.dtype).
void BuildCache(const MhaCall& c, const MhaRows& rows, const void* past, int64_t size,
                void* present, int threads) {
  KvAppend a;
  a.batch = c.B, a.heads = c.N, a.head_size = size, a.capacity = c.present_capacity;
  a.past = past, a.past_capacity = c.past_capacity, a.new_rows = c.L;
  a.past_rows.assign(c.B, c.copy_whole_past ? c.past_capacity : c.past);
  a.new_at.assign(c.B, c.past);
  AppendKv(a, DTypeSize(c.dtype), present, [&](size_t b, size_t h, size_t r, void* dst) {
    float tmp[1024];
    std::vector<float> big;
    float* row = tmp;
    if (size > 1024) big.resize(size), row = big.data();
    ReadRowAny(rows, b, h, r, size, row);
    WriteRow(row, c.dtype, dst, size);
  }, threads);
}

bool InPlace(const MhaRows& r, DType dt) {
  return r.bias == nullptr && r.dtype == dt && (dt == DType::kFloat32 || dt == DType::kFloat16);
}

}  // namespace

Status RunMha(KernelContext& ctx, const MhaCall& c, const kernels::AttentionKernel& kernel) {
  const int64_t B = c.B, S = c.S, N = c.N, H = c.H, Hv = c.Hv, T = c.past + c.L;
  const int threads = ctx.threads();
  AttentionProblem p;
  p.batch = B, p.q_heads = N, p.kv_heads = N, p.q_len = S, p.head_size = H, p.v_head_size = Hv;
  // K / V: the present caches, or the new rows in place when nothing needs to be appended.
  const bool in_place = c.present_k == nullptr && c.past == 0 && InPlace(c.k, c.dtype) &&
                        InPlace(c.v, c.dtype);
  std::vector<char> kbuf, vbuf;
  std::vector<float> kf, vf;  // f32 copies of bf16 caches (the kernels read f32 or f16)
  if (in_place) {
    p.k = {c.k.data, c.k.batch, c.k.head, c.k.row};
    p.v = {c.v.data, c.v.batch, c.v.head, c.v.row};
  } else {
    void* pk = c.present_k;
    void* pv = c.present_v;
    const int64_t cap = c.present_capacity;
    if (pk == nullptr) {
      kbuf.resize(static_cast<size_t>(B * N * cap * H) * DTypeSize(c.dtype));
      vbuf.resize(static_cast<size_t>(B * N * cap * Hv) * DTypeSize(c.dtype));
      pk = kbuf.data(), pv = vbuf.data();
    }
    BuildCache(c, c.k, c.past_k, H, pk, threads);
    BuildCache(c, c.v, c.past_v, Hv, pv, threads);
    p.k = {pk, N * cap * H, cap * H, H};
    p.v = {pv, N * cap * Hv, cap * Hv, Hv};
    if (c.dtype == DType::kBFloat16) {
      kf.resize(static_cast<size_t>(B * N * cap * H));
      vf.resize(static_cast<size_t>(B * N * cap * Hv));
      ConvertRow(static_cast<const BFloat16*>(pk), kf.data(), kf.size());
      ConvertRow(static_cast<const BFloat16*>(pv), vf.data(), vf.size());
      p.k.data = kf.data(), p.v.data = vf.data();
    }
  }
  p.kv_type = c.dtype == DType::kFloat16 ? kernels::AttentionKv::kF16 : kernels::AttentionKv::kF32;
  // Q: in place when f32 without bias, else one pass into f32 (B, S, N, H).
  std::vector<float> qf;
  if (c.q.bias == nullptr && c.q.dtype == DType::kFloat32) {
    p.q = {static_cast<const float*>(c.q.data), c.q.batch, c.q.head, c.q.row};
  } else {
    qf.resize(static_cast<size_t>(B * S * N * H));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t h = 0; h < N; ++h)
          ReadRowAny(c.q, b, h, s, H, qf.data() + ((b * S + s) * N + h) * H);
    p.q = {qf.data(), S * N * H, H, N * H};
  }
  std::vector<float> yf;
  float* out = static_cast<float*>(c.out);
  if (c.dtype != DType::kFloat32) yf.resize(static_cast<size_t>(B * S * N * Hv)), out = yf.data();
  p.out = {out, S * N * Hv, Hv, N * Hv};
  p.keys.assign(B, BatchKeys{0, static_cast<size_t>(T), c.past, SIZE_MAX});
  p.causal = c.causal;
  p.scale = c.scale;
  p.bias = c.bias;
  p.mask = c.mask;
  std::vector<float> qk;
  if (c.qk != nullptr) {
    qk.assign(static_cast<size_t>(B * N * S * T), 0.0f);
    p.scores = qk.data();
    p.scores_batch = N * S * T, p.scores_head = S * T, p.scores_row = T;
    p.stage = kernels::AttentionScoresStage::kMasked;
  }
  RunAttention(p, kernel, threads);
  if (c.dtype != DType::kFloat32) WriteRow(yf.data(), c.dtype, c.out, B * S * N * Hv);
  if (c.qk != nullptr) {
    // ONNX Runtime's causal mask is the lowest float added to the score, not -inf.
    for (float& v : qk)
      if (v == -std::numeric_limits<float>::infinity()) v = std::numeric_limits<float>::lowest();
    WriteRow(qk.data(), c.dtype, c.qk, B * N * S * T);
  }
  return Status::Ok();
}

Status KeyPaddingTerm(const KernelContext& ctx, const Tensor& mask, const std::string& input,
                      int64_t B, int64_t S, int64_t L, int64_t past, float filter,
                      std::vector<float>* buffer, ScoreTerm* term) {
  const int64_t T = past + L;
  if (mask.dtype() != DType::kInt32)
    return ctx.Error("input " + input + " must be int32, got " + DTypeName(mask.dtype()));
  const Tensor m = mask.Contiguous();
  const int32_t* v = m.data<int32_t>();
  const Shape& d = m.shape();
  auto bad = [&]() {
    return ctx.Error("input " + input + " " + DimsOf(m) + " must be (" + std::to_string(B) +
                     "), (" + std::to_string(2 * B) + "), (" + std::to_string(3 * B + 2) + "), (" +
                     std::to_string(B) + ", " + std::to_string(T) + "), (" + std::to_string(B) +
                     ", " + std::to_string(S) + ", " + std::to_string(T) + ") or (" +
                     std::to_string(B) + ", 1, M, M) with M >= " + std::to_string(T));
  };
  term->data = nullptr;
  if (m.rank() == 1 && (d[0] == B || d[0] == 2 * B || d[0] == 3 * B + 2)) {
    buffer->assign(static_cast<size_t>(B * T), 0.0f);
    for (int64_t b = 0; b < B; ++b) {
      float* row = buffer->data() + b * T;
      for (int64_t j = std::max<int64_t>(0, v[b]); j < T; ++j) row[j] = filter;
      if (d[0] == 2 * B)
        for (int64_t j = 0; j < std::min<int64_t>(v[B + b], T); ++j) row[j] = filter;
    }
    *term = {buffer->data(), T, 0, 0, 1};
    return Status::Ok();
  }
  if (m.rank() == 2 && d[0] == B && (d[1] == T || (past == 0 && d[1] == L))) {
    buffer->resize(static_cast<size_t>(B * T));
    for (int64_t i = 0; i < B * T; ++i) (*buffer)[i] = v[i] > 0 ? 0.0f : filter;
    *term = {buffer->data(), T, 0, 0, 1};
    return Status::Ok();
  }
  if (m.rank() == 3 && d[0] == B && d[1] == S && d[2] == T) {
    buffer->resize(static_cast<size_t>(B * S * T));
    for (int64_t i = 0; i < B * S * T; ++i) (*buffer)[i] = v[i] > 0 ? 0.0f : filter;
    *term = {buffer->data(), S * T, 0, T, 1};
    return Status::Ok();
  }
  if (m.rank() == 4 && d[0] == B && d[1] == 1 && d[2] == d[3] && d[2] >= past + S && d[3] >= T) {
    const int64_t M = d[2];
    buffer->resize(static_cast<size_t>(B * S * T));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t j = 0; j < T; ++j)
          (*buffer)[(b * S + s) * T + j] = v[(b * M + past + s) * M + j] > 0 ? 0.0f : filter;
    *term = {buffer->data(), S * T, 0, T, 1};
    return Status::Ok();
  }
  return bad();
}

}  // namespace vt::ops
