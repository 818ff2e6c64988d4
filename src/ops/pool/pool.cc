// Pooling (ONNX Operators.md): MaxPool (with the optional Indices output, storage_order,
// ceil_mode, dilations), AveragePool (count_include_pad, ceil_mode, dilations), LpPool,
// GlobalAveragePool, GlobalMaxPool, GlobalLpPool and MaxUnpool, for any number of spatial
// axes. X is [N, C, D1..Dn]; every (n, c) plane is pooled independently.
//
// Floating types compute in their own precision (f32, f64); f16/bf16 go through f32. MaxPool
// also takes int8/uint8 (opset 12).
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/flush_denormals.h"
#include "ops/common/blocked_fold.h"
#include "ops/nn/conv_geometry.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

constexpr int kMaxRank = 8;

// The valid part of one output position's window: along axis i the taps j in [lo[i], hi[i])
// read input position start[i] + j * dilation[i].
struct Window {
  int64_t start[kMaxRank], lo[kMaxRank], hi[kMaxRank];
};

class WindowWalker {
 public:
  explicit WindowWalker(const SpatialGeometry& g) : g_(g), r_(static_cast<int>(g.rank())) {
    int64_t s = 1;
    for (int i = r_ - 1; i >= 0; --i) {
      in_stride_[i] = s;
      s *= g.in[static_cast<size_t>(i)];
    }
    // Windows are separable: one (start, lo, hi) table per axis, computed once (the divisions
    // would otherwise dominate small windows).
    for (int i = 0; i < r_; ++i) {
      const size_t a = static_cast<size_t>(i);
      const int64_t d = g.dilation[a], in = g.in[a], k = g.kernel[a];
      axis_[a].resize(static_cast<size_t>(g.out[a]));
      for (int64_t o = 0; o < g.out[a]; ++o) {
        const int64_t st = o * g.stride[a] - g.pad_begin[a];
        AxisWindow& w = axis_[a][static_cast<size_t>(o)];
        w.start = st;
        w.lo = st >= 0 ? 0 : std::min(k, (-st + d - 1) / d);
        w.hi = st >= in ? 0 : std::min(k, (in - st + d - 1) / d);
        if (w.hi < w.lo) w.hi = w.lo;
      }
    }
  }
  int rank() const { return r_; }
  int64_t in_stride(int i) const { return in_stride_[i]; }

  struct AxisWindow {
    int64_t start, lo, hi;
  };
  // Window of output index o along spatial axis `axis`.
  const AxisWindow& axis_window(int axis, int64_t o) const {
    return axis_[static_cast<size_t>(axis)][static_cast<size_t>(o)];
  }

  // Calls f(out_flat, window) for every output position in row-major order.
  template <typename F>
  void ForEachOutput(F&& f) const {
    int64_t o[kMaxRank] = {};
    const int64_t total = g_.out_numel();
    Window w;
    for (int64_t flat = 0; flat < total; ++flat) {
      for (int i = 0; i < r_; ++i) {
        const AxisWindow& aw = axis_[static_cast<size_t>(i)][static_cast<size_t>(o[i])];
        w.start[i] = aw.start;
        w.lo[i] = aw.lo;
        w.hi[i] = aw.hi;
      }
      f(flat, w);
      for (int i = r_ - 1; i >= 0; --i) {
        if (++o[i] < g_.out[static_cast<size_t>(i)]) break;
        o[i] = 0;
      }
    }
  }

  // Calls f(in_offset) for every valid tap of `w`.
  template <typename F>
  void ForEachTap(const Window& w, F&& f) const {
    for (int i = 0; i < r_; ++i)
      if (w.lo[i] >= w.hi[i]) return;
    if (r_ == 1) {
      const int64_t d = g_.dilation[0];
      for (int64_t j = w.lo[0]; j < w.hi[0]; ++j) f(w.start[0] + j * d);
      return;
    }
    if (r_ == 2) {
      const int64_t dh = g_.dilation[0], dw = g_.dilation[1], W = g_.in[1];
      for (int64_t jh = w.lo[0]; jh < w.hi[0]; ++jh) {
        const int64_t row = (w.start[0] + jh * dh) * W + w.start[1];
        for (int64_t jw = w.lo[1]; jw < w.hi[1]; ++jw) f(row + jw * dw);
      }
      return;
    }
    int64_t j[kMaxRank];
    for (int i = 0; i < r_; ++i) j[i] = w.lo[i];
    while (true) {
      int64_t off = 0;
      for (int i = 0; i < r_; ++i)
        off += (w.start[i] + j[i] * g_.dilation[static_cast<size_t>(i)]) * in_stride_[i];
      f(off);
      int i = r_ - 1;
      for (; i >= 0; --i) {
        if (++j[i] < w.hi[i]) break;
        j[i] = w.lo[i];
      }
      if (i < 0) break;
    }
  }

  // Taps of `w` inside the input extended by the pads (count_include_pad divisor).
  int64_t PaddedCount(const Window& w) const {
    int64_t n = 1;
    for (int i = 0; i < r_; ++i) {
      const size_t a = static_cast<size_t>(i);
      const int64_t lim = g_.in[a] + g_.pad_end[a] - w.start[i];
      const int64_t d = g_.dilation[a];
      n *= lim <= 0 ? 0 : std::min(g_.kernel[a], (lim + d - 1) / d);
    }
    return n;
  }
  static int64_t ValidCount(const Window& w, int r) {
    int64_t n = 1;
    for (int i = 0; i < r; ++i) n *= w.hi[i] - w.lo[i];
    return n;
  }

 private:
  const SpatialGeometry& g_;
  int r_;
  int64_t in_stride_[kMaxRank];
  std::vector<AxisWindow> axis_[kMaxRank];
};

struct PoolSetup {
  SpatialGeometry geo;
  int64_t N = 0, C = 0;
  Shape out_shape;
};

Expected<PoolSetup> SetupPool(const KernelContext& ctx, const Tensor& X, bool global,
                              bool with_dilations, bool ceil_mode) {
  if (X.rank() < 3) return ctx.Error("X must have rank >= 3, got " + ShapeToString(X.shape()));
  if (X.rank() - 2 > kMaxRank) return ctx.Unsupported("more than 8 spatial axes");
  PoolSetup s;
  s.N = X.dim(0);
  s.C = X.dim(1);
  std::vector<int64_t> in(X.shape().begin() + 2, X.shape().end());
  if (global) {
    s.geo.in = in;
    s.geo.kernel = in;
    s.geo.stride.assign(in.size(), 1);
    s.geo.dilation.assign(in.size(), 1);
    s.geo.pad_begin.assign(in.size(), 0);
    s.geo.pad_end.assign(in.size(), 0);
    s.geo.out.assign(in.size(), 1);
  } else {
    std::vector<int64_t> ks = ctx.node().GetInts("kernel_shape");
    if (ks.empty()) return ctx.Error("kernel_shape is required");
    VT_ASSIGN_OR_RETURN(s.geo, ComputeForwardGeometry(ctx, in, ks, with_dilations, ceil_mode));
  }
  s.out_shape = {s.N, s.C};
  s.out_shape.insert(s.out_shape.end(), s.geo.out.begin(), s.geo.out.end());
  return s;
}

enum class Reduce { kAverage, kLp };

// AveragePool / LpPool on one dtype T (float or double).
// 1-D/2-D max or average pooling without indices: windows from the per-axis tables and a
// branch-free max (data-dependent branches mispredict half the time on real activations).
template <typename T, bool kMax>
void Pool2d(const SpatialGeometry& geo, int64_t planes, const T* x, T* y, bool count_include_pad) {
  const WindowWalker walker(geo);
  const bool one = geo.rank() == 1;
  const int wa = one ? 0 : 1;
  const int64_t OH = one ? 1 : geo.out[0], OW = geo.out[static_cast<size_t>(wa)];
  const int64_t W = geo.in[static_cast<size_t>(wa)];
  const int64_t dh = one ? 0 : geo.dilation[0], dw = geo.dilation[static_cast<size_t>(wa)];
  const int64_t in_sz = NumElements(geo.in);
  const WindowWalker::AxisWindow unit{0, 0, 1};
  // Max pooling: the columns [ow0, ow1) whose windows lie inside the row are taken a window tap
  // at a time across the whole run of columns (a vectorisable loop); every output still takes
  // its taps in the order (row, column) of the loop below, so the result is the same.
  const int64_t KW = geo.kernel[static_cast<size_t>(wa)], SW = geo.stride[static_cast<size_t>(wa)];
  auto full = [&](int64_t ow) {
    const auto& ww = walker.axis_window(wa, ow);
    return ww.lo == 0 && ww.hi == KW;
  };
  int64_t ow0 = 0, ow1 = 0;
  if constexpr (kMax) {
    while (ow0 < OW && !full(ow0)) ++ow0;
    ow1 = ow0;
    while (ow1 < OW && full(ow1)) ++ow1;
  }
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* xp = x + pl * in_sz;
    T* yp = y + pl * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const auto& hw = one ? unit : walker.axis_window(0, oh);
      if constexpr (kMax) {
        T* yr = yp + oh * OW;
        for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] = std::numeric_limits<T>::lowest();
        for (int64_t jh = hw.lo; jh < hw.hi; ++jh) {
          const T* row = xp + (hw.start + jh * dh) * W;
          for (int64_t jw = 0; jw < KW; ++jw) {
            const int64_t off = jw * dw - geo.pad_begin[static_cast<size_t>(wa)];
#pragma omp simd
            for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] = std::max(yr[ow], row[ow * SW + off]);
          }
        }
      }
      for (int64_t ow = 0; ow < OW; ++ow) {
        if (kMax && ow == ow0 && ow1 > ow0) {
          ow = ow1 - 1;
          continue;
        }
        const auto& ww = walker.axis_window(wa, ow);
        T acc = kMax ? std::numeric_limits<T>::lowest() : T(0);
        for (int64_t jh = hw.lo; jh < hw.hi; ++jh) {
          const T* row = xp + (hw.start + jh * dh) * W + ww.start;
          for (int64_t jw = ww.lo; jw < ww.hi; ++jw) {
            if constexpr (kMax) {
              acc = std::max(acc, row[jw * dw]);
            } else {
              acc += row[jw * dw];
            }
          }
        }
        if constexpr (!kMax) {
          Window w{};
          w.start[0] = hw.start;
          w.lo[0] = hw.lo;
          w.hi[0] = hw.hi;
          w.start[1] = ww.start;
          w.lo[1] = ww.lo;
          w.hi[1] = ww.hi;
          int64_t n = (hw.hi - hw.lo) * (ww.hi - ww.lo);
          if (count_include_pad) {
            n = walker.PaddedCount(one ? Window{{ww.start}, {ww.lo}, {ww.hi}} : w);
          }
          acc = n > 0 ? acc / static_cast<T>(n) : T(0);
        }
        yp[oh * OW + ow] = acc;
      }
    }
  }
}

template <typename T>
void AverageOrLp(const SpatialGeometry& geo, int64_t planes, const T* x, T* y, Reduce op,
                 bool count_include_pad, double p) {
  const WindowWalker walker(geo);
  const int64_t in_sz = NumElements(geo.in), out_sz = geo.out_numel();
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* xp = x + pl * in_sz;
    T* yp = y + pl * out_sz;
    walker.ForEachOutput([&](int64_t o, const Window& w) {
      if (op == Reduce::kAverage) {
        T sum = 0;
        walker.ForEachTap(w, [&](int64_t off) { sum += xp[off]; });
        const int64_t n = count_include_pad ? walker.PaddedCount(w)
                                            : WindowWalker::ValidCount(w, walker.rank());
        yp[o] = n > 0 ? sum / static_cast<T>(n) : T(0);
      } else {
        double sum = 0;
        if (p == 2.0) {
          walker.ForEachTap(w, [&](int64_t off) { sum += double(xp[off]) * xp[off]; });
          yp[o] = static_cast<T>(std::sqrt(sum));
        } else {
          walker.ForEachTap(w, [&](int64_t off) { sum += std::pow(std::fabs(double(xp[off])), p); });
          yp[o] = static_cast<T>(std::pow(sum, 1.0 / p));
        }
      }
    });
  }
}

// Runs `body(x_f, y_f)` on T = float/double tensors, converting f16/bf16 through f32.
template <typename Body>
Status WithFloatPlanes(KernelContext& ctx, const Tensor& X, const Shape& out_shape, Body&& body) {
  const kernels::ScopedFlushDenormals ftz;  // sums of subnormal activations take assists
  const DType dt = X.dtype();
  if (dt == DType::kFloat64) {
    Tensor x = X.Contiguous();
    Tensor y = ctx.AllocOutput(0, dt, out_shape);
    body(x.data<double>(), y.mutable_data<double>());
    return Status::Ok();
  }
  if (!IsF32Computable(dt)) return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  Tensor x = AsF32(X);
  Tensor y = ctx.AllocOutput(0, dt, out_shape);
  Tensor yf = dt == DType::kFloat32 ? y : Tensor::Empty(DType::kFloat32, out_shape);
  body(x.data<float>(), yf.mutable_data<float>());
  if (dt != DType::kFloat32) StoreF32As(yf, y);
  return Status::Ok();
}

Status AveragePoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  const bool ceil_mode = ctx.node().GetInt("ceil_mode", 0) != 0;
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, false, true, ceil_mode));
  const bool include = ctx.node().GetInt("count_include_pad", 0) != 0;
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    if (s.geo.rank() <= 2) {
      Pool2d<T, false>(s.geo, s.N * s.C, x, y, include);
    } else {
      AverageOrLp(s.geo, s.N * s.C, x, y, Reduce::kAverage, include, 0.0);
    }
  });
}

// LpPool-1 has a float `p`, later versions an int; both default to 2.
double LpExponent(const Node& node) {
  const Attribute* a = node.FindAttr("p");
  if (a == nullptr) return 2.0;
  return a->type == Attribute::Type::kFloat ? double(a->f) : double(a->i);
}

Status LpPoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  const bool ceil_mode = ctx.node().GetInt("ceil_mode", 0) != 0;
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, false, true, ceil_mode));
  const double p = LpExponent(ctx.node());
  if (!(p > 0)) return ctx.Error("p must be positive");
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    AverageOrLp(s.geo, s.N * s.C, x, y, Reduce::kLp, false, p);
  });
}

Status GlobalLpPoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, true, false, false));
  const double p = LpExponent(ctx.node());
  if (!(p > 0)) return ctx.Error("p must be positive");
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    AverageOrLp(s.geo, s.N * s.C, x, y, Reduce::kLp, false, p);
  });
}

Status GlobalAveragePoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, true, false, false));
  const int64_t planes = s.N * s.C, n = NumElements(s.geo.in);
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    for (int64_t pl = 0; pl < planes; ++pl) {
      // Blocked partial sums (blocked_fold.h): vectorisable and accurate on large planes.
      T sum;
      if constexpr (std::is_same_v<T, float>) {
        sum = BlockedSumF32(x + pl * n, n);
      } else {
        sum = BlockedFold<T>(x + pl * n, n, T(0), [](T v) { return v; },
                             [](T a, T b) { return a + b; });
      }
      y[pl] = n > 0 ? sum / static_cast<T>(n) : T(0);
    }
  });
}

// MaxPool on one dtype; `idx` (may be null) receives flat indices into X.
template <typename T>
void MaxPoolTyped(const SpatialGeometry& geo, int64_t planes, const T* x, T* y, int64_t* idx,
                  bool column_major) {
  const WindowWalker walker(geo);
  const int r = walker.rank();
  const int64_t in_sz = NumElements(geo.in), out_sz = geo.out_numel();
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* xp = x + pl * in_sz;
    T* yp = y + pl * out_sz;
    walker.ForEachOutput([&](int64_t o, const Window& w) {
      // Branch-free (data-dependent branches mispredict half the time): NaN wins and stays
      // (v != v only for NaN; no conversion, which would take a microcode assist on subnormal
      // inputs). An empty window yields lowest() and index 0.
      T best = std::numeric_limits<T>::lowest();
      int64_t best_off = -1;
      if (idx == nullptr) {
        walker.ForEachTap(w, [&](int64_t off) {
          const T v = xp[off];
          best = (v > best || v != v) ? v : best;  // NOLINT(misc-redundant-expression): see above
        });
      } else {
        walker.ForEachTap(w, [&](int64_t off) {
          const T v = xp[off];
          // NOLINTNEXTLINE(misc-redundant-expression): NaN tests, see above
          const bool take = best_off < 0 || v > best || (v != v && best == best);
          best = take ? v : best;
          best_off = take ? off : best_off;
        });
      }
      yp[o] = best;
      if (idx != nullptr) {
        int64_t index = best_off < 0 ? 0 : best_off;
        if (column_major && best_off >= 0) {
          // Row-major offset -> per-axis position -> column-major offset.
          int64_t rest = best_off, cm = 0, scale = 1;
          int64_t pos[kMaxRank];
          for (int i = r - 1; i >= 0; --i) {
            pos[i] = rest % geo.in[static_cast<size_t>(i)];
            rest /= geo.in[static_cast<size_t>(i)];
          }
          for (int i = 0; i < r; ++i) {
            cm += pos[i] * scale;
            scale *= geo.in[static_cast<size_t>(i)];
          }
          index = cm;
        }
        idx[pl * out_sz + o] = pl * in_sz + index;
      }
    });
  }
}

Status MaxPoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  const bool ceil_mode = ctx.node().GetInt("ceil_mode", 0) != 0;
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, false, true, ceil_mode));
  const bool column_major = ctx.node().GetInt("storage_order", 0) != 0;
  int64_t* idx = nullptr;
  if (ctx.num_outputs() > 1 && ctx.output_requested(1))
    idx = ctx.AllocOutput(1, DType::kInt64, s.out_shape).mutable_data<int64_t>();
  const int64_t planes = s.N * s.C;
  const DType dt = X.dtype();
  if (dt == DType::kInt8 || dt == DType::kUInt8) {
    Tensor x = X.Contiguous();
    Tensor y = ctx.AllocOutput(0, dt, s.out_shape);
    if (dt == DType::kInt8) {
      MaxPoolTyped(s.geo, planes, x.data<int8_t>(), y.mutable_data<int8_t>(), idx, column_major);
    } else {
      MaxPoolTyped(s.geo, planes, x.data<uint8_t>(), y.mutable_data<uint8_t>(), idx,
                   column_major);
    }
    return Status::Ok();
  }
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(x)>>;
    if (idx == nullptr && s.geo.rank() <= 2) {
      Pool2d<T, true>(s.geo, planes, x, y, false);
    } else {
      MaxPoolTyped(s.geo, planes, x, y, idx, column_major);
    }
  });
}

Status GlobalMaxPoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(PoolSetup s, SetupPool(ctx, X, true, false, false));
  return WithFloatPlanes(ctx, X, s.out_shape, [&](const auto* x, auto* y) {
    MaxPoolTyped(s.geo, s.N * s.C, x, y, nullptr, false);
  });
}

// MaxUnpool: Y = zeros(output shape); Y.flat[I[j]] = X[j].
Status MaxUnpoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor I, ctx.RequireTensor(1));
  if (X.rank() < 3) return ctx.Error("X must have rank >= 3, got " + ShapeToString(X.shape()));
  if (I.shape() != X.shape())
    return ctx.Error("I " + ShapeToString(I.shape()) + " must have the shape of X " +
                     ShapeToString(X.shape()));
  if (I.dtype() != DType::kInt64) return ctx.Error("I must be int64");
  const size_t r = static_cast<size_t>(X.rank() - 2);
  // The indices address the default unpooled shape; an explicit output_shape may enlarge it,
  // the extra positions (at the end of each axis) staying zero.
  std::vector<int64_t> ks = ctx.node().GetInts("kernel_shape");
  if (ks.size() != r) return ctx.Error("kernel_shape must have " + std::to_string(r) + " values");
  std::vector<int64_t> st = ctx.node().GetInts("strides");
  if (st.empty()) st.assign(r, 1);
  std::vector<int64_t> pads = ctx.node().GetInts("pads");
  if (pads.empty()) pads.assign(2 * r, 0);
  if (st.size() != r || pads.size() != 2 * r) return ctx.Error("bad strides or pads length");
  Shape def_shape = {X.dim(0), X.dim(1)};
  for (size_t i = 0; i < r; ++i) {
    const int64_t d = (X.dim(static_cast<int>(i + 2)) - 1) * st[i] - pads[i] - pads[i + r] + ks[i];
    if (d < 0) return ctx.Error("negative output extent on spatial axis " + std::to_string(i));
    def_shape.push_back(d);
  }
  Shape out_shape = def_shape;
  if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    out_shape = ToInt64Vector(ctx.input(2));
    if (out_shape.size() != static_cast<size_t>(X.rank()))
      return ctx.Error("output_shape must have " + std::to_string(X.rank()) + " values");
    for (size_t i = 0; i < out_shape.size(); ++i)
      if (out_shape[i] < def_shape[i])
        return ctx.Error("output_shape " + ShapeToString(out_shape) +
                         " is smaller than the unpooled shape " + ShapeToString(def_shape));
  }
  const int64_t def_n = NumElements(def_shape);
  Tensor ix = I.Contiguous();
  std::vector<int64_t> target(static_cast<size_t>(ix.numel()));
  const auto def_strides = RowMajorStrides(def_shape), out_strides = RowMajorStrides(out_shape);
  for (int64_t j = 0; j < ix.numel(); ++j) {
    int64_t v = ix.data<int64_t>()[j];
    if (v < 0 || v >= def_n)
      return ctx.Error("index " + std::to_string(v) + " outside the unpooled shape " +
                       ShapeToString(def_shape));
    int64_t t = 0;
    for (size_t a = 0; a < def_shape.size(); ++a) {
      t += v / def_strides[a] * out_strides[a];
      v %= def_strides[a];
    }
    target[static_cast<size_t>(j)] = t;
  }
  const int64_t* pi = target.data();
  const int64_t out_n = NumElements(out_shape);
  const DType dt = X.dtype();
  Tensor x = X.Contiguous();
  Tensor y = ctx.AllocOutput(0, dt, out_shape);
  std::memset(y.raw_mutable_data(), 0, static_cast<size_t>(out_n) * DTypeSize(dt));
  return DispatchBySize(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string>) {
      return ctx.Unsupported("string tensors");
    } else {
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      for (int64_t j = 0; j < x.numel(); ++j) py[pi[j]] = px[j];
      return Status::Ok();
    }
  });
}

VT_REGISTER_OP("", "AveragePool", 1, kMaxOpset, AveragePoolCompute);
VT_REGISTER_OP("", "MaxPool", 1, kMaxOpset, MaxPoolCompute);
VT_REGISTER_OP("", "LpPool", 1, kMaxOpset, LpPoolCompute);
VT_REGISTER_OP("", "GlobalAveragePool", 1, kMaxOpset, GlobalAveragePoolCompute);
VT_REGISTER_OP("", "GlobalMaxPool", 1, kMaxOpset, GlobalMaxPoolCompute);
VT_REGISTER_OP("", "GlobalLpPool", 1, kMaxOpset, GlobalLpPoolCompute);
VT_REGISTER_OP("", "MaxUnpool", 9, kMaxOpset, MaxUnpoolCompute);

}  // namespace
}  // namespace vt::ops
