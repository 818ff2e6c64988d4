// ai.vtensor RotaryEmbedding (graph/fused_ops.h, docs/transformer-fusion.md):
// Y = X * Cos + rotate_half(X) * Sin over the last axis, rotate_half(x) = concat(-x[h:], x[:h])
// with h = half the last dim (even). X: f32 of rank >= 1, any strides (a Transpose view is read
// in place); Cos, Sin: f32 of rank <= rank(X) that broadcast to X without enlarging it (each
// dim 1 or X's) and have X's last dim. Y: a new contiguous tensor of X's shape.
#include <vector>

#include "kernels/cpu/flush_denormals.h"
#include "kernels/rotary/rotary_table.h"
#include "ops/common/row_kernels.h"
#include "vtensor/exec/kernel.h"

namespace vt::ops {
namespace {

// Strides of `t` (strided layout, else a contiguous copy in *keep) aligned to `shape` from the
// right, 0 for broadcast dims. False when t does not broadcast to shape without enlarging it.
bool AlignedStrides(const Tensor& t, const Shape& shape, std::vector<int64_t>* st, Tensor* keep) {
  const int r = static_cast<int>(shape.size()), tr = t.rank();
  if (tr > r) return false;
  *keep = t.layout().is_strided() ? t : t.Contiguous();
  st->assign(static_cast<size_t>(r), 0);
  for (int d = 0; d < tr; ++d) {
    const int o = r - tr + d;
    const int64_t dim = t.dim(d);
    if (dim != 1 && dim != shape[static_cast<size_t>(o)]) return false;
    (*st)[static_cast<size_t>(o)] = dim == 1 ? 0 : keep->layout().strides()[static_cast<size_t>(d)];
  }
  return true;
}

Status RotaryCompute(KernelContext& ctx, const kernels::RotaryKernel& k) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor cos, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor sin, ctx.RequireTensor(2));
  if (x.dtype() != DType::kFloat32 || cos.dtype() != DType::kFloat32 || sin.dtype() != DType::kFloat32)
    return ctx.Unsupported("f32 only");
  const int r = x.rank();
  if (r < 1 || x.dim(r - 1) % 2 != 0)
    return ctx.Error("X " + ShapeToString(x.shape()) + " needs an even last dim");
  const Shape& shape = x.shape();
  std::vector<int64_t> xs, cs, ss;
  Tensor xk, ck, sk;
  if (!AlignedStrides(x, shape, &xs, &xk)) return ctx.Error("X layout");
  if (!AlignedStrides(cos, shape, &cs, &ck) || !AlignedStrides(sin, shape, &ss, &sk) ||
      cos.dim(cos.rank() - 1) != shape.back() || sin.dim(sin.rank() - 1) != shape.back())
    return ctx.Error("Cos " + ShapeToString(cos.shape()) + " and Sin " + ShapeToString(sin.shape()) +
                     " must broadcast to X " + ShapeToString(shape) + " with its last dim");
  // Rows need unit element strides; otherwise work on contiguous copies.
  if (xs.back() != 1) xk = x.Contiguous(), xs = xk.layout().strides();
  if (cs.back() != 1) ck = cos.Contiguous(), AlignedStrides(ck, shape, &cs, &ck);
  if (ss.back() != 1) sk = sin.Contiguous(), AlignedStrides(sk, shape, &ss, &sk);
  if (cs != ss) {  // one row stride for both tables: make them contiguous broadcasts alike
    ck = ck.Contiguous(), sk = sk.Contiguous();
    AlignedStrides(ck, shape, &cs, &ck);
    AlignedStrides(sk, shape, &ss, &sk);
    if (cs != ss) return ctx.Error("Cos and Sin must have one shape");
  }
  Tensor y = ctx.AllocOutput(0, DType::kFloat32, shape);
  if (y.numel() == 0) return Status::Ok();
  const int64_t n = shape.back();
  // Rows run along dim r - 2 (one row for rank 1); the dims before it are walked.
  const int64_t rows = r >= 2 ? shape[static_cast<size_t>(r - 2)] : 1;
  const int64_t xrs = r >= 2 ? xs[static_cast<size_t>(r - 2)] : 0;
  const int64_t crs = r >= 2 ? cs[static_cast<size_t>(r - 2)] : 0;
  const int64_t outer = y.numel() / (rows * n);
  const kernels::ScopedFlushDenormals ftz;
  std::vector<int64_t> idx(static_cast<size_t>(std::max(r - 2, 0)), 0);
  const float* px = xk.data<float>();
  const float* pc = ck.data<float>();
  const float* ps = sk.data<float>();
  float* py = y.mutable_data<float>();
  for (int64_t o = 0; o < outer; ++o) {
    int64_t xo = 0, co = 0;
    for (size_t d = 0; d < idx.size(); ++d) xo += idx[d] * xs[d], co += idx[d] * cs[d];
    kernels::RotaryRowsCall c;
    c.rows = static_cast<size_t>(rows), c.n = static_cast<size_t>(n);
    c.x = px + xo, c.x_stride = xrs;
    c.cos = pc + co, c.sin = ps + co, c.cs_stride = crs;
    c.y = py + o * rows * n, c.y_stride = n;
    k.ukernel(c);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

class RotaryKernel final : public OpKernel {
 public:
  explicit RotaryKernel(const KernelInit& init)
      : row_(kernels::RotaryKernelForIsa(KernelIsaName(init))) {}
  Status Compute(KernelContext& ctx) const override { return RotaryCompute(ctx, row_); }

 private:
  const kernels::RotaryKernel& row_;
};

Expected<std::unique_ptr<OpKernel>> MakeRotary(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new RotaryKernel(init));
}

VT_REGISTER_OP("ai.vtensor", "RotaryEmbedding", 1, kMaxOpset, KernelFactory(MakeRotary));

}  // namespace
}  // namespace vt::ops
