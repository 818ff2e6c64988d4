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

}  // namespace vt
