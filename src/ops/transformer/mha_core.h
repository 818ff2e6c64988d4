// The part of com.microsoft MultiHeadAttention and com.microsoft Attention that follows the
// input projections: N query heads over N KV heads, new K / V rows appended to a past cache
// (BNSH) into a present cache, ONNX Runtime's mask semantics (key padding and raw masks add
// mask_filter_value; the causal mask removes keys), and an optional pre-softmax score output.
#pragma once

#include <cstdint>

#include "kernels/attention/attention_table.h"
#include "ops/transformer/attention_driver.h"
#include "vtensor/exec/kernel.h"

namespace vt::ops {

// New rows of Q, K or V: element (b, h, s, d) at data + b * batch + h * head + s * row + d, of
// element type `dtype` (f32, f16 or bf16), plus bias[h * size + d] when bias is not null.
struct MhaRows {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  ptrdiff_t batch = 0, head = 0, row = 0;
  const float* bias = nullptr;
};

struct MhaCall {
  int64_t B = 0, S = 0, L = 0, N = 0, H = 0, Hv = 0;  // L: new K / V rows
  MhaRows q, k, v;
  // Past caches (BNSH, past_capacity rows per head; the first `past` rows are used), or null.
  const void* past_k = nullptr;
  const void* past_v = nullptr;
  int64_t past = 0, past_capacity = 0;
  // Rows copied from the past caches into the present ones: `past`, or the whole buffer when
  // past and present share it (past_sequence_length given: the rows after the new ones keep
  // what the buffer held).
  bool copy_whole_past = false;
  // Present caches (BNSH, present_capacity rows per head, element type `dtype`): outputs the
  // caller allocated, or null to let the operator keep K / V where they are (no past, no
  // bias: the kernels read the new rows in place) or in scratch.
  void* present_k = nullptr;
  void* present_v = nullptr;
  int64_t present_capacity = 0;
  DType dtype = DType::kFloat32;  // element type of the caches and of `out`
  // Additive terms over (batch, head, row, key): attention_bias and the converted masks.
  ScoreTerm bias, mask;
  bool causal = false;
  float scale = 1.0f;
  void* out = nullptr;  // (B, S, N * Hv) of `dtype`
  void* qk = nullptr;   // optional (B, N, S, T) of `dtype`: scores before the softmax
};

// Runs the call. T = past + L keys per batch entry. Errors: none beyond allocation (inputs are
// validated by the operators).
Status RunMha(KernelContext& ctx, const MhaCall& c, const kernels::AttentionKernel& kernel);

// ONNX Runtime's key padding / raw attention masks (int32) as an additive score term
// (0 where mask > 0 or the key is inside the valid range, mask_filter_value elsewhere):
//   (B) end positions, (2B) end then start positions, (3B + 2) the first B are end positions,
//   (B, T) or (B, L) raw mask (L only without past), (B, S, T) raw mask, and
//   (B, 1, M, M) Megatron-style (rows past..past+S-1, columns 0..T-1 of each batch's matrix).
// `buffer` receives the converted floats. Errors: InvalidArgument naming `input`.
Status KeyPaddingTerm(const KernelContext& ctx, const Tensor& mask, const std::string& input,
                      int64_t B, int64_t S, int64_t L, int64_t past, float filter,
                      std::vector<float>* buffer, ScoreTerm* term);

}  // namespace vt::ops
