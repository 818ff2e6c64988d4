// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceSumSquare (ONNX Operators.md; axes attribute before ReduceSum-13 and
// the other Reduce*-18, an optional axes input from then on; keepdims; noop_with_empty_axes).
//
// Every reduction runs on the [outer, reduce, inner] form of reduce_plan.h: the innermost case
// folds contiguous rows with independent partial accumulators, the strided case folds whole
// rows of `inner` accumulators so the inner loop is unit-stride. Empty reductions give the
// identity of the fold (0 for sums, 1 for Prod, -inf/+inf or the integer limits for Max/Min,
// NaN for Mean of floats, -inf for LogSum/LogSumExp), as in ReduceSum-18's spec text.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/common/blocked_fold.h"
#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_exp.h"
#include "ops/reduce/reduce_parallel.h"
#include "ops/reduce/reduce_plan.h"

namespace vt::ops {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// Accumulator of a sum-like fold: float stays float (fast, and the blocked partial accumulators
// keep the error low; blocked_fold.h); integers accumulate in uint64_t, which wraps
// like two's complement without signed-overflow UB, and are reinterpreted at the end.
template <typename T>
using SumAcc = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;

// v widened to its accumulator (sign-extended for signed integers).
template <typename A, typename T>
A Widen(T v) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return static_cast<A>(static_cast<int64_t>(v));
  else return static_cast<A>(v);
}

template <typename A, typename T>
A AbsOf(T v) {
  if constexpr (std::is_unsigned_v<T>) return static_cast<A>(v);
  else if constexpr (std::is_integral_v<T>) return v < 0 ? A(0) - Widen<A>(v) : Widen<A>(v);
  else return static_cast<A>(std::fabs(v));
}

// Accumulator back to T; integer means divide the signed (or unsigned) total.
template <typename T, typename A>
T Finish(A a, bool mean, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(mean ? a / static_cast<A>(n) : a);  // 0/0 = NaN when empty
  } else if constexpr (std::is_signed_v<T>) {
    const int64_t v = static_cast<int64_t>(a);
    return static_cast<T>(mean ? (n > 0 ? v / n : 0) : v);
  } else {
    return static_cast<T>(mean ? (n > 0 ? a / static_cast<uint64_t>(n) : 0) : a);
  }
}

// Folds x = [outer, reduce, inner] into acc[outer * inner] with acc = comb(acc, map(x)), in the
// blocks of blocked_fold.h: rows (inner == 1) keep kFoldLanes independent accumulators so the
// loop vectorises, strided rows update `inner` accumulators with unit stride; long reductions
// are combined pairwise block by block, which keeps float sums accurate.
template <typename T, typename A, typename Map, typename Comb>
void Fold(const T* x, int64_t outer, int64_t reduce, int64_t inner, A init, Map map, Comb comb,
          A* acc, int threads) {
  const int64_t work = outer * reduce * inner;
  if (inner == 1) {
    ParallelRows(outer, work, threads, [&](int64_t o) {
      acc[o] = BlockedFold<A>(x + o * reduce, reduce, init, map, comb);
    });
    return;
  }
  ParallelRows(outer, work, threads, [&](int64_t o) {
    BlockedFoldColumns<A>(x + o * reduce * inner, reduce, inner, init,
                          [&](T v, int64_t) { return map(v); }, comb, acc + o * inner);
  });
}

// Max/min that propagate NaN like numpy's maximum.reduce.
template <typename T>
T MaxProp(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a >= b || std::isnan(a)) ? a : b;
  else return a >= b ? a : b;
}
template <typename T>
T MinProp(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a <= b || std::isnan(a)) ? a : b;
  else return a <= b ? a : b;
}

template <typename T>
void ReduceMaxMin(bool is_max, const T* x, int64_t outer, int64_t reduce, int64_t inner, T* out,
                  int threads) {
  if (is_max) {
    const T init = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                               : std::numeric_limits<T>::lowest();
    Fold<T, T>(x, outer, reduce, inner, init, [](T v) { return v; },
               [](T a, T b) { return MaxProp(a, b); }, out, threads);
  } else {
    const T init = std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                               : std::numeric_limits<T>::max();
    Fold<T, T>(x, outer, reduce, inner, init, [](T v) { return v; },
               [](T a, T b) { return MinProp(a, b); }, out, threads);
  }
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m the max, so large inputs do not overflow.
// m = -inf (empty or all -inf) gives -inf, m = +inf gives +inf, NaN propagates.
template <typename T>
void ReduceLogSumExp(const T* x, int64_t outer, int64_t reduce, int64_t inner, T* out,
                     int threads) {
  const int64_t n = outer * inner;
  std::vector<T> mx(static_cast<size_t>(n));
  ReduceMaxMin<T>(true, x, outer, reduce, inner, mx.data(), threads);
  ParallelRows(outer, outer * reduce * inner * 8, threads, [&](int64_t o) {
    const T* m = mx.data() + o * inner;
    const T* base = x + o * reduce * inner;
    T* y = out + o * inner;
    auto add = [](T a, T b) { return a + b; };
    if (inner == 1) {
      const T shift = m[0];
      const T sum = BlockedFold<T>(base, reduce, T(0),
                                   [shift](T v) { return ExpNonPositive<T>(v - shift); }, add);
      y[0] = std::isfinite(shift) ? shift + std::log(sum) : shift;
      return;
    }
    std::vector<T> sum(static_cast<size_t>(inner));
    T* ps = sum.data();
    BlockedFoldColumns<T>(base, reduce, inner, T(0),
                          [m](T v, int64_t i) { return ExpNonPositive<T>(v - m[i]); }, add, ps);
    for (int64_t i = 0; i < inner; ++i) y[i] = std::isfinite(m[i]) ? m[i] + std::log(ps[i]) : m[i];
  });
}

template <typename T>
void ReduceTyped(Kind k, const T* x, int64_t outer, int64_t reduce, int64_t inner, T* out,
                 int threads) {
  using A = SumAcc<T>;
  const size_t n = static_cast<size_t>(outer * inner);
  if (k == Kind::kMax || k == Kind::kMin) {
    ReduceMaxMin<T>(k == Kind::kMax, x, outer, reduce, inner, out, threads);
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (k == Kind::kLogSumExp) {
      ReduceLogSumExp<T>(x, outer, reduce, inner, out, threads);
      return;
    }
  }
  std::vector<A> acc(n);
  auto add = [](A a, A b) { return static_cast<A>(a + b); };
  auto widen = [](T v) { return Widen<A>(v); };
  switch (k) {
    case Kind::kProd:
      Fold<T, A>(x, outer, reduce, inner, A(1), widen,
                 [](A a, A b) { return static_cast<A>(a * b); }, acc.data(), threads);
      break;
    case Kind::kL1:
      Fold<T, A>(x, outer, reduce, inner, A(0), [](T v) { return AbsOf<A>(v); }, add, acc.data(),
                 threads);
      break;
    case Kind::kL2:
    case Kind::kSumSquare:
      Fold<T, A>(x, outer, reduce, inner, A(0),
                 [](T v) { return static_cast<A>(Widen<A>(v) * Widen<A>(v)); }, add, acc.data(),
                 threads);
      break;
    default:  // kSum, kMean, kLogSum
      Fold<T, A>(x, outer, reduce, inner, A(0), widen, add, acc.data(), threads);
      break;
  }
  for (size_t i = 0; i < n; ++i) {
    A a = acc[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (k == Kind::kL2) a = std::sqrt(a);
      if (k == Kind::kLogSum) a = std::log(a);
    }
    out[i] = Finish<T>(a, k == Kind::kMean, reduce);
  }
}

Status Reduce(KernelContext& ctx, Kind kind, int64_t axes_input_opset) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  if (ctx.has_input(1) && ctx.opset() < axes_input_opset)
    return ctx.Error("axes is an attribute before opset " + std::to_string(axes_input_opset));
  bool noop = false;
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadReduceAxes(ctx, x.rank(), &noop));
  const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
  const DType dt = x.dtype();
  const bool bool_extreme = dt == DType::kBool && (kind == Kind::kMax || kind == Kind::kMin);
  if (!IsFloatDType(dt) && !IsIntegerDType(dt) && !bool_extreme)
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  // ReduceMax/ReduceMin-20 accept bool: any / all, computed on the 0/1 bytes.
  if (bool_extreme) x = Tensor(DType::kUInt8, x.layout(), x.storage());

  // Integer L2 / LogSum / LogSumExp: compute in double, truncate to the input type like a
  // numpy astype.
  const bool transcendental = kind == Kind::kL2 || kind == Kind::kLogSum || kind == Kind::kLogSumExp;
  if (IsIntegerDType(dt) && transcendental) x = CastTensor(x, DType::kFloat64);

  ReducePlan plan = PlanReduce(x.shape(), axes, keepdims);
  if (noop) {
    axes.clear();
    plan = PlanReduce(x.shape(), axes, true);
  }
  Tensor xin = ArrangeForReduce(WidenForCompute(x), plan);
  const DType cdt = xin.dtype();
  const bool via_double = cdt != ComputeDType(dt) && !bool_extreme;
  Tensor out = via_double ? Tensor::Empty(cdt, plan.out_shape)
                          : AllocComputeOutput(ctx, 0, dt, plan.out_shape);
  if (out.numel() > 0) {
    Status st = DispatchElem<kSetFloatInt>(cdt, [&](auto tag) -> Status {
      using T = decltype(tag);
      ReduceTyped<T>(kind, xin.data<T>(), plan.outer, plan.reduce, plan.inner,
                     out.mutable_data<T>(), ctx.threads());
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
  }
  if (via_double) {
    Tensor real = ctx.AllocOutput(0, dt, plan.out_shape);
    StoreDoubles(real, ToDoubleVector(out));
    return Status::Ok();
  }
  FinishOutput(ctx, 0, dt, out);
  return Status::Ok();
}

template <Kind K, int64_t AxesInputOpset>
Status ReduceCompute(KernelContext& ctx) {
  return Reduce(ctx, K, AxesInputOpset);
}

VT_REGISTER_OP("", "ReduceSum", 1, kMaxOpset, (ReduceCompute<Kind::kSum, 13>));
VT_REGISTER_OP("", "ReduceMean", 1, kMaxOpset, (ReduceCompute<Kind::kMean, 18>));
VT_REGISTER_OP("", "ReduceMax", 1, kMaxOpset, (ReduceCompute<Kind::kMax, 18>));
VT_REGISTER_OP("", "ReduceMin", 1, kMaxOpset, (ReduceCompute<Kind::kMin, 18>));
VT_REGISTER_OP("", "ReduceProd", 1, kMaxOpset, (ReduceCompute<Kind::kProd, 18>));
VT_REGISTER_OP("", "ReduceL1", 1, kMaxOpset, (ReduceCompute<Kind::kL1, 18>));
VT_REGISTER_OP("", "ReduceL2", 1, kMaxOpset, (ReduceCompute<Kind::kL2, 18>));
VT_REGISTER_OP("", "ReduceLogSum", 1, kMaxOpset, (ReduceCompute<Kind::kLogSum, 18>));
VT_REGISTER_OP("", "ReduceLogSumExp", 1, kMaxOpset, (ReduceCompute<Kind::kLogSumExp, 18>));
VT_REGISTER_OP("", "ReduceSumSquare", 1, kMaxOpset, (ReduceCompute<Kind::kSumSquare, 18>));

}  // namespace
}  // namespace vt::ops
