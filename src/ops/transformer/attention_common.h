// Helpers the attention operators share: reading optional inputs, the attention_bias score
// term (converted to f32 once; ops/common/f32_compute.h converts other operands and results),
// and choosing the kernel row for the session's ISA level.
#pragma once

#include <string>
#include <vector>

#include "kernels/attention/attention_table.h"
#include "ops/transformer/attention_driver.h"
#include "vtensor/exec/kernel.h"

namespace vt::ops {

// Input i when given (non-empty name and a tensor), else null.
const Tensor* OptionalInput(const KernelContext& ctx, size_t i);


// A (B | 1, N | 1, S, T) attention_bias as a score term over (batch, query head, row, key);
// `f32` keeps the converted tensor alive. Errors name the input.
Status AttentionBiasTerm(const KernelContext& ctx, const Tensor& bias, const std::string& input,
                         int64_t batch, int64_t heads, int64_t q_len, int64_t total,
                         Tensor* f32, ScoreTerm* term);

// 1 / sqrt(head_size) when `scale` is 0 (the attribute's default), else `scale`.
float DefaultScale(float scale, int64_t head_size);

// "(2, 3, 4)" for error messages.
std::string DimsOf(const Tensor& t);

// True for f32, f16, bf16 and f64.
bool IsAttentionFloat(DType t);

}  // namespace vt::ops
