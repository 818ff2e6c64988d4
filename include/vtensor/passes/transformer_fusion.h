// Shape folding and the fusions of transformer blocks that a Session applies at creation
// (docs/transformer-fusion.md has each pattern, its conditions and the near misses left
// alone). Each function rewrites the top-level graph of a model in place, returns the number
// of patterns it rewrote, and leaves results equal to the unfused graph's up to float
// rounding. The fused nodes are standard operators where one exists (LayerNormalization-17,
// RMSNormalization-23, Gelu-20), com.microsoft operators of the same computation
// (SkipLayerNormalization, SkipSimplifiedLayerNormalization, QuickGelu) and otherwise the
// "ai.vtensor" operators of graph/fused_ops.h. Registered as passes (passes/pass.h) under the names in brackets.
#pragma once

#include <cstddef>

#include "vtensor/graph/graph.h"

namespace vt {

// [fold-shapes] Shape subgraphs whose values are known, or equal to the input dims they feed,
// become constants (passes/fold_shapes.cc); dead nodes and initializers are removed.
size_t FoldShapes(Graph& g);

// [fuse-layer-norm] The LayerNorm decomposition ReduceMean / Sub / Pow / ReduceMean / Add /
// Sqrt / Div (/ Mul scale / Add bias) over the last axis becomes LayerNormalization; the RMS
// decomposition Pow / ReduceMean / Add / Sqrt / (Div(1, .) or Reciprocal) / Mul (or Div by the
// Sqrt) (/ Mul scale) becomes RMSNormalization.
size_t FuseLayerNorm(Graph& g);

// [fuse-gelu] x * 0.5 * (1 + Erf(x / sqrt(2))) and the tanh form
// 0.5 x (1 + Tanh(sqrt(2/pi) (x + 0.044715 x^3))), in the association orders exporters write,
// become Gelu (approximate "none" / "tanh").
size_t FuseGelu(Graph& g);

// [fuse-attention] MatMul(Q, K^T) -> Div or Mul by a constant scale -> (Add mask) -> (Cast to
// float) -> Softmax(last axis) -> MatMul(., V), with the Reshape / Transpose head split of Q,
// K and V, the repeat_kv Unsqueeze / Expand / Reshape of grouped-query K and V, and the
// Transpose / Reshape head merge of the output, becomes ai.vtensor Attention.
size_t FuseAttention(Graph& g);

// [fuse-rotary] x * cos + Concat(Neg(Slice(x, h:)), Slice(x, :h)) * sin over the last axis
// (rotate_half) becomes ai.vtensor RotaryEmbedding.
size_t FuseRotary(Graph& g);

// [fuse-matmul-bias] MatMul by a constant 2-D f32 weight followed by Add of a constant bias
// over the last axis, then optionally Gelu or x * Sigmoid(x) (SiLU, optionally times another
// value: SwiGLU), becomes ai.vtensor Dense; a SiLU whose input is no such MatMul becomes
// com.microsoft QuickGelu (alpha 1), a SwiGLU ai.vtensor Activation.
size_t FuseMatMulBias(Graph& g);

// [fuse-skip-norm] Add(a, b) of two values of the same shape (rank 2 or 3) feeding
// LayerNormalization or RMSNormalization over the last axis becomes com.microsoft
// SkipLayerNormalization / SkipSimplifiedLayerNormalization (its input_skip_bias_sum output
// replaces the Add's for any other reader).
size_t FuseSkipNorm(Graph& g);

}  // namespace vt
