// Softmax, LogSoftmax, Hardmax (ONNX Operators.md).
//
// Before opset 13 the input is coerced to 2-D at `axis` (default 1): rows are the flattened
// dims [axis, rank). From opset 13 the op normalises along the single dim `axis` (default -1).
// Both are the [outer, n, inner] form; inner == 1 is the contiguous-row fast path, otherwise
// rows of `inner` running maxima/sums keep the inner loop unit-stride. Sums are folded in the
// blocks of blocked_fold.h (long rows stay accurate in float32).
#include <cmath>
#include <limits>

#include "ops/common/blocked_fold.h"
#include "ops/common/op_util.h"
#include "ops/common/reduce_dtype.h"
#include "ops/reduce/reduce_exp.h"
#include "ops/reduce/reduce_parallel.h"

namespace vt::ops {
namespace {

enum class Kind { kSoftmax, kLogSoftmax, kHardmax };

// Max over a row; NaN propagates (so a NaN row stays NaN).
template <typename T>
T RowMax(const T* x, int64_t n) {
  T mx = -std::numeric_limits<T>::infinity();
  bool nan = false;
#pragma omp simd reduction(max : mx) reduction(| : nan)
  for (int64_t r = 0; r < n; ++r) {
    mx = x[r] > mx ? x[r] : mx;
    nan |= x[r] != x[r];  // NOLINT(misc-redundant-expression): x != x is the NaN test that vectorises
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : mx;
}

// Shift that keeps exp(x - shift) <= 1: the max, or 0 when the max is infinite (a row of
// -inf then yields 0/0 = NaN like the reference; +inf yields NaN for the infinite entries).
template <typename T>
T SafeShift(T mx) {
  return std::isinf(mx) ? T(0) : mx;
}

template <typename T>
void SoftmaxRow(Kind k, const T* x, int64_t n, T* y) {
  if (k == Kind::kHardmax) {
    int64_t arg = 0;
    for (int64_t r = 1; r < n; ++r)
      if (x[r] > x[arg]) arg = r;
    for (int64_t r = 0; r < n; ++r) y[r] = T(0);
    if (n > 0) y[arg] = T(1);
    return;
  }
  const T shift = SafeShift(RowMax(x, n));
  auto add = [](T a, T b) { return a + b; };
  if (k == Kind::kSoftmax) {
#pragma omp simd
    for (int64_t r = 0; r < n; ++r) y[r] = ExpNonPositive<T>(x[r] - shift);
    const T sum = BlockedFold<T>(y, n, T(0), [](T e) { return e; }, add);
    const T inv = T(1) / sum;
#pragma omp simd
    for (int64_t r = 0; r < n; ++r) y[r] *= inv;
  } else {
    const T sum = BlockedFold<T>(x, n, T(0),
                                 [shift](T v) { return ExpNonPositive<T>(v - shift); }, add);
    const T off = shift + std::log(sum);
#pragma omp simd
    for (int64_t r = 0; r < n; ++r) y[r] = x[r] - off;
  }
}

// Same as SoftmaxRow for `inner` interleaved rows: x[r * inner + i].
template <typename T>
void SoftmaxStrided(Kind k, const T* x, int64_t n, int64_t inner, T* y) {
  if (k == Kind::kHardmax) {
    std::vector<int64_t> arg(static_cast<size_t>(inner), 0);
    for (int64_t r = 1; r < n; ++r)
      for (int64_t i = 0; i < inner; ++i)
        if (x[r * inner + i] > x[arg[i] * inner + i]) arg[i] = r;
    for (int64_t j = 0; j < n * inner; ++j) y[j] = T(0);
    if (n > 0)
      for (int64_t i = 0; i < inner; ++i) y[arg[i] * inner + i] = T(1);
    return;
  }
  std::vector<T> mx(static_cast<size_t>(inner), -std::numeric_limits<T>::infinity());
  std::vector<T> sum(static_cast<size_t>(inner), T(0));
  T* pm = mx.data();
  T* ps = sum.data();
  for (int64_t r = 0; r < n; ++r) {
    const T* row = x + r * inner;
    for (int64_t i = 0; i < inner; ++i)
      pm[i] = (row[i] > pm[i] || row[i] != row[i]) ? row[i] : pm[i];  // NOLINT(misc-redundant-expression)
  }
  for (int64_t i = 0; i < inner; ++i) pm[i] = SafeShift(pm[i]);
  auto add = [](T a, T b) { return a + b; };
  if (k == Kind::kSoftmax) {
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * inner;
      T* out = y + r * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) out[i] = ExpNonPositive<T>(row[i] - pm[i]);
    }
    BlockedFoldColumns<T>(y, n, inner, T(0), [](T e, int64_t) { return e; }, add, ps);
    for (int64_t i = 0; i < inner; ++i) ps[i] = T(1) / ps[i];
    for (int64_t r = 0; r < n; ++r) {
      T* out = y + r * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) out[i] *= ps[i];
    }
  } else {
    BlockedFoldColumns<T>(x, n, inner, T(0),
                          [pm](T v, int64_t i) { return ExpNonPositive<T>(v - pm[i]); }, add, ps);
    for (int64_t i = 0; i < inner; ++i) ps[i] = pm[i] + std::log(ps[i]);
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * inner;
      T* out = y + r * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) out[i] = row[i] - ps[i];
    }
  }
}

template <Kind K>
Status SoftmaxCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const bool coerce_2d = ctx.opset() < 13;
  const int rank = x0.rank();
  auto axis = NormalizeAxis(ctx.node().GetInt("axis", coerce_2d ? 1 : -1), rank);
  if (!axis.ok()) return ctx.Annotate(axis.take_status());
  const int a = static_cast<int>(*axis);
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < a) outer *= x0.dim(d);
    else if (d == a || coerce_2d) n *= x0.dim(d);
    else inner *= x0.dim(d);
  }
  const DType dt = x0.dtype();
  if (!IsFloatDType(dt))
    return ctx.Unsupported(std::string("dtype ") + DTypeName(dt) + " not supported");
  Tensor x = WidenForCompute(x0);
  Tensor y = AllocComputeOutput(ctx, 0, dt, x0.shape());
  if (x.numel() > 0) {
    Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
      using T = decltype(tag);
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      ParallelRows(outer, outer * n * inner * 4, ctx.threads(), [&](int64_t o) {
        const int64_t off = o * n * inner;
        if (inner == 1) SoftmaxRow<T>(K, px + off, n, py + off);
        else SoftmaxStrided<T>(K, px + off, n, inner, py + off);
      });
      return Status::Ok();
    });
    if (!st.ok()) return ctx.Annotate(std::move(st));
  }
  FinishOutput(ctx, 0, dt, y);
  return Status::Ok();
}

VT_REGISTER_OP("", "Softmax", 1, kMaxOpset, SoftmaxCompute<Kind::kSoftmax>);
VT_REGISTER_OP("", "LogSoftmax", 1, kMaxOpset, SoftmaxCompute<Kind::kLogSoftmax>);
VT_REGISTER_OP("", "Hardmax", 1, kMaxOpset, SoftmaxCompute<Kind::kHardmax>);

}  // namespace
}  // namespace vt::ops
