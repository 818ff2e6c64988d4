// ArgMax, ArgMin (ONNX Operators.md ArgMax-13 / ArgMin-13): int64 index of the first (or, with
// select_last_index=1, the last) extreme element along `axis`; keepdims keeps that axis as 1.
// NaN counts as the extreme value (numpy's argmax/argmin convention).
#include <cmath>
#include <type_traits>

#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

// True when `v` at a later index should replace the current best `b`.
template <typename T, bool kMax, bool kLast>
bool Better(T v, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return kLast && std::isnan(v);
    if (std::isnan(v)) return true;
  }
  if constexpr (kMax) return kLast ? v >= b : v > b;
  else return kLast ? v <= b : v < b;
}

template <typename T, bool kMax, bool kLast>
void ArgTyped(const T* x, int64_t outer, int64_t n, int64_t inner, int64_t* out, int threads) {
  ParallelRows(outer, outer * n * inner, threads, [&](int64_t o) {
    const T* base = x + o * n * inner;
    int64_t* idx = out + o * inner;
    if (inner == 1) {
      T best = base[0];
      int64_t bi = 0;
      for (int64_t r = 1; r < n; ++r)
        if (Better<T, kMax, kLast>(base[r], best)) {
          best = base[r];
          bi = r;
        }
      idx[0] = bi;
      return;
    }
    std::vector<T> best(base, base + inner);
    for (int64_t i = 0; i < inner; ++i) idx[i] = 0;
    for (int64_t r = 1; r < n; ++r) {
      const T* row = base + r * inner;
      for (int64_t i = 0; i < inner; ++i)
        if (Better<T, kMax, kLast>(row[i], best[i])) {
          best[i] = row[i];
          idx[i] = r;
        }
    }
  });
}

template <bool kMax>
Status ArgCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (x0.rank() == 0) return ctx.Error("input must have rank >= 1");
  auto axis = NormalizeAxis(ctx.node().GetInt("axis", 0), x0.rank());
  if (!axis.ok()) return ctx.Annotate(axis.take_status());
  const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
  const bool last = ctx.node().GetInt("select_last_index", 0) != 0;
  const int a = static_cast<int>(*axis);
  const int64_t n = x0.dim(a);

  Shape out_shape;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < x0.rank(); ++d) {
    if (d < a) outer *= x0.dim(d);
    if (d > a) inner *= x0.dim(d);
    if (d != a) out_shape.push_back(x0.dim(d));
    else if (keepdims) out_shape.push_back(1);
  }
  if (n == 0 && outer * inner > 0)
    return ctx.Error("cannot take the extreme of an empty axis " + std::to_string(a));
  Tensor out = ctx.AllocOutput(0, DType::kInt64, out_shape);
  if (out.numel() == 0) return Status::Ok();
  Tensor x = WidenForCompute(x0);  // 16-bit floats compare exactly after widening
  Status st = DispatchElem<kSetFloatInt>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    int64_t* po = out.mutable_data<int64_t>();
    if (last) ArgTyped<T, kMax, true>(x.data<T>(), outer, n, inner, po, ctx.threads());
    else ArgTyped<T, kMax, false>(x.data<T>(), outer, n, inner, po, ctx.threads());
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

VT_REGISTER_OP("", "ArgMax", 1, kMaxOpset, ArgCompute<true>);
VT_REGISTER_OP("", "ArgMin", 1, kMaxOpset, ArgCompute<false>);

}  // namespace
}  // namespace vt::ops
