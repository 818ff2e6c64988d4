// DeformConv (ONNX Operators.md "DeformConv": opset 19; 22 adds bfloat16), N-D.
// X [N, C, D1..Dn], W [oC, C/group, k1..kn], offset [N, offset_group * K * n, o1..on]
// (K = prod(k); per offset group and kernel position, one displacement per spatial axis,
// axis 0 first), optional B [oC] and mask [N, offset_group * K, o1..on]. Kernel position k of
// output o samples X at o * strides - pads_begin + k * dilations + offset, multilinearly
// interpolated with every corner outside the input counting as zero (ONNX's reference samples
// with GridSample, align_corners=1, zeros padding), multiplies by the mask, and convolves
// with W per group. Input channel c uses offset group c / (C / offset_group).
// The sampled columns [C/group * K, prod(o)] of each group are multiplied by W's group rows;
// float64 is computed in double, the other types in float32 (float16/bfloat16 rounded once).
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/contrib/contrib_inputs.h"

namespace vt::ops {
namespace {

struct DeformGeometry {
  int64_t n = 0, c = 0, oc = 0, group = 1, offset_group = 1, k = 0;
  std::vector<int64_t> in, kernel, out, stride, dil, pad_begin;
  int64_t in_size = 1, kernel_size = 1, out_size = 1;
};

// Multilinear sample of one channel plane (dense, shape g.in) at position p; corners outside
// the plane contribute zero.
template <typename T>
T Sample(const DeformGeometry& g, const T* plane, const T* p) {
  const size_t k = static_cast<size_t>(g.k);
  int64_t lo[8];
  T frac[8];
  for (size_t d = 0; d < k; ++d) {
    const T f = std::floor(p[d]);
    lo[d] = static_cast<int64_t>(f);
    frac[d] = p[d] - f;
    if (lo[d] < -1 || lo[d] >= g.in[d]) return T(0);
  }
  T acc = 0;
  for (int64_t corner = 0; corner < (int64_t{1} << k); ++corner) {
    T w = 1;
    int64_t idx = 0;
    bool inside = true;
    for (size_t d = 0; d < k; ++d) {
      const bool hi = (corner >> (k - 1 - d)) & 1;
      const int64_t i = lo[d] + (hi ? 1 : 0);
      if (i < 0 || i >= g.in[d]) inside = false;
      w *= hi ? frac[d] : T(1) - frac[d];
      idx = idx * g.in[d] + i;
    }
    if (inside && w != T(0)) acc += w * plane[idx];
  }
  return acc;
}

template <typename T>
void DeformConvImpl(const DeformGeometry& g, const T* x, const T* w, const T* offset,
                    const T* bias, const T* mask, T* y) {
  const size_t k = static_cast<size_t>(g.k);
  const int64_t cg = g.c / g.group, ocg = g.oc / g.group, c_per_og = g.c / g.offset_group;
  const int64_t rows = cg * g.kernel_size;
  std::vector<T> col(static_cast<size_t>(rows * g.out_size));
  std::vector<int64_t> ki(k), oi(k);
  T pos[8];
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t grp = 0; grp < g.group; ++grp) {
      for (int64_t ci = 0; ci < cg; ++ci) {
        const int64_t c = grp * cg + ci;
        const int64_t og = c / c_per_og;
        const T* plane = x + (b * g.c + c) * g.in_size;
        for (int64_t kk = 0; kk < g.kernel_size; ++kk) {
          for (size_t d = k, rem = static_cast<size_t>(kk); d-- > 0;) {
            ki[d] = static_cast<int64_t>(rem % static_cast<size_t>(g.kernel[d]));
            rem /= static_cast<size_t>(g.kernel[d]);
          }
          const T* off = offset + ((b * g.offset_group + og) * g.kernel_size + kk) * g.k * g.out_size;
          const T* m = mask ? mask + ((b * g.offset_group + og) * g.kernel_size + kk) * g.out_size
                            : nullptr;
          T* crow = col.data() + (ci * g.kernel_size + kk) * g.out_size;
          for (int64_t o = 0; o < g.out_size; ++o) {
            for (size_t d = k, rem = static_cast<size_t>(o); d-- > 0;) {
              oi[d] = static_cast<int64_t>(rem % static_cast<size_t>(g.out[d]));
              rem /= static_cast<size_t>(g.out[d]);
            }
            for (size_t d = 0; d < k; ++d)
              pos[d] = static_cast<T>(oi[d] * g.stride[d] - g.pad_begin[d] + ki[d] * g.dil[d]) +
                       off[static_cast<int64_t>(d) * g.out_size + o];
            const T v = Sample(g, plane, pos);
            crow[o] = m ? v * m[o] : v;
          }
        }
      }
      for (int64_t oo = 0; oo < ocg; ++oo) {
        const int64_t oc = grp * ocg + oo;
        const T* wr = w + oc * rows;
        T* yr = y + (b * g.oc + oc) * g.out_size;
        for (int64_t o = 0; o < g.out_size; ++o) yr[o] = bias ? bias[oc] : T(0);
        for (int64_t r = 0; r < rows; ++r) {
          const T wv = wr[r];
          const T* crow = col.data() + r * g.out_size;
          for (int64_t o = 0; o < g.out_size; ++o) yr[o] += wv * crow[o];
        }
      }
    }
  }
}

Expected<DeformGeometry> DeformPlan(const KernelContext& ctx, const Tensor& x, const Tensor& w,
                                    const Tensor& offset) {
  DeformGeometry g;
  const Node& node = ctx.node();
  if (x.rank() < 3 || x.rank() > 10)
    return ctx.Error(InputLabel(0, "X") + " must be [N, C, D1..Dn] with 1 <= n <= 8, got " +
                     ShapeToString(x.shape()));
  g.k = x.rank() - 2;
  const size_t k = static_cast<size_t>(g.k);
  g.n = x.dim(0);
  g.c = x.dim(1);
  g.group = node.GetInt("group", 1);
  g.offset_group = node.GetInt("offset_group", 1);
  if (g.group < 1 || g.offset_group < 1)
    return ctx.Error("attributes 'group' and 'offset_group' must be >= 1");
  if (w.rank() != x.rank() || w.dim(1) * g.group != g.c || w.dim(0) % g.group != 0)
    return ctx.Error(InputLabel(1, "W") + ": expected [oC, C/group = " +
                     std::to_string(g.c / g.group) + ", k1..k" + std::to_string(k) +
                     "] with oC divisible by group " + std::to_string(g.group) + ", got " +
                     ShapeToString(w.shape()));
  if (g.c % g.offset_group != 0)
    return ctx.Error("input channels " + std::to_string(g.c) +
                     " are not divisible by offset_group " + std::to_string(g.offset_group));
  g.oc = w.dim(0);
  g.kernel.assign(w.shape().begin() + 2, w.shape().end());
  const std::vector<int64_t> ks = node.GetInts("kernel_shape");
  if (!ks.empty() && ks != g.kernel)
    return ctx.Error("attribute 'kernel_shape' " + ShapeToString(Shape(ks.begin(), ks.end())) +
                     " differs from the kernel of " + InputLabel(1, "W") + " " +
                     ShapeToString(w.shape()));
  auto per_axis = [&](const char* name, size_t count, int64_t dflt,
                      int64_t min) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = node.GetInts(name);
    if (v.empty()) v.assign(count, dflt);
    if (v.size() != count)
      return ctx.Error(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                       " values, expected " + std::to_string(count));
    for (int64_t e : v)
      if (e < min)
        return ctx.Error(std::string("attribute '") + name + "' value " + std::to_string(e) +
                         " is below " + std::to_string(min));
    return v;
  };
  VT_ASSIGN_OR_RETURN(g.stride, per_axis("strides", k, 1, 1));
  VT_ASSIGN_OR_RETURN(g.dil, per_axis("dilations", k, 1, 1));
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, per_axis("pads", 2 * k, 0, 0));
  g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(k));
  for (size_t d = 0; d < k; ++d) {
    g.in.push_back(x.dim(static_cast<int>(d) + 2));
    const int64_t span = g.dil[d] * (g.kernel[d] - 1) + 1;
    const int64_t padded = g.in[d] + pads[d] + pads[d + k];
    if (g.kernel[d] < 1 || padded < span)
      return ctx.Error("axis " + std::to_string(d) + ": kernel " + std::to_string(g.kernel[d]) +
                       " (dilated " + std::to_string(span) + ") does not fit the padded input " +
                       std::to_string(padded));
    g.out.push_back((padded - span) / g.stride[d] + 1);
    g.in_size *= g.in[d];
    g.kernel_size *= g.kernel[d];
    g.out_size *= g.out.back();
  }
  Shape want{g.n, g.offset_group * g.kernel_size * g.k};
  want.insert(want.end(), g.out.begin(), g.out.end());
  if (offset.shape() != want)
    return ctx.Error(InputLabel(2, "offset") + ": expected shape " + ShapeToString(want) +
                     " (N, offset_group * prod(kernel) * " + std::to_string(k) +
                     ", output spatial dims), got " + ShapeToString(offset.shape()));
  return g;
}

Status DeformConvCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, RequiredInput(ctx, 0, "X"));
  VT_ASSIGN_OR_RETURN(Tensor w0, RequiredInput(ctx, 1, "W"));
  VT_ASSIGN_OR_RETURN(Tensor off0, RequiredInput(ctx, 2, "offset"));
  VT_ASSIGN_OR_RETURN(std::optional<Tensor> b0, OptionalInput(ctx, 3, "B"));
  VT_ASSIGN_OR_RETURN(std::optional<Tensor> m0, OptionalInput(ctx, 4, "mask"));
  VT_RETURN_IF_ERROR(ExpectFloat(ctx, x0, 0, "X"));
  const DType dt = x0.dtype();
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, w0, dt, 1, "W"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, off0, dt, 2, "offset"));
  VT_ASSIGN_OR_RETURN(DeformGeometry g, DeformPlan(ctx, x0, w0, off0));
  if (b0) {
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, *b0, dt, 3, "B"));
    VT_RETURN_IF_ERROR(ExpectVector(ctx, *b0, g.oc, 3, "B"));
  }
  if (m0) {
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, *m0, dt, 4, "mask"));
    Shape want{g.n, g.offset_group * g.kernel_size};
    want.insert(want.end(), g.out.begin(), g.out.end());
    if (m0->shape() != want)
      return ctx.Error(InputLabel(4, "mask") + ": expected shape " + ShapeToString(want) +
                       ", got " + ShapeToString(m0->shape()));
  }
  const DType ct = dt == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const Tensor x = CastTensor(x0, ct), w = CastTensor(w0, ct), off = CastTensor(off0, ct);
  const Tensor b = b0 ? CastTensor(*b0, ct) : Tensor(), m = m0 ? CastTensor(*m0, ct) : Tensor();
  Shape yshape{g.n, g.oc};
  yshape.insert(yshape.end(), g.out.begin(), g.out.end());
  Tensor y = Tensor::Empty(ct, yshape);
  if (ct == DType::kFloat64)
    DeformConvImpl<double>(g, x.data<double>(), w.data<double>(), off.data<double>(),
                           b0 ? b.data<double>() : nullptr, m0 ? m.data<double>() : nullptr,
                           y.mutable_data<double>());
  else
    DeformConvImpl<float>(g, x.data<float>(), w.data<float>(), off.data<float>(),
                          b0 ? b.data<float>() : nullptr, m0 ? m.data<float>() : nullptr,
                          y.mutable_data<float>());
  ctx.SetOutput(0, Value(ct == dt ? y : CastTensor(y, dt)));
  return Status::Ok();
}

VT_REGISTER_OP("", "DeformConv", 19, kMaxOpset, DeformConvCompute);

}  // namespace
}  // namespace vt::ops
