// ConvTranspose (ONNX Operators.md "ConvTranspose", opsets 1 and 11): X [N, C, D1..Dn],
// W [C, M/group, k1..kn], optional B [M]; strides, dilations, groups, pads or auto_pad,
// output_padding and output_shape. Computed in f32 (f16/bf16 converted); float64 runs a direct
// transposed convolution in double (ops/nn/conv_f64.h).
//
// Per (image, group): col[(M/g) * prod(k), prod(in)] = W_g^T * X_g as one GEMM (W_g is
// [C/g, (M/g) * prod(k)] row-major, i.e. the transposed-storage A operand; a constant W is
// prepacked into MR panels once), then col2im scatter-adds col into Y, which starts as the bias.
//
// A constant f32 W of an ungrouped 2x2 stride-2 ConvTranspose with no pads (each output written
// once) in an AVX-512 session runs kernels/conv/f32_conv_transpose_2x2.h instead: no col
// buffer, no scatter, the same bits.
//
// The output extent and padding: ops/nn/conv_geometry.h ComputeTransposedGeometry.
//
// A ConvTranspose that absorbed the affine maps and activation after it (passes/fuse_conv.cc)
// applies the activation (ops/nn/conv_epilogue.h) to each output channel's rows: when every
// output is written once, to the rows of each col slice right after col2im stored them (still
// in cache); otherwise to the whole output of the group once col2im has accumulated it.
#include <algorithm>
#include <cstring>
#include <memory>

#include "kernels/conv/conv_window.h"
#include "kernels/conv/f32_col2im.h"
#include "kernels/conv/f32_conv_transpose_2x2.h"
#include "kernels/gemm/f32_gemm.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "ops/nn/conv_epilogue.h"
#include "ops/nn/conv_f64.h"
#include "ops/nn/conv_geometry.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;
using kernels::F32Panels;

// The inputs of one call, checked against each other and the attributes.
struct TransposeInputs {
  Tensor X, W, B;  // B undefined when absent
  int64_t group = 1;
  SpatialGeometry geo;
  Shape yshape;
};

// Errors: Unimplemented for element types other than f32 / f16 / bf16 / f64 or more than 8
// spatial axes; InvalidArgument naming the node for mismatched ranks, channels, group,
// kernel_shape, geometry, B or the fused epilogue's sizes.
Expected<TransposeInputs> ReadInputs(KernelContext& ctx, const ConvEpilogue& epi) {
  TransposeInputs r;
  VT_ASSIGN_OR_RETURN(r.X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(r.W, ctx.RequireTensor(1));
  const Tensor &X = r.X, &W = r.W;
  const DType dt = X.dtype();
  if (!IsF32Computable(dt)) return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  if (W.dtype() != dt) return ctx.Error("W dtype differs from X dtype");
  const int rank = X.rank();
  if (rank < 3) return ctx.Error("X must have rank >= 3, got " + ShapeToString(X.shape()));
  if (W.rank() != rank)
    return ctx.Error("W " + ShapeToString(W.shape()) + " must have the rank of X " +
                     ShapeToString(X.shape()));
  if (rank - 2 > kernels::kMaxConvRank) return ctx.Unsupported("more than 8 spatial axes");
  const int64_t C = X.dim(1);
  r.group = ctx.node().GetInt("group", 1);
  if (r.group <= 0) return ctx.Error("group must be positive");
  if (W.dim(0) != C || C % r.group != 0)
    return ctx.Error("W " + ShapeToString(W.shape()) + " does not match X " +
                     ShapeToString(X.shape()) + " with group " + std::to_string(r.group));
  const int64_t M = W.dim(1) * r.group;
  const std::vector<int64_t> in(X.shape().begin() + 2, X.shape().end());
  const std::vector<int64_t> ks(W.shape().begin() + 2, W.shape().end());
  if (auto attr_ks = ctx.node().GetInts("kernel_shape"); !attr_ks.empty() && attr_ks != ks)
    return ctx.Error("kernel_shape " + ShapeToString(attr_ks) + " disagrees with W " +
                     ShapeToString(W.shape()));
  VT_ASSIGN_OR_RETURN(r.geo, ComputeTransposedGeometry(ctx, in, ks));
  if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    r.B = ctx.input(2);
    if (r.B.dtype() != dt || r.B.rank() != 1 || r.B.dim(0) != M)
      return ctx.Error("B " + ShapeToString(r.B.shape()) + " must be [" + std::to_string(M) + "]");
  }
  for (const auto* v : {&epi.scale, &epi.shift})
    if (v->size() > 1 && static_cast<int64_t>(v->size()) != M)
      return ctx.Error("fused activation scale/shift has " + std::to_string(v->size()) +
                       " values for " + std::to_string(M) + " output channels");
  r.yshape = {X.dim(0), M};
  r.yshape.insert(r.yshape.end(), r.geo.out.begin(), r.geo.out.end());
  return r;
}

// Every output is written exactly once (kernel == stride, no dilation, no pads, no output
// padding): col2im can store instead of accumulate.
bool WritesEachOutputOnce(const SpatialGeometry& geo) {
  for (size_t i = 0; i < geo.rank(); ++i)
    if (geo.kernel[i] != geo.stride[i] || geo.dilation[i] != 1 || geo.pad_begin[i] != 0 ||
        geo.out[i] != geo.in[i] * geo.stride[i])
      return false;
  return true;
}

kernels::F32Col2Im Col2ImGeometry(const SpatialGeometry& geo, int64_t mg, bool assign) {
  kernels::F32Col2Im c2i{};
  c2i.rank = static_cast<int>(geo.rank());
  c2i.M = mg;
  c2i.assign = assign;
  for (size_t i = 0; i < geo.rank(); ++i) {
    c2i.in[i] = geo.in[i];
    c2i.kernel[i] = geo.kernel[i];
    c2i.stride[i] = geo.stride[i];
    c2i.dilation[i] = geo.dilation[i];
    c2i.pad[i] = geo.pad_begin[i];
    c2i.out[i] = geo.out[i];
  }
  return c2i;
}

// Y [N, M, out] filled with the bias (0 without one).
void FillWithBias(float* y, int64_t n, int64_t m, int64_t out_sz, const float* bias) {
  for (int64_t i = 0; i < n * m; ++i)
    std::fill_n(y + i * out_sz, out_sz, bias != nullptr ? bias[i % m] : 0.0f);
}

class ConvTransposeKernel final : public OpKernel {
 public:
  explicit ConvTransposeKernel(const KernelInit& init) : gemm_(F32GemmRowFor(init)) {
    const Node& node = init.node;
    const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    const int64_t group = node.GetInt("group", 1);
    if (w == nullptr || w->dtype() != DType::kFloat32 || w->rank() < 3 || group <= 0 ||
        w->dim(0) % group != 0)
      return;
    w_const_ = *w;
    const Tensor wc = w->Contiguous();
    if (group == 1 && w->rank() == 4 && w->dim(2) == 2 && w->dim(3) == 2 &&
        init.weights().isa() == IsaLevel::kAvx512)
      w_2x2_ = wc;
    const size_t cg = static_cast<size_t>(w->dim(0) / group);
    const size_t rows = static_cast<size_t>(w->numel() / std::max<int64_t>(w->dim(0), 1));
    for (int64_t g = 0; g < group; ++g)
      w_panels_.push_back(kernels::MakeF32PanelsFromKm(
          gemm_.mr, rows, cg, wc.data<float>() + static_cast<size_t>(g) * cg * rows, rows));
  }

  Status Compute(KernelContext& ctx) const override;
  void set_epilogue(ConvEpilogue e) { epi_ = std::move(e); }

 private:
  // Y of image n, group g: col = W_g^T X_g slice by slice of the first spatial axis, each
  // scattered into Y by col2im.
  void RunGroup(const TransposeInputs& in, const float* x, const float* w, bool prepacked,
                const std::vector<float>& bias_rows, const kernels::F32Col2Im& c2i, int64_t n,
                int64_t g, float* y, int threads) const;

  // The 2x2 stride-2 path (f32_conv_transpose_2x2.h) over W [C, M, 2, 2]; `prepacked`: the
  // call's W is the kernel's constant. False when it does not apply. Writes all of Y (epilogue
  // included).
  bool Run2x2(const TransposeInputs& in, bool prepacked, const float* x, const float* bias,
              float* y, int threads) const;

  const kernels::F32GemmKernel& gemm_;
  Tensor w_const_;
  Tensor w_2x2_;  // W contiguous when the 2x2 path may take it (AVX-512 session, group 1)
  std::vector<F32Panels> w_panels_;  // per group: A = W_g^T, [(M/g) * prod(k), C/g]
  ConvEpilogue epi_;                 // fused activation (empty: none)
};

// The fused epilogue on rows [o0, o1) of the first output axis of every output channel of
// group g; each channel plane is [out0, inner_out].
void ApplyEpilogue(const ConvEpilogue& epi, float* yg, int64_t mg, int64_t g, int64_t out_sz,
                   int64_t inner_out, int64_t o0, int64_t o1) {
  if (epi.empty()) return;
  for (int64_t j = 0; j < mg; ++j)
    epi.ApplyRow(yg + j * out_sz + o0 * inner_out, static_cast<size_t>((o1 - o0) * inner_out),
                 g * mg + j);
}

void ConvTransposeKernel::RunGroup(const TransposeInputs& in, const float* x, const float* w,
                                   bool prepacked, const std::vector<float>& bias_rows,
                                   const kernels::F32Col2Im& c2i, int64_t n, int64_t g, float* y,
                                   int threads) const {
  const SpatialGeometry& geo = in.geo;
  const int64_t C = in.X.dim(1), Cg = C / in.group, Mg = in.W.dim(1), M = Mg * in.group;
  const int64_t in_sz = NumElements(geo.in), out_sz = geo.out_numel();
  const size_t rows = static_cast<size_t>(Mg * geo.kernel_numel());
  const float* xg = x + (n * C + g * Cg) * in_sz;
  F32GemmA A;
  if (prepacked) {
    A = {F32GemmA::Kind::kPanels, nullptr, 0, &w_panels_[static_cast<size_t>(g)]};
  } else {
    A = {F32GemmA::Kind::kKm, w + g * Cg * static_cast<int64_t>(rows), rows, nullptr};
  }
  kernels::F32GemmEpilogue ep;
  if (!bias_rows.empty()) ep.bias_m = bias_rows.data() + g * static_cast<int64_t>(rows);
  // col is produced in slices along the first spatial axis small enough to stay in L2 while
  // col2im consumes it; the buffer is reused per thread (a fresh multi-megabyte allocation
  // would page-fault on every inference).
  const int64_t in0 = geo.in[0];
  const int64_t inner = in_sz / std::max<int64_t>(in0, 1);
  constexpr size_t kSliceFloats = size_t{256} << 10;  // 1 MiB of col
  const int64_t slice = std::max<int64_t>(
      1, std::min<int64_t>(in0, static_cast<int64_t>(kSliceFloats /
                                                     (rows * std::max<int64_t>(inner, 1)))));
  thread_local kernels::AlignedFloats col;
  col.Resize(rows * static_cast<size_t>(slice * inner));
  float* yg = y + (n * M + g * Mg) * out_sz;
  const int64_t out0 = geo.out[0], inner_out = out_sz / std::max<int64_t>(out0, 1);
  for (int64_t i0 = 0; i0 < in0; i0 += slice) {
    const int64_t i1 = std::min(in0, i0 + slice);
    const size_t cols = static_cast<size_t>((i1 - i0) * inner);
    const F32GemmB B{F32GemmB::Kind::kKn, xg + i0 * inner, static_cast<size_t>(in_sz)};
    kernels::F32Gemm(gemm_, rows, cols, static_cast<size_t>(Cg), A, B, col.data(), cols, ep,
                     threads);
    kernels::ScatterF32Col2Im(c2i, i0, i1, col.data(), yg);
    // Stored once (kernel == stride): input rows [i0, i1) wrote output rows [i0, i1) * stride.
    if (c2i.assign)
      ApplyEpilogue(epi_, yg, Mg, g, out_sz, inner_out, i0 * geo.stride[0], i1 * geo.stride[0]);
  }
  if (!c2i.assign) ApplyEpilogue(epi_, yg, Mg, g, out_sz, inner_out, 0, out0);
}

bool ConvTransposeKernel::Run2x2(const TransposeInputs& in, bool prepacked, const float* x,
                                 const float* bias, float* y, int threads) const {
  const SpatialGeometry& geo = in.geo;
  if (!prepacked || !w_2x2_.defined() || in.group != 1 || geo.rank() != 2 ||
      !WritesEachOutputOnce(geo) || geo.kernel[0] != 2 || geo.kernel[1] != 2)
    return false;
  const kernels::F32ConvTranspose2x2Geometry g{in.X.dim(1), geo.in[0], geo.in[1], in.W.dim(1)};
  constexpr int64_t kRowsPerBlock = 4;  // input rows per block of work
  const int64_t blocks = (g.H + kRowsPerBlock - 1) / kRowsPerBlock, total = in.X.dim(0) * blocks;
  if (!kernels::F32ConvTranspose2x2Applies(g) || total < threads) return false;
  const int64_t in_sz = g.H * g.W, out_sz = 4 * in_sz, OW = 2 * g.W;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t i = 0; i < total; ++i) {
    const int64_t n = i / blocks, ih0 = i % blocks * kRowsPerBlock;
    const int64_t ih1 = std::min(g.H, ih0 + kRowsPerBlock);
    float* yn = y + n * g.M * out_sz;
    kernels::f32_conv_transpose_2x2_avx512(g, w_2x2_.data<float>(), bias, x + n * g.C * in_sz,
                                           ih0, ih1, yn);
    ApplyEpilogue(epi_, yn, g.M, 0, out_sz, OW, 2 * ih0, 2 * ih1);
  }
  return true;
}

Status ConvTransposeKernel::Compute(KernelContext& ctx) const {
  VT_ASSIGN_OR_RETURN(TransposeInputs in, ReadInputs(ctx, epi_));
  const DType dt = in.X.dtype();
  Tensor Y = ctx.AllocOutput(0, dt, in.yshape);
  if (Y.numel() == 0) return Status::Ok();
  if (dt == DType::kFloat64 && epi_.empty()) {  // keeps double precision (ops/nn/conv_f64.h)
    const Tensor x64 = in.X.Contiguous(), w64 = in.W.Contiguous();
    const Tensor b64 = in.B.defined() ? in.B.Contiguous() : Tensor();
    const SpatialGeometry& g = in.geo;
    DirectConvTransposeF64(g.in, g.kernel, g.stride, g.dilation, g.pad_begin, g.out, in.X.dim(0),
                           in.X.dim(1), in.W.dim(1) * in.group, in.group, x64.data<double>(),
                           w64.data<double>(), b64.defined() ? b64.data<double>() : nullptr,
                           Y.mutable_data<double>());
    return Status::Ok();
  }
  const Tensor x = AsF32(in.X);
  const Tensor b = in.B.defined() ? AsF32(in.B) : Tensor();
  const bool prepacked = !w_panels_.empty() && IsSameConstant(in.W, w_const_);
  const Tensor w = prepacked ? Tensor() : AsF32(in.W);
  Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, in.yshape);
  float* py = yf.mutable_data<float>();
  const int64_t N = in.X.dim(0), M = in.W.dim(1) * in.group, kvol = in.geo.kernel_numel();
  const float* pb = b.defined() ? b.data<float>() : nullptr;
  if (Run2x2(in, prepacked, x.data<float>(), pb, py, ctx.threads())) {
    if (dt != DType::kFloat32) StoreF32As(yf, Y);
    return Status::Ok();
  }

  // When every output is written exactly once the bias rides in the GEMM epilogue (one value
  // per GEMM row (m, tap)) and col2im stores; otherwise Y starts as the bias and col2im
  // accumulates.
  const bool assign = WritesEachOutputOnce(in.geo);
  std::vector<float> bias_rows;
  if (!assign) {
    FillWithBias(py, N, M, in.geo.out_numel(), pb);
  } else if (pb != nullptr) {
    bias_rows.resize(static_cast<size_t>(M * kvol));
    for (int64_t m = 0; m < M; ++m)
      std::fill_n(bias_rows.begin() + m * kvol, kvol, pb[m]);
  }
  const kernels::F32Col2Im c2i = Col2ImGeometry(in.geo, in.W.dim(1), assign);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < in.group; ++g)
      RunGroup(in, x.data<float>(), w.defined() ? w.data<float>() : nullptr, prepacked, bias_rows,
               c2i, n, g, py, ctx.threads());
  if (dt != DType::kFloat32) StoreF32As(yf, Y);
  return Status::Ok();
}

Expected<std::unique_ptr<OpKernel>> MakeConvTranspose(const KernelInit& init) {
  const Node& node = init.node;
  const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
  const int64_t group = node.GetInt("group", 1);
  // Channel count unknown (W computed at run time): Compute checks the scale/shift sizes.
  const int64_t m = w != nullptr && w->rank() >= 2 && group > 0 ? w->dim(1) * group : -1;
  VT_ASSIGN_OR_RETURN(ConvEpilogue epi, ParseConvEpilogue(node, m));
  epi.act_fn = F32ConvActRowFor(init);
  auto k = std::make_unique<ConvTransposeKernel>(init);
  k->set_epilogue(std::move(epi));
  return std::unique_ptr<OpKernel>(std::move(k));
}

VT_REGISTER_OP("", "ConvTranspose", 1, kMaxOpset, KernelFactory(MakeConvTranspose));

}  // namespace
}  // namespace vt::ops
