// ConvTranspose (ONNX Operators.md "ConvTranspose", opsets 1 and 11): X [N, C, D1..Dn],
// W [C, M/group, k1..kn], optional B [M]; strides, dilations, groups, pads or auto_pad,
// output_padding and output_shape. Computed in f32 (f16/bf16 converted); float64 runs a direct
// transposed convolution in double (ops/nn/conv_f64.h).
//
// Per (image, group): col[(M/g) * prod(k), prod(in)] = W_g^T * X_g as one GEMM (W_g is
// [C/g, (M/g) * prod(k)] row-major, i.e. the transposed-storage A operand; a constant W is
// prepacked into MR panels once), then col2im scatter-adds col into Y, which starts as the bias.
//
// Output extent per axis: output_shape[i] when given, else
//   stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end,
// with auto_pad SAME_* meaning out = in * stride. With output_shape or SAME_*, the total
// padding stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - out is split as the
// spec says: SAME_UPPER puts the odd element at the end, otherwise at the beginning.
#include <cstring>
#include <memory>

#include "kernels/conv/f32_col2im.h"
#include "kernels/gemm/f32_gemm.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/nn/conv_f64.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;
using kernels::F32Panels;

std::string Join(const std::vector<int64_t>& v) { return ShapeToString(v); }

class ConvTransposeKernel final : public OpKernel {
 public:
  explicit ConvTransposeKernel(const KernelInit& init) : gemm_(kernels::DefaultF32GemmKernel()) {
    const Node& node = init.node;
    const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    const int64_t group = node.GetInt("group", 1);
    if (w == nullptr || w->dtype() != DType::kFloat32 || w->rank() < 3 || group <= 0 ||
        w->dim(0) % group != 0)
      return;
    w_const_ = *w;
    const Tensor wc = w->Contiguous();
    const size_t cg = static_cast<size_t>(w->dim(0) / group);
    const size_t rows = static_cast<size_t>(w->numel() / std::max<int64_t>(w->dim(0), 1));
    for (int64_t g = 0; g < group; ++g)
      w_panels_.push_back(kernels::MakeF32PanelsFromKm(
          gemm_.mr, rows, cg, wc.data<float>() + static_cast<size_t>(g) * cg * rows, rows));
  }

  Status Compute(KernelContext& ctx) const override;

 private:
  const kernels::F32GemmKernel& gemm_;
  Tensor w_const_;
  std::vector<F32Panels> w_panels_;  // per group: A = W_g^T, [(M/g) * prod(k), C/g]
};

Status ConvTransposeKernel::Compute(KernelContext& ctx) const {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor W, ctx.RequireTensor(1));
  const DType dt = X.dtype();
  if (!IsF32Computable(dt)) return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  if (W.dtype() != dt) return ctx.Error("W dtype differs from X dtype");
  const int rank = X.rank();
  if (rank < 3) return ctx.Error("X must have rank >= 3, got " + ShapeToString(X.shape()));
  if (W.rank() != rank)
    return ctx.Error("W " + ShapeToString(W.shape()) + " must have the rank of X " +
                     ShapeToString(X.shape()));
  const size_t r = static_cast<size_t>(rank - 2);
  if (r > 8) return ctx.Unsupported("more than 8 spatial axes");
  const Node& node = ctx.node();
  const int64_t N = X.dim(0), C = X.dim(1);
  const int64_t group = node.GetInt("group", 1);
  if (group <= 0) return ctx.Error("group must be positive");
  if (W.dim(0) != C || C % group != 0)
    return ctx.Error("W " + ShapeToString(W.shape()) + " does not match X " +
                     ShapeToString(X.shape()) + " with group " + std::to_string(group));
  const int64_t Cg = C / group, Mg = W.dim(1), M = Mg * group;
  std::vector<int64_t> in(X.shape().begin() + 2, X.shape().end());
  std::vector<int64_t> ks(W.shape().begin() + 2, W.shape().end());
  if (auto attr_ks = node.GetInts("kernel_shape"); !attr_ks.empty() && attr_ks != ks)
    return ctx.Error("kernel_shape " + Join(attr_ks) + " disagrees with W " +
                     ShapeToString(W.shape()));
  auto per_axis = [&](const char* name, int64_t def) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = node.GetInts(name);
    if (v.empty()) v.assign(r, def);
    if (v.size() != r) return ctx.Error(std::string(name) + " " + Join(v) + " must have " +
                                        std::to_string(r) + " values");
    return v;
  };
  VT_ASSIGN_OR_RETURN(auto stride, per_axis("strides", 1));
  VT_ASSIGN_OR_RETURN(auto dil, per_axis("dilations", 1));
  VT_ASSIGN_OR_RETURN(auto out_pad, per_axis("output_padding", 0));
  for (size_t i = 0; i < r; ++i)
    if (stride[i] <= 0 || dil[i] <= 0)
      return ctx.Error("strides and dilations must be positive");
  std::vector<int64_t> pads = node.GetInts("pads");
  if (pads.empty()) pads.assign(2 * r, 0);
  if (pads.size() != 2 * r) return ctx.Error("pads " + Join(pads) + " must have " + std::to_string(2 * r) + " values");
  std::vector<int64_t> out_shape_attr = node.GetInts("output_shape");
  if (out_shape_attr.size() == r + 2)
    out_shape_attr.erase(out_shape_attr.begin(), out_shape_attr.begin() + 2);
  if (!out_shape_attr.empty() && out_shape_attr.size() != r)
    return ctx.Error("output_shape " + Join(out_shape_attr) + " must have " + std::to_string(r) +
                     " values");
  const std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    return ctx.Error("unknown auto_pad '" + auto_pad + "'");

  std::vector<int64_t> out(r), pad_begin(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t full = stride[i] * (in[i] - 1) + out_pad[i] + (ks[i] - 1) * dil[i] + 1;
    if (!out_shape_attr.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out[i] = !out_shape_attr.empty() ? out_shape_attr[i] : in[i] * stride[i];
      const int64_t total = std::max<int64_t>(0, full - out[i]);
      pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      out[i] = full;
      pad_begin[i] = 0;
    } else {
      out[i] = full - pads[i] - pads[i + r];
      pad_begin[i] = pads[i];
    }
    if (out[i] < 0) return ctx.Error("negative output extent on spatial axis " + std::to_string(i));
  }

  Tensor Bt;
  if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    Bt = ctx.input(2);
    if (Bt.dtype() != dt || Bt.rank() != 1 || Bt.dim(0) != M)
      return ctx.Error("B " + ShapeToString(Bt.shape()) + " must be [" + std::to_string(M) + "]");
  }
  Shape yshape = {N, M};
  yshape.insert(yshape.end(), out.begin(), out.end());
  Tensor Y = ctx.AllocOutput(0, dt, yshape);
  if (Y.numel() == 0) return Status::Ok();
  if (dt == DType::kFloat64) {  // keeps double precision (ops/nn/conv_f64.h)
    const Tensor x64 = X.Contiguous(), w64 = W.Contiguous();
    const Tensor b64 = Bt.defined() ? Bt.Contiguous() : Tensor();
    DirectConvTransposeF64(in, ks, stride, dil, pad_begin, out, N, C, M, group, x64.data<double>(),
                           w64.data<double>(), b64.defined() ? b64.data<double>() : nullptr,
                           Y.mutable_data<double>());
    return Status::Ok();
  }

  const Tensor x = AsF32(X);
  const Tensor b = Bt.defined() ? AsF32(Bt) : Tensor();
  const bool prepacked = !w_panels_.empty() && IsSameConstant(W, w_const_);
  const Tensor w = prepacked ? Tensor() : AsF32(W);
  Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, yshape);
  float* py = yf.mutable_data<float>();
  const int64_t in_sz = NumElements(in), out_sz = NumElements(out);
  int64_t kvol = 1;
  for (int64_t k : ks) kvol *= k;
  const size_t rows = static_cast<size_t>(Mg * kvol);

  // When every output is written exactly once (kernel == stride, no dilation, no pads, no
  // output padding) the bias rides in the GEMM epilogue and col2im stores; otherwise Y starts
  // as the bias and col2im accumulates.
  bool assign = true;
  for (size_t i = 0; i < r; ++i)
    assign = assign && ks[i] == stride[i] && dil[i] == 1 && pad_begin[i] == 0 &&
             out[i] == in[i] * stride[i];
  std::vector<float> bias_rows;  // per GEMM row (m, tap) of one group
  if (!assign) {
    for (int64_t n = 0; n < N; ++n)
      for (int64_t m = 0; m < M; ++m) {
        float* ym = py + (n * M + m) * out_sz;
        const float v = b.defined() ? b.data<float>()[m] : 0.0f;
        for (int64_t i = 0; i < out_sz; ++i) ym[i] = v;
      }
  } else if (b.defined()) {
    bias_rows.resize(static_cast<size_t>(M * kvol));
    for (int64_t m = 0; m < M; ++m)
      for (int64_t t = 0; t < kvol; ++t) bias_rows[static_cast<size_t>(m * kvol + t)] = b.data<float>()[m];
  }

  kernels::F32Col2Im c2i{};
  c2i.rank = static_cast<int>(r);
  c2i.M = Mg;
  c2i.assign = assign;
  for (size_t i = 0; i < r; ++i) {
    c2i.in[i] = in[i];
    c2i.kernel[i] = ks[i];
    c2i.stride[i] = stride[i];
    c2i.dilation[i] = dil[i];
    c2i.pad[i] = pad_begin[i];
    c2i.out[i] = out[i];
  }
  // col is produced in slices along the first spatial axis small enough to stay in L2 while
  // col2im consumes it; the buffer is reused per thread (a fresh multi-megabyte allocation
  // would page-fault on every inference).
  const int64_t inner = in_sz / std::max<int64_t>(in[0], 1);
  constexpr size_t kSliceFloats = size_t{256} << 10;  // 1 MiB of col
  const int64_t slice = std::max<int64_t>(
      1, std::min<int64_t>(in[0], static_cast<int64_t>(kSliceFloats / (rows * std::max<int64_t>(inner, 1)))));
  thread_local kernels::AlignedFloats col;
  col.Resize(rows * static_cast<size_t>(slice * inner));
  float* pcol = col.data();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < group; ++g) {
      const float* xg = x.data<float>() + (n * C + g * Cg) * in_sz;
      F32GemmA A;
      if (prepacked) {
        A = {F32GemmA::Kind::kPanels, nullptr, 0, &w_panels_[static_cast<size_t>(g)]};
      } else {
        A = {F32GemmA::Kind::kKm, w.data<float>() + g * Cg * static_cast<int64_t>(rows), rows,
             nullptr};
      }
      kernels::F32GemmEpilogue ep;
      if (!bias_rows.empty()) ep.bias_m = bias_rows.data() + g * static_cast<int64_t>(rows);
      for (int64_t i0 = 0; i0 < in[0]; i0 += slice) {
        const int64_t i1 = std::min(in[0], i0 + slice);
        const size_t cols = static_cast<size_t>((i1 - i0) * inner);
        const F32GemmB B{F32GemmB::Kind::kKn, xg + i0 * inner, static_cast<size_t>(in_sz)};
        kernels::F32Gemm(gemm_, rows, cols, static_cast<size_t>(Cg), A, B, pcol, cols, ep,
                         ctx.threads());
        kernels::ScatterF32Col2Im(c2i, i0, i1, pcol, py + (n * M + g * Mg) * out_sz);
      }
    }
  }
  if (dt != DType::kFloat32) StoreF32As(yf, Y);
  return Status::Ok();
}

Expected<std::unique_ptr<OpKernel>> MakeConvTranspose(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new ConvTransposeKernel(init));
}

VT_REGISTER_OP("", "ConvTranspose", 1, kMaxOpset, KernelFactory(MakeConvTranspose));

}  // namespace
}  // namespace vt::ops
