// Named constructors for the packed layouts the project builds (docs/design.md §1
// examples). Each returns a canonical Layout from Layout::Make; errors are Make's (InvalidArgument).
#pragma once

#include <cstdint>
#include <optional>

#include "vtensor/layout/layout.h"

namespace vt {

// GEMM column panels of a weight B[K, N] (ONNX MatMul's right operand): ceil(N / panel) panels,
// each K rows of `panel` consecutive columns, N padded up to a multiple of `panel`. Element
// (k, n) is at ((n / panel) * K + k) * panel + n % panel. panel >= 1 (16 and 32 feed the AVX2 /
// AVX-512 f32 microkernels).
Expected<Layout> GemmColumnPanels(int64_t k, int64_t n, int64_t panel,
                                  Encoding encoding = Encoding::kF32);

// The same panels over a GEMM B operand stored as ONNX keeps it: `b_shape` is [K, N], or
// [N, K] when `trans_b` (Gemm transB = 1; the layout is then the transpose). Errors: Make's,
// and InvalidArgument when b_shape is not a matrix.
Expected<Layout> GemmWeightPanels(const Shape& b_shape, bool trans_b, int64_t panel,
                                  Encoding encoding = Encoding::kF32);

// A block-quantized weight W[N, K] (rows N, blocks along K as GGUF and com.microsoft
// MatMulNBits store them; K padded up to whole blocks of encoding's block_elems).
//  kRowMajor:        blocks (n, kb) in row-major order: the stored form.
//  kInputBlockMajor: kernel-feed order: for each panel of `rows` output rows, for each input
//                    block kb, the `rows` blocks (n, kb) back to back. rows <= 0 means all N
//                    rows in one panel. N is padded up to a multiple of `rows` (also when
//                    rows > N: the panel keeps its full height).
// `encoding` must be a block encoding (q8_0, q4_0, q4zp32, q4_k) or i4/u4/i8/u8 with a block
// size of 1 or 2 (then "blocks" are single elements / nibble pairs).
Expected<Layout> BlockQuantizedWeight(int64_t n, int64_t k, Encoding encoding, BlockOrder order,
                                      int64_t rows = 0);

// The key or value cache of one attention layer (docs/attention.md). Logical shape
// [batch, kv_heads, seq_len, head_size], ONNX Runtime's past_key / present_key order whatever
// the storage; each (batch, head) has room for `capacity` >= seq_len positions, so a decode step
// appends position seq_len in place. A strided layout (kernels index it directly):
//   kHeadMajor      BNSH, ONNX Runtime's GroupQueryAttention cache: element (b, n, s, h) at
//                   ((b * kv_heads + n) * capacity + s) * head_size + h; one head's keys are
//                   contiguous rows of head_size.
//   kSequenceMajor  BSNH, a token's heads side by side: ((b * capacity + s) * kv_heads + n) *
//                   head_size + h; key rows of one head are kv_heads * head_size apart.
// `encoding` is the element type (kF32, kF16, ...). Errors: InvalidArgument naming the dims when
// one is negative or capacity < seq_len.
enum class KvCacheOrder : uint8_t { kHeadMajor, kSequenceMajor };
Expected<Layout> KvCacheLayout(int64_t batch, int64_t kv_heads, int64_t seq_len, int64_t capacity,
                               int64_t head_size, KvCacheOrder order,
                               Encoding encoding = Encoding::kF32);

// What KvCacheLayout built `layout` from, when it is such a layout (any sizes): the order and
// the capacity. nullopt for any other layout. Lets the planner and --explain name a cache.
struct KvCacheGeometry {
  KvCacheOrder order = KvCacheOrder::kHeadMajor;
  int64_t capacity = 0;
};
std::optional<KvCacheGeometry> MatchKvCacheLayout(const Layout& layout);

// "kv_cache.bnsh" or "kv_cache.bsnh".
const char* KvCacheOrderName(KvCacheOrder order);

}  // namespace vt
