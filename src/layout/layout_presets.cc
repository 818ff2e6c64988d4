#include "vtensor/layout/layout_presets.h"

namespace vt {

Expected<Layout> GemmColumnPanels(int64_t k, int64_t n, int64_t panel, Encoding encoding) {
  if (k < 0 || n < 0 || panel < 1)
    return InvalidArgument("GemmColumnPanels: K " + std::to_string(k) + ", N " +
                           std::to_string(n) + ", panel " + std::to_string(panel) +
                           " must be >= 0, >= 0, >= 1");
  LayoutSpec s;
  s.shape = {k, n};
  s.encoding = encoding;
  s.levels = {{1, panel, k * panel}, {0, 1, panel}, {1, 1, 1}};
  return Layout::Make(s);
}

Expected<Layout> GemmWeightPanels(const Shape& b_shape, bool trans_b, int64_t panel,
                                  Encoding encoding) {
  if (b_shape.size() != 2)
    return InvalidArgument("GEMM weight " + ShapeToString(b_shape) + " is not a matrix");
  const int64_t k = trans_b ? b_shape[1] : b_shape[0], n = trans_b ? b_shape[0] : b_shape[1];
  VT_ASSIGN_OR_RETURN(Layout kn, GemmColumnPanels(k, n, panel, encoding));
  if (!trans_b) return kn;
  return kn.Transpose({1, 0});
}

Expected<Layout> BlockQuantizedWeight(int64_t n, int64_t k, Encoding encoding, BlockOrder order,
                                      int64_t rows) {
  if (n < 0 || k < 0)
    return InvalidArgument("BlockQuantizedWeight: negative dim in [" + std::to_string(n) + "," +
                           std::to_string(k) + "]");
  const int64_t be = GetEncodingTraits(encoding).block_elems;
  const int64_t kpad = (k + be - 1) / be * be;
  LayoutSpec s;
  s.shape = {n, k};
  s.encoding = encoding;
  if (order == BlockOrder::kRowMajor) {
    s.levels = {{0, 1, kpad}, {1, 1, 1}};
    return Layout::Make(s);
  }
  if (rows <= 0) rows = n > 0 ? n : 1;
  const int64_t npad = (n + rows - 1) / rows * rows;
  if (rows == 1) {
    // One-row panels: kernel-feed order is the stored row-major order.
    s.levels = {{0, 1, kpad}, {1, 1, 1}};
    return Layout::Make(s);
  }
  if (be == 1)
    s.levels = {{0, rows, rows * kpad}, {1, 1, rows}, {0, 1, 1}};
  else
    s.levels = {{0, rows, rows * kpad}, {1, be, rows * be}, {0, 1, be}, {1, 1, 1}};
  s.padded = {npad, kpad};
  return Layout::Make(s);
}

Expected<Layout> KvCacheLayout(int64_t batch, int64_t kv_heads, int64_t seq_len, int64_t capacity,
                               int64_t head_size, KvCacheOrder order, Encoding encoding) {
  if (batch < 0 || kv_heads < 0 || seq_len < 0 || head_size < 0 || capacity < seq_len)
    return InvalidArgument("KvCacheLayout: batch " + std::to_string(batch) + ", kv_heads " +
                           std::to_string(kv_heads) + ", seq_len " + std::to_string(seq_len) +
                           ", capacity " + std::to_string(capacity) + ", head_size " +
                           std::to_string(head_size) +
                           " (dims must be >= 0 and capacity >= seq_len)");
  const int64_t h = head_size;
  std::vector<int64_t> strides =
      order == KvCacheOrder::kHeadMajor
          ? std::vector<int64_t>{kv_heads * capacity * h, capacity * h, h, 1}
          : std::vector<int64_t>{capacity * kv_heads * h, h, kv_heads * h, 1};
  return Layout::Strided({batch, kv_heads, seq_len, head_size}, std::move(strides), 0, encoding);
}

std::optional<KvCacheGeometry> MatchKvCacheLayout(const Layout& l) {
  if (!l.is_strided() || l.rank() != 4 || l.offset() != 0) return std::nullopt;
  const std::vector<int64_t>& st = l.strides();
  const int64_t n = l.dim(1), s = l.dim(2), h = l.dim(3);
  if (st[3] != 1) return std::nullopt;
  // Head-major: seq stride h, head stride capacity * h.
  if (st[2] == h && h > 0 && st[1] % h == 0 && st[1] / h >= s && st[0] == n * st[1])
    return KvCacheGeometry{KvCacheOrder::kHeadMajor, st[1] / h};
  // Sequence-major: head stride h, seq stride kv_heads * h, batch stride capacity * that.
  if (st[1] == h && st[2] == n * h && n * h > 0 && st[0] % (n * h) == 0 &&
      st[0] / (n * h) >= s)
    return KvCacheGeometry{KvCacheOrder::kSequenceMajor, st[0] / (n * h)};
  return std::nullopt;
}

const char* KvCacheOrderName(KvCacheOrder order) {
  return order == KvCacheOrder::kHeadMajor ? "kv_cache.bnsh" : "kv_cache.bsnh";
}

}  // namespace vt
