// The operators vtensor's transformer fusions write (domain "ai.vtensor", version 1) and the
// kernels of src/ops/fused run; their contracts are in docs/transformer-fusion.md. Declared
// here, below passes and ops, so that neither includes the other. Where a com.microsoft
// operator computes the same thing (SkipLayerNormalization, QuickGelu) the fusions write that
// instead (passes/transformer_fusion.h).
//
//   Dense(X, W, B?, M?)  Y = act(X @ W + B) * M. X [..., K] f32, W a constant f32 [K, N]
//       (prepacked like MatMul's B), B [N], M of Y's shape; attribute kActivationAttr.
//   Activation(X, M?)    Y = act(X) * M, M of X's shape; attribute kActivationAttr.
//   RotaryEmbedding(X, Cos, Sin)  Y = X * Cos + rotate_half(X) * Sin over the last axis
//       (rotate_half(x) = concat(-x[h:], x[:h]), h = half the last dim); Cos and Sin
//       broadcast to X.
//   Attention(Q, K, V, Mask?)  softmax(Q K^T * scale + Mask) V per head, with attributes
//       num_heads, kv_num_heads (grouped-query: query head h reads KV head h / (num_heads /
//       kv_num_heads)), scale, and kBshOutputAttr. Q is [B, N, S, D] or, rank 3, [B, S, N*D];
//       K and V likewise with kv_num_heads; Mask broadcasts to [B, N, S, T]. Output
//       [B, N, S, Dv], or [B, S, N*Dv] when kBshOutputAttr = 1.
#pragma once

namespace vt {

inline constexpr const char* kVtDomain = "ai.vtensor";

// Activation names of kActivationAttr: "" (none; Dense only), "Gelu" (erf form), "GeluTanh",
// "Silu".
inline constexpr const char* kActivationAttr = "activation";
inline constexpr const char* kBshOutputAttr = "bsh_output";

}  // namespace vt
