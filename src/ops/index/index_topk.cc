// TopK (ONNX Operators.md "TopK": `k` attribute in opset 1, input from 10, `largest` and
// `sorted` from 11). Equal values keep the lower index first; NaN ranks above every
// number (first for largest, last for smallest). Outputs are always sorted, which also
// satisfies sorted=0.
#include <algorithm>
#include <cmath>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

template <typename V>
inline bool Greater(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}

template <typename T>
void TopKLanes(const T* x, int64_t outer, int64_t dim, int64_t inner, int64_t k, bool largest,
               T* values, int64_t* indices) {
  using C = ElemTraits<T>;
  using V = ComputeOf<T>;
  std::vector<std::pair<V, int64_t>> lane(static_cast<size_t>(dim));
  auto before = [largest](const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& b) {
    if (largest) {
      if (Greater(a.first, b.first)) return true;
      if (Greater(b.first, a.first)) return false;
    } else {
      if (Greater(b.first, a.first)) return true;
      if (Greater(a.first, b.first)) return false;
    }
    return a.second < b.second;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* base = x + o * dim * inner + i;
      for (int64_t j = 0; j < dim; ++j)
        lane[static_cast<size_t>(j)] = {C::Load(base[j * inner]), j};
      std::partial_sort(lane.begin(), lane.begin() + k, lane.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = (o * k + j) * inner + i;
        const int64_t src = lane[static_cast<size_t>(j)].second;
        values[dst] = base[src * inner];
        indices[dst] = src;
      }
    }
  }
}

Status TopKCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  const int r = x.rank();
  if (r == 0) return ctx.Error("input must have rank >= 1");
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, ctx.node().GetInt("axis", -1), r));
  int64_t k;
  if (ctx.opset() < 10) {
    if (!ctx.node().FindAttr("k")) return ctx.Error("attribute 'k' is required");
    k = ctx.node().GetInt("k", 0);
  } else {
    VT_ASSIGN_OR_RETURN(auto kv, ReadIntList(ctx, 1, "K"));
    if (kv.size() != 1) return ctx.Error("K must have exactly one element");
    k = kv[0];
  }
  const int64_t dim = x.dim(static_cast<int>(axis));
  if (k < 0 || k > dim)
    return ctx.Error("k " + std::to_string(k) + " out of range [0, " + std::to_string(dim) + "]");
  const bool largest = ctx.opset() < 11 || ctx.node().GetInt("largest", 1) != 0;
  Shape out_shape = x.shape();
  out_shape[static_cast<size_t>(axis)] = k;
  Tensor values = ctx.AllocOutput(0, x.dtype(), out_shape);
  Tensor indices = ctx.AllocOutput(1, DType::kInt64, out_shape);
  const int64_t outer = DimProduct(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = DimProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  if (values.numel() == 0) return Status::Ok();
  Status st = DispatchElem<kSetAll>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      return Unimplemented(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
    } else {
      TopKLanes<T>(x.data<T>(), outer, dim, inner, k, largest, values.mutable_data<T>(),
                   indices.mutable_data<int64_t>());
      return Status::Ok();
    }
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "TopK", 1, kMaxOpset, TopKCompute);

}  // namespace
}  // namespace vt::ops
