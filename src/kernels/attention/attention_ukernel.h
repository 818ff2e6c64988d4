// Attention microkernels: softmax(Q K^T * scale + masks) V for one KV head, computed blocked
// ("flash" attention) with an online softmax, so no query x key score matrix is built
// (docs/attention.md). Every com.microsoft GroupQueryAttention / MultiHeadAttention /
// Attention and ONNX Attention operator maps onto this one contract.
//
// One call covers `heads` query heads that read the same KV head (a GQA group, or one head)
// times `rows` query rows each; query row (g, i) has the absolute position q_pos + i. Like
// every vtensor microkernel it takes pointers and strides (in elements), allocates nothing
// and starts no threads: the operator parallelises over batch x KV heads x query blocks and
// passes each call its own scratch.
//
//   Q    element (g, i, d) at q[g * q_head_stride + i * q_row_stride + d], f32, d < head_size
//   K    key j, element d at k[j * k_row_stride + d]       (f32 or f16, AttentionKv)
//   V    key j, element e at v[j * v_row_stride + e]       (same type as K), e < v_head_size
//   out  element (g, i, e) at out[g * out_head_stride + i * out_row_stride + e], f32,
//        overwritten (also used as the running accumulator while the call runs)
//   bias, mask  two additive terms (AttentionBias): element (g, i, j) at
//        data[g * head_stride + i * row_stride + j * key_stride] (any strides, 0 to
//        broadcast), or absent (data null). `bias` carries attention_bias or a float attn_mask,
//        `mask` a key padding or boolean mask the operator turned into 0 / -inf (or 0 /
//        mask_filter_value), so two such inputs need no combined copy
//   sink sink[g] (one logit per query head), or null
//
// Key j is visible to row (g, i) at position p = q_pos + i when
//   kv_begin <= j < kv_end                       (keys that exist: padding, seqlens_k)
//   and (!causal || j <= p)                      (bottom-right causal: past keys align)
//   and (window_left < 0  || j >= p - window_left)
//   and (window_right < 0 || j <= p + window_right).
// For each visible key
//   s_j = scale * sum_d q_d k_jd;  if softcap > 0: s_j = softcap * tanh(s_j / softcap);
//   s_j = s_j + bias(g, i, j) + mask(g, i, j)
// and, with m = max(max_j s_j, sink[g]) (sink absent: no term),
//   out = sum_j exp(s_j - m) v_j / (sum_j exp(s_j - m) + exp(sink[g] - m)).
// A row without visible keys, or whose visible scores are all -inf (a boolean mask turned into
// -inf by the operator), gets out = 0: ONNX Attention's rule for fully masked rows, which
// ONNX Runtime 1.30 follows (docs/attention.md).
//
// Every row is within a small multiple of f32 rounding of the reference twin (the tests state
// the bound from the exact result in double). Subnormals follow the caller's MXCSR: the
// operator runs the kernels under ScopedFlushDenormals.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// Element type of the K and V rows (the KV cache's type).
enum class AttentionKv : uint8_t { kF32, kF16 };

// An additive term of the scores (see the contract above).
struct AttentionBias {
  const float* data = nullptr;
  ptrdiff_t head_stride = 0, row_stride = 0, key_stride = 0;
};

struct AttentionCall {
  size_t heads = 1;        // query heads in the call, all reading this K / V
  size_t rows = 0;         // query rows per head
  size_t head_size = 0;    // elements of a Q or K row (>= 1)
  size_t v_head_size = 0;  // elements of a V or output row (>= 1)

  const float* q = nullptr;
  ptrdiff_t q_head_stride = 0, q_row_stride = 0;
  AttentionKv kv_type = AttentionKv::kF32;
  const void* k = nullptr;
  ptrdiff_t k_row_stride = 0;
  const void* v = nullptr;
  ptrdiff_t v_row_stride = 0;
  float* out = nullptr;
  ptrdiff_t out_head_stride = 0, out_row_stride = 0;

  size_t kv_begin = 0, kv_end = 0;  // keys [kv_begin, kv_end) exist
  int64_t q_pos = 0;                // position of query row 0 (may be negative)
  bool causal = false;
  int64_t window_left = -1;   // < 0: unbounded
  int64_t window_right = -1;  // < 0: unbounded

  float scale = 1.0f;
  float softcap = 0.0f;  // <= 0: none
  AttentionBias bias;
  AttentionBias mask;
  const float* sink = nullptr;
};

// Visible keys of query row i (any head) as one run [*lo, *hi); *lo == *hi when none.
// (Out of line, compiled for the baseline ISA: the ISA files call it.)
void AttentionVisibleKeys(const AttentionCall& c, size_t i, size_t* lo, size_t* hi);

// Largest tile heights and key blocks of any row: bounds for the scratch size.
constexpr size_t kAttentionMaxMr = 8;
constexpr size_t kAttentionMaxKeyBlock = 128;

// Floats of scratch a call over `query_rows` = heads * rows query rows with `head_size` needs,
// for every row of the table (running max and sum per query row, one score tile, one block of
// keys transposed).
inline size_t AttentionScratchFloats(size_t query_rows, size_t head_size) {
  return 2 * query_rows + (kAttentionMaxMr + head_size) * (kAttentionMaxKeyBlock + 16) + 64;
}

using AttentionUkernelFn = void (*)(const AttentionCall& call, float* scratch);

// Scalar reference twin: the blocked online softmax of the rows in plain loops, f32
// arithmetic (std::exp, std::tanh), keys in blocks of kAttentionReferenceBlock, each dot
// product summed in d order. Validated against the materialised definition in double.
constexpr size_t kAttentionReferenceBlock = 64;
void AttentionReference(const AttentionCall& call, float* scratch);

// AVX2 + FMA + F16C (attention_avx2.cc) and AVX-512F/BW/VL/DQ (attention_avx512.cc): score
// tiles of MR query rows x one key block, dot products along d reduced across keys, vector
// exp, P * V accumulated into the output rows (docs/attention.md).
void attention_f32f16kv_f32_8x128_avx512(const AttentionCall& call, float* scratch);
void attention_f32f16kv_f32_8x128_avx2(const AttentionCall& call, float* scratch);

// ---- Materialised scores (ONNX Attention qk_matmul_output_mode, GQA qk_output) ----
//
// The stage of the score matrix an operator outputs besides `out`:
//   kScaled          scale * q.k
//   kSoftcapped      after softcap (kScaled when softcap <= 0)
//   kMasked          softcapped + bias + mask, -inf where the key is not visible
//   kProbabilities   the softmax (with the sink in the denominator); 0 where not visible and
//                    on rows without visible keys
enum class AttentionScoresStage : uint8_t { kScaled, kSoftcapped, kMasked, kProbabilities };

struct AttentionScoresOut {
  AttentionScoresStage stage = AttentionScoresStage::kScaled;
  float* scores = nullptr;  // (g, i, j) at scores[g * head_stride + i * row_stride + j]
  ptrdiff_t head_stride = 0, row_stride = 0;
};

// Scratch floats for AttentionMaterialized over keys [0, kv_end).
inline size_t AttentionMaterializedScratchFloats(size_t kv_end) { return kv_end + 16; }

// Writes `out` (same contract and result as the flash rows, one full score row at a time) and
// the chosen stage of the scores for keys kv_begin <= j < kv_end (other columns untouched).
// Portable code; meant for the calls that must materialise the scores anyway.
void AttentionMaterialized(const AttentionCall& call, const AttentionScoresOut& qk,
                           float* scratch);

}  // namespace vt::kernels
