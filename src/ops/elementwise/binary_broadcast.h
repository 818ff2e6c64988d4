// Elementwise engine shared by the unary, binary, comparison, variadic and Where kernels
// (ONNX Operators.md "Broadcasting in ONNX", multidirectional numpy rules).
//
// BroadcastPlan + ForEachRow: up to kMaxOperands inputs of any strided layout broadcast to a
// contiguous output. Dims of size 1 are dropped and adjacent dims that are contiguous for every
// operand are merged, so "same shape", "scalar operand" and "[C,1,1] over NCHW" all become rows
// whose inner stride is 1 or 0 and the row kernels below vectorise. Element types and dtype
// dispatch: ops/common/dtype_dispatch.h.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/common/dtype_dispatch.h"
#include "ops/common/op_util.h"

namespace vt::ops {

// ---------------------------------------------------------------------------------------------
// Broadcast plan.

inline constexpr int kMaxOperands = 3;
// Below this many output elements a kernel runs on the calling thread only.
inline constexpr int64_t kParallelMinElements = int64_t{1} << 16;
// Rows longer than this are split so a single huge row still spreads over threads.
inline constexpr int64_t kRowChunk = int64_t{1} << 14;

struct BroadcastPlan {
  int num_operands = 0;
  // Collapsed output dims, outermost first; never empty (rank-0 outputs become {1}).
  std::vector<int64_t> dims;
  // Element strides, strides[d * num_operands + k] for operand k along collapsed dim d;
  // 0 where the operand is broadcast.
  std::vector<int64_t> strides;
  int64_t numel = 0;

  int64_t stride(size_t d, int k) const {
    return strides[d * static_cast<size_t>(num_operands) + static_cast<size_t>(k)];
  }
};

// Plans the iteration of `out` (row-major, contiguous) over operands with arbitrary strided
// layouts (numpy-aligned on the right). Errors: InvalidArgument when an operand's shape does
// not broadcast to `out`, or more than kMaxOperands operands are given.
Expected<BroadcastPlan> MakeBroadcastPlan(const Shape& out, const std::vector<const Layout*>& ops);

// Calls row(out_offset, in_offsets, inner_strides, len) once per run of `len` consecutive output
// elements, where in_offsets/inner_strides are std::array<int64_t, N> of element offsets
// (relative to each operand's data<T>()) and strides along the run. Runs are independent and
// may execute on several OpenMP threads when plan.numel > kParallelMinElements and threads > 1.
template <int N, typename RowFn>
void ForEachRow(const BroadcastPlan& p, int threads, RowFn&& row) {
  if (p.numel == 0) return;
  const size_t rank = p.dims.size();
  const int64_t inner = p.dims[rank - 1];
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= p.dims[d];
  const int64_t chunk = std::min(inner, kRowChunk);
  const int64_t per_row = (inner + chunk - 1) / chunk;
  const int64_t tasks = rows * per_row;
  std::array<int64_t, N> inner_strides{};
  for (int k = 0; k < N; ++k) inner_strides[static_cast<size_t>(k)] = p.stride(rank - 1, k);

  // Runs tasks [begin, end): the outer index is decoded once, then advanced like an odometer.
  auto run = [&](int64_t begin, int64_t end) {
    if (begin >= end) return;
    std::vector<int64_t> idx(rank > 1 ? rank - 1 : 1, 0);
    std::array<int64_t, N> base{};
    int64_t r = begin / per_row;
    int64_t c = begin % per_row;
    for (size_t d = rank - 1; d-- > 0;) {
      idx[d] = r % p.dims[d];
      r /= p.dims[d];
      for (int k = 0; k < N; ++k) base[static_cast<size_t>(k)] += idx[d] * p.stride(d, k);
    }
    int64_t out_row = (begin / per_row) * inner;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t start = c * chunk;
      const int64_t len = std::min(chunk, inner - start);
      std::array<int64_t, N> off;
      for (int k = 0; k < N; ++k)
        off[static_cast<size_t>(k)] =
            base[static_cast<size_t>(k)] + start * inner_strides[static_cast<size_t>(k)];
      row(out_row + start, off, inner_strides, len);
      if (++c == per_row) {
        c = 0;
        out_row += inner;
        for (size_t d = rank - 1; d-- > 0;) {
          for (int k = 0; k < N; ++k) base[static_cast<size_t>(k)] += p.stride(d, k);
          if (++idx[d] < p.dims[d]) break;
          for (int k = 0; k < N; ++k) base[static_cast<size_t>(k)] -= idx[d] * p.stride(d, k);
          idx[d] = 0;
        }
      }
    }
  };
  if (threads > 1 && tasks > 1 && p.numel > kParallelMinElements) {
#pragma omp parallel num_threads(threads)
    {
      const int nt = omp_get_num_threads();
      const int tid = omp_get_thread_num();
      const int64_t per = (tasks + nt - 1) / nt;
      run(std::min<int64_t>(tasks, per * tid), std::min<int64_t>(tasks, per * (tid + 1)));
    }
  } else {
    run(0, tasks);
  }
}

// Splits [0, n) into contiguous chunks, in parallel when n > kParallelMinElements and
// threads > 1; f(begin, end).
template <typename F>
void ParallelChunks(int64_t n, int threads, F&& f) {
  if (threads > 1 && n > kParallelMinElements) {
    const int64_t chunks = (n + kRowChunk - 1) / kRowChunk;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t c = 0; c < chunks; ++c) f(c * kRowChunk, std::min(n, (c + 1) * kRowChunk));
  } else if (n > 0) {
    f(int64_t{0}, n);
  }
}

// ---------------------------------------------------------------------------------------------
// Row kernels: the contiguous (stride 1) and broadcast (stride 0) cases are separate loops so
// the compiler vectorises them; any other stride takes the generic loop. On x86-64 the
// floating-point contiguous loops also exist as AVX2 clones (same IEEE operations, no FMA
// contraction, so results are bit-identical) picked at run time when the CPU has AVX2.

template <typename T>
inline constexpr bool kSimdable = std::is_arithmetic_v<T> || kIsHalf<T>;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define VT_ELEMENTWISE_AVX2_CLONES 1
#define VT_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define VT_ELEMENTWISE_AVX2_CLONES 0
#define VT_TARGET_AVX2
#endif

// True when the AVX2 clones may run: the CPU has AVX2 and tests have not forced the generic
// loops (SetElementwiseAvx2ForTesting).
bool CpuHasAvx2();
inline bool g_elementwise_avx2_allowed = true;
inline bool UseElementwiseAvx2() {
  static const bool has = CpuHasAvx2();
  return has && g_elementwise_avx2_allowed;
}
inline void SetElementwiseAvx2ForTesting(bool enabled) { g_elementwise_avx2_allowed = enabled; }

// Rows shorter than this skip the vector dispatch (per-row overhead dominates there).
inline constexpr int64_t kShortRow = 8;

template <typename A, typename O>
inline constexpr bool kAvx2Row = VT_ELEMENTWISE_AVX2_CLONES && std::is_floating_point_v<A> &&
                                 std::is_same_v<A, O>;

// Contiguous loops; `kind` 0: a[i], b[i]; 1: a[i], b[0]; 2: a[0], b[i].
template <typename A, typename O, typename Op>
VT_TARGET_AVX2 void MapContigAvx2(const A* a, O* o, int64_t n, Op& op) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
}
template <typename A, typename B, typename O, typename Op>
VT_TARGET_AVX2 void ZipContigAvx2(const A* a, const B* b, O* o, int64_t n, int kind, Op& op) {
  if (kind == 0) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i]);
  } else if (kind == 1) {
    const B s = b[0];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], s);
  } else {
    const A s = a[0];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = op(s, b[i]);
  }
}

template <typename A, typename O, typename Op>
inline void MapRow(const A* a, int64_t sa, O* o, int64_t n, Op& op) {
  if (n < kShortRow) {
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i * sa]);
    return;
  }
  if (sa == 1) {
    if constexpr (kAvx2Row<A, O>) {
      if (UseElementwiseAvx2()) return MapContigAvx2(a, o, n, op);
    }
    if constexpr (kSimdable<A> && kSimdable<O>) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i]);
    }
  } else if (sa == 0) {
    const O v = op(a[0]);
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i * sa]);
  }
}

template <typename A, typename B, typename O, typename Op>
inline void ZipRow(const A* a, int64_t sa, const B* b, int64_t sb, O* o, int64_t n, Op& op) {
  constexpr bool simd = kSimdable<A> && kSimdable<B> && kSimdable<O>;
  if (n < kShortRow) {
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i * sa], b[i * sb]);
    return;
  }
  if constexpr (kAvx2Row<A, O> && std::is_same_v<A, B>) {
    const int kind = sa == 1 ? (sb == 1 ? 0 : sb == 0 ? 1 : -1) : (sa == 0 && sb == 1 ? 2 : -1);
    if (kind >= 0 && UseElementwiseAvx2()) return ZipContigAvx2(a, b, o, n, kind, op);
  }
  if (sa == 1 && sb == 1) {
    if constexpr (simd) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i]);
    }
  } else if (sa == 1 && sb == 0) {
    const B s = b[0];
    if constexpr (simd) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], s);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], s);
    }
  } else if (sa == 0 && sb == 1) {
    const A s = a[0];
    if constexpr (simd) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = op(s, b[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = op(s, b[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = op(a[i * sa], b[i * sb]);
  }
}

// ---------------------------------------------------------------------------------------------
// Whole-tensor drivers. `out` must be contiguous with the broadcast shape of the inputs (the
// caller allocated it); inputs may have any layout. Aliasing out with an input of the same shape
// is allowed (every element is read before it is written).

template <typename A, typename O, typename Op>
Status MapTensor(const Tensor& a, Tensor& out, int threads, Op op) {
  const int64_t n = out.numel();
  if (n == 0) return Status::Ok();
  const A* pa = a.data<A>();
  O* po = out.mutable_data<O>();
  if (a.is_contiguous() && a.numel() == n) {
    ParallelChunks(n, threads,
                   [&](int64_t lo, int64_t hi) { MapRow(pa + lo, 1, po + lo, hi - lo, op); });
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(BroadcastPlan plan, MakeBroadcastPlan(out.shape(), {&a.layout()}));
  ForEachRow<1>(plan, threads, [&](int64_t o, const auto& off, const auto& s, int64_t len) {
    MapRow(pa + off[0], s[0], po + o, len, op);
  });
  return Status::Ok();
}

template <typename A, typename B, typename O, typename Op>
Status ZipTensors(const Tensor& a, const Tensor& b, Tensor& out, int threads, Op op) {
  const int64_t n = out.numel();
  if (n == 0) return Status::Ok();
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  O* po = out.mutable_data<O>();
  const bool ac = a.is_contiguous() && a.numel() == n;
  const bool bc = b.is_contiguous() && b.numel() == n;
  if ((ac || a.numel() == 1) && (bc || b.numel() == 1)) {
    const int64_t sa = ac ? 1 : 0, sb = bc ? 1 : 0;
    ParallelChunks(n, threads, [&](int64_t lo, int64_t hi) {
      ZipRow(pa + lo * sa, sa, pb + lo * sb, sb, po + lo, hi - lo, op);
    });
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(BroadcastPlan plan,
                      MakeBroadcastPlan(out.shape(), {&a.layout(), &b.layout()}));
  ForEachRow<2>(plan, threads, [&](int64_t o, const auto& off, const auto& s, int64_t len) {
    ZipRow(pa + off[0], s[0], pb + off[1], s[1], po + o, len, op);
  });
  return Status::Ok();
}

template <typename A, typename B, typename C, typename O, typename Op>
Status Zip3Tensors(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out, int threads,
                   Op op) {
  const int64_t n = out.numel();
  if (n == 0) return Status::Ok();
  const A* pa = a.data<A>();
  const B* pb = b.data<B>();
  const C* pc = c.data<C>();
  O* po = out.mutable_data<O>();
  VT_ASSIGN_OR_RETURN(BroadcastPlan plan,
                      MakeBroadcastPlan(out.shape(), {&a.layout(), &b.layout(), &c.layout()}));
  ForEachRow<3>(plan, threads, [&](int64_t o, const auto& off, const auto& s, int64_t len) {
    const A* ra = pa + off[0];
    const B* rb = pb + off[1];
    const C* rc = pc + off[2];
    O* ro = po + o;
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
      for (int64_t i = 0; i < len; ++i) ro[i] = op(ra[i], rb[i], rc[i]);
    } else {
      for (int64_t i = 0; i < len; ++i) ro[i] = op(ra[i * s[0]], rb[i * s[1]], rc[i * s[2]]);
    }
  });
  return Status::Ok();
}

// Wraps an op on compute types into one on storage types S (identity unless S is a 16-bit
// float, which is widened to float and rounded back to nearest even).
template <typename S, typename Op>
auto LiftUnary(Op op) {
  if constexpr (kIsHalf<S>) {
    return [op](S v) { return ElemTraits<S>::Store(op(ElemTraits<S>::Load(v))); };
  } else {
    return op;
  }
}
template <typename S, typename Op>
auto LiftBinary(Op op) {
  if constexpr (kIsHalf<S>) {
    return [op](S x, S y) {
      return ElemTraits<S>::Store(op(ElemTraits<S>::Load(x), ElemTraits<S>::Load(y)));
    };
  } else {
    return op;
  }
}

}  // namespace vt::ops
