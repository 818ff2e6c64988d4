// The attention operators' common core: one problem (batch x query heads x query rows against
// batch x KV heads x keys) expressed in strides, run as calls of the attention kernel family
// (kernels/attention, docs/attention.md) — one call per batch entry x KV head x block of query
// rows, the whole GQA group of query heads sharing the KV head by pointer.
//
// Operators describe their tensors in place (BSNH, BNSH, packed QKV, a KV cache with spare
// capacity are all strides); nothing here copies an operand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/attention/attention_table.h"
#include "vtensor/base/status.h"

namespace vt::ops {

// Element (b, h, s, d) of a 4-D operand at data + b * batch + h * head + s * row + d (element
// strides; the innermost stride is 1).
template <typename P>
struct Strided4 {
  P data = nullptr;
  ptrdiff_t batch = 0, head = 0, row = 0;
};

// An additive score term: element (b, query head h, query row i, key j) at
// data + b * batch + h * head + i * row + j * key (0 strides broadcast).
struct ScoreTerm {
  const float* data = nullptr;
  ptrdiff_t batch = 0, head = 0, row = 0, key = 0;
};

// Keys [kv_begin, kv_end) of batch entry b exist; its query row 0 sits at position q_pos
// (causal and window masks are relative to it: bottom-right alignment with q_pos = past).
// Rows at and past clamp_row sit at the position of row clamp_row - 1 (GroupQueryAttention's
// right-padded prompt rows see what the last real token sees).
struct BatchKeys {
  size_t kv_begin = 0, kv_end = 0;
  int64_t q_pos = 0;
  size_t clamp_row = SIZE_MAX;
};

struct AttentionProblem {
  size_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0;
  size_t head_size = 0, v_head_size = 0;
  Strided4<const float*> q;             // [b, q head, row, d]
  kernels::AttentionKv kv_type = kernels::AttentionKv::kF32;
  Strided4<const void*> k, v;           // [b, kv head, key, d] in elements of kv_type
  Strided4<float*> out;                 // [b, q head, row, e]
  std::vector<BatchKeys> keys;          // one per batch entry
  bool causal = false;
  int64_t window_left = -1, window_right = -1;
  float scale = 1.0f, softcap = 0.0f;
  ScoreTerm bias, mask;
  const float* sink = nullptr;          // one logit per query head, or null
  // Optional score matrix output [b, q head, row, key] at the given stage (keys outside
  // [kv_begin, kv_end) are left untouched).
  float* scores = nullptr;
  ptrdiff_t scores_batch = 0, scores_head = 0, scores_row = 0;
  kernels::AttentionScoresStage stage = kernels::AttentionScoresStage::kScaled;
};

// Runs the problem on `kernel` with up to `threads` OpenMP threads (each with its own scratch,
// under ScopedFlushDenormals). Preconditions (checked by the operators, asserted here):
// q_heads is a multiple of kv_heads, keys.size() == batch, kv_end within the K / V extents.
// The score output, when requested, goes through the materialising path (AttentionMaterialized).
void RunAttention(const AttentionProblem& p, const kernels::AttentionKernel& kernel, int threads);

}  // namespace vt::ops
