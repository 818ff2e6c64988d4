// CumSum (ONNX Operators.md "CumSum", opset 11/14): running sum along `axis`, optionally
// exclusive (each output excludes its own element) and/or reversed. 16-bit floats
// accumulate in float.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

template <typename T>
void CumSumLanes(const T* x, T* y, int64_t outer, int64_t dim, int64_t inner, bool exclusive,
                 bool reverse) {
  using C = ElemTraits<T>;
  using V = ComputeOf<T>;
  std::vector<V> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), V{});
    for (int64_t s = 0; s < dim; ++s) {
      const int64_t j = reverse ? dim - 1 - s : s;
      const T* src = x + (o * dim + j) * inner;
      T* dst = y + (o * dim + j) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const V v = C::Load(src[i]);
        if (exclusive) {
          dst[i] = C::Store(acc[static_cast<size_t>(i)]);
          acc[static_cast<size_t>(i)] = static_cast<V>(acc[static_cast<size_t>(i)] + v);
        } else {
          acc[static_cast<size_t>(i)] = static_cast<V>(acc[static_cast<size_t>(i)] + v);
          dst[i] = C::Store(acc[static_cast<size_t>(i)]);
        }
      }
    }
  }
}

Status CumSumCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = x0.Contiguous();
  if (x.rank() == 0) return ctx.Error("input must have rank >= 1");
  VT_ASSIGN_OR_RETURN(Tensor a, ctx.RequireTensor(1));
  if (!IsIndexDType(a.dtype())) return ctx.Error("axis must be int32 or int64");
  VT_ASSIGN_OR_RETURN(int64_t axis_raw, ReadIntScalar(ctx, 1, "axis"));
  VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, axis_raw, x.rank()));
  const bool exclusive = ctx.node().GetInt("exclusive", 0) != 0;
  const bool reverse = ctx.node().GetInt("reverse", 0) != 0;
  Tensor y = ctx.AllocOutput(0, x.dtype(), x.shape());
  const int64_t outer = DimProduct(x.shape(), 0, static_cast<size_t>(axis));
  const int64_t dim = x.dim(static_cast<int>(axis));
  const int64_t inner = DimProduct(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size());
  Status st = DispatchElem<kSetAll>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      return Unimplemented(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
    } else {
      CumSumLanes<T>(x.data<T>(), y.mutable_data<T>(), outer, dim, inner, exclusive, reverse);
      return Status::Ok();
    }
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "CumSum", 11, kMaxOpset, CumSumCompute);

}  // namespace
}  // namespace vt::ops
