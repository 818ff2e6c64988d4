// Unique (ONNX Operators.md "Unique", opset 11): unique elements of the flattened input, or
// unique slices along `axis`, sorted ascending (lexicographically for slices) or in order of
// first occurrence. NaNs compare equal to each other and greater than every number.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Total order used for sorting and grouping: -1, 0, 1.
template <typename T>
inline int CompareElem(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return CompareElem(ElemTraits<T>::Load(a), ElemTraits<T>::Load(b));
  } else if constexpr (std::is_floating_point_v<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return a < b ? -1 : (b < a ? 1 : 0);
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

struct UniqueResult {
  std::vector<int64_t> first;    // per unique slice: index of first occurrence in X
  std::vector<int64_t> inverse;  // per slice of X: index into the unique list
  std::vector<int64_t> counts;
};

template <typename T>
UniqueResult FindUnique(const T* data, int64_t n, int64_t len, bool sorted) {
  auto cmp = [&](int64_t a, int64_t b) {
    const T* pa = data + a * len;
    const T* pb = data + b * len;
    for (int64_t k = 0; k < len; ++k) {
      int c = CompareElem(pa[k], pb[k]);
      if (c != 0) return c;
    }
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // Stable: within a group of equal slices the first occurrence comes first.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  std::vector<int64_t> group_of(static_cast<size_t>(n));
  std::vector<int64_t> first, counts;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
      first.push_back(order[i]);
      counts.push_back(0);
    }
    group_of[static_cast<size_t>(order[i])] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  const size_t u = first.size();
  std::vector<int64_t> rank(u);  // output position of each sorted group
  std::iota(rank.begin(), rank.end(), 0);
  if (!sorted) {
    std::vector<int64_t> by_first(u);
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(),
              [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
    for (size_t p = 0; p < u; ++p) rank[static_cast<size_t>(by_first[p])] = static_cast<int64_t>(p);
  }
  UniqueResult r;
  r.first.resize(u);
  r.counts.resize(u);
  for (size_t g = 0; g < u; ++g) {
    r.first[static_cast<size_t>(rank[g])] = first[g];
    r.counts[static_cast<size_t>(rank[g])] = counts[g];
  }
  r.inverse.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    r.inverse[static_cast<size_t>(i)] = rank[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
  return r;
}

void SetI64Output(KernelContext& ctx, size_t i, const std::vector<int64_t>& v) {
  if (!ctx.output_requested(i)) return;
  Tensor t = ctx.AllocOutput(i, DType::kInt64, {static_cast<int64_t>(v.size())});
  if (!v.empty()) std::memcpy(t.mutable_data<int64_t>(), v.data(), v.size() * 8);
}

Status UniqueCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor xin, ctx.RequireTensor(0));
  const Tensor x0 = StridedForm(xin);
  const bool sorted = ctx.node().GetInt("sorted", 1) != 0;
  const Attribute* axis_attr = ctx.node().FindAttr("axis");
  const DType dt = x0.dtype();
  // Slices along `axis` become rows of a [n, len] matrix (axis moved to the front).
  Tensor rows;
  std::vector<int64_t> perm;
  int64_t axis = -1;
  if (axis_attr) {
    if (x0.rank() == 0) return ctx.Error("input must have rank >= 1 when axis is given");
    VT_ASSIGN_OR_RETURN(axis, NormalizeAxisFor(ctx, axis_attr->i, x0.rank()));
    perm.push_back(axis);
    for (int d = 0; d < x0.rank(); ++d)
      if (d != axis) perm.push_back(d);
    VT_ASSIGN_OR_RETURN(Layout l, x0.layout().Transpose(perm));
    rows = x0.WithLayout(std::move(l)).Contiguous();
  } else {
    rows = x0.Contiguous();
  }
  const int64_t n = axis_attr ? x0.dim(static_cast<int>(axis)) : x0.numel();
  const int64_t len = n == 0 ? 0 : rows.numel() / n;
  UniqueResult res;
  Status st = DispatchElem<kSetAll>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    res = FindUnique<T>(rows.data<T>(), n, len, sorted);
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  const int64_t u = static_cast<int64_t>(res.first.size());
  Shape moved = rows.shape();
  if (axis_attr) moved[0] = u;
  else moved = {u};
  Tensor y_moved = Tensor::Empty(dt, moved);
  for (int64_t g = 0; g < u; ++g)
    CopyElems(dt, ElemPtr(y_moved.raw_mutable_data(), dt, g * len),
              ElemPtr(rows.raw_data(), dt, res.first[static_cast<size_t>(g)] * len), len);
  if (axis_attr) {
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    VT_ASSIGN_OR_RETURN(Layout l, y_moved.layout().Transpose(inv));
    ctx.SetOutput(0, y_moved.WithLayout(std::move(l)).Contiguous());
  } else {
    ctx.SetOutput(0, y_moved);
  }
  SetI64Output(ctx, 1, res.first);
  SetI64Output(ctx, 2, res.inverse);
  SetI64Output(ctx, 3, res.counts);
  return Status::Ok();
}

VT_REGISTER_OP("", "Unique", 11, kMaxOpset, UniqueCompute);

}  // namespace
}  // namespace vt::ops
