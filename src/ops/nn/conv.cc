// Conv (ONNX Operators.md "Conv", opsets 1 and 11): N-d convolution of X [N, C, D1..Dn] with
// W [M, C/group, k1..kn] and optional bias B [M]; groups, strides, dilations, explicit pads and
// auto_pad. Computed in f32 (f16/bf16 converted); float64 without a fused activation runs a
// direct convolution in double (ops/nn/conv_f64.h), keeping its precision.
//
// Each (image, group) is one GEMM Y_g[M/g, out] = W_g[M/g, K] * B[K, out] with the weights as
// the left operand, so Y comes out in NCHW without a transpose; the bias is the GEMM's per-row
// epilogue. A constant W is prepacked into MR panels once, at session creation. How B is
// formed (ConvMode):
//   pointwise  1x1, stride 1, no pads: B is X_g itself, read in place.
//   tap-major  1-D/2-D with enough channels: the input is rearranged once into phase planes
//              (kernels/conv/f32_conv_pack.h) and the GEMM rows ordered (tap, channel), so each
//              tap's rows are a strided matrix the microkernel reads in place; the output is
//              computed on a slightly wider grid and compacted.
//   packed     1-D/2-D with few channels: same planes, rows ordered (channel, tap) and copied
//              into panels block by block (few channels would make tap-sized K blocks tiny).
//   im2col-nd  3-D and up: generic im2col panels.
//   depthwise  group == C == M (1-D/2-D): a dedicated kernel, vectorised over output width.
//   winograd   a constant 3x3 filter, 2-D, ungrouped, unit strides and dilations, enough
//              channels (forms/conv_mode.h ConvWinogradApplies): Winograd F(4x4, 3x3), 36
//              GEMMs over the tiles.
//
// Each mode is one function (ops/nn/conv_modes.h): the mode of a constant filter is its weight
// form's (forms/weight_form.h ChooseConvWeightMode, so packing and compute agree) and its
// function is chosen when the kernel is created; a filter known only at run time, or a call
// whose pads make a 1x1 filter non-pointwise, takes the mode of its own shape.
//
// A Conv that absorbed its activation (passes/fuse_conv.cc, ops/nn/conv_epilogue.h) applies
// it as a min/max clamp inside the GEMM / depthwise kernel, or else on each band of output
// right after the kernel wrote it: per channel for depthwise, per slice of output rows for
// the plane modes, per 1024 columns (the GEMM's N block) for pointwise.
//
// A pointwise Conv that absorbed the depthwise Conv feeding it (passes/fusion.h
// FuseDepthwisePointwise; inputs [X, W, B, W_dw, B_dw]) runs both band by band
// (ops/nn/conv_dw_pw.cc), its filter prepacked as any pointwise filter is.
#include <memory>
#include <string>
#include <vector>

#include "kernels/conv/conv_window.h"
#include "kernels/conv/f32_dwconv.h"
#include "kernels/gemm/f32_gemm.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "ops/nn/conv_epilogue.h"
#include "ops/nn/conv_f64.h"
#include "ops/nn/conv_geometry.h"
#include "ops/nn/conv_modes.h"
#include "vtensor/forms/weight_provider.h"
#include "vtensor/forms/weight_use.h"
#include "vtensor/graph/fused_attributes.h"

namespace vt::ops {
namespace {

using ConvMode = ConvWeightMode;

bool UnitStridesAndPads(const SpatialGeometry& geo) {
  for (size_t i = 0; i < geo.rank(); ++i)
    if (geo.stride[i] != 1 || geo.pad_begin[i] != 0 || geo.pad_end[i] != 0) return false;
  return true;
}

// The inputs of one call, checked against each other and the attributes.
struct ConvInputs {
  Tensor X, W, B;  // B undefined when absent
  int64_t group = 1;
  SpatialGeometry geo;
  Shape yshape;
};

// Errors: Unimplemented for element types other than f32 / f16 / bf16 / f64 or more than
// kernels::kMaxConvRank spatial axes; InvalidArgument naming the node for every mismatch of
// ranks, channels, group, kernel_shape, geometry, B or the fused epilogue's sizes.
Expected<ConvInputs> ReadConvInputs(KernelContext& ctx, const ConvEpilogue& epi) {
  ConvInputs r;
  VT_ASSIGN_OR_RETURN(r.X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(r.W, ctx.RequireTensor(1));
  const Tensor &X = r.X, &W = r.W;
  const DType dt = X.dtype();
  if (!IsF32Computable(dt)) return ctx.Unsupported(std::string("dtype ") + DTypeName(dt));
  if (W.dtype() != dt)
    return ctx.Error(std::string("W dtype ") + DTypeName(W.dtype()) + " differs from X dtype " +
                     DTypeName(dt));
  const int rank = X.rank();
  if (rank < 3) return ctx.Error("X must have rank >= 3, got " + ShapeToString(X.shape()));
  if (W.rank() != rank)
    return ctx.Error("W " + ShapeToString(W.shape()) + " must have the rank of X " +
                     ShapeToString(X.shape()));
  const int64_t C = X.dim(1), M = W.dim(0), Cg = W.dim(1);
  r.group = ctx.node().GetInt("group", 1);
  if (r.group <= 0) return ctx.Error("group must be positive, got " + std::to_string(r.group));
  if (Cg * r.group != C || M % r.group != 0)
    return ctx.Error("X " + ShapeToString(X.shape()) + " and W " + ShapeToString(W.shape()) +
                     " do not match group " + std::to_string(r.group));
  const std::vector<int64_t> in(X.shape().begin() + 2, X.shape().end());
  const std::vector<int64_t> ks(W.shape().begin() + 2, W.shape().end());
  if (auto attr_ks = ctx.node().GetInts("kernel_shape"); !attr_ks.empty() && attr_ks != ks)
    return ctx.Error("kernel_shape attribute disagrees with W " + ShapeToString(W.shape()));
  VT_ASSIGN_OR_RETURN(r.geo, ComputeForwardGeometry(ctx, in, ks, true, false));
  if (r.geo.rank() > static_cast<size_t>(kernels::kMaxConvRank))
    return ctx.Unsupported("more than 8 spatial axes");
  if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    r.B = ctx.input(2);
    if (r.B.dtype() != dt || r.B.rank() != 1 || r.B.dim(0) != M)
      return ctx.Error("B " + ShapeToString(r.B.shape()) + " must be [" + std::to_string(M) + "]");
  }
  for (const auto* v : {&epi.scale, &epi.shift})
    if (v->size() > 1 && static_cast<int64_t>(v->size()) != M)
      return ctx.Error("fused activation has " + std::to_string(v->size()) +
                       " scale/shift values for " + std::to_string(M) + " output channels");
  r.yshape = {X.dim(0), M};
  r.yshape.insert(r.yshape.end(), r.geo.out.begin(), r.geo.out.end());
  return r;
}

class ConvKernel final : public OpKernel {
 public:
  explicit ConvKernel(const KernelInit& init);
  Status Compute(KernelContext& ctx) const override;
  void set_epilogue(ConvEpilogue e) { epi_ = std::move(e); }
  void set_depthwise_epilogue(ConvEpilogue e) {
    dw_fused_ = true;
    dw_epi_ = std::move(e);
  }

 private:
  // A fused depthwise + pointwise pair (inputs [X, W, B, W_dw, B_dw]).
  Status ComputeDepthwisePointwise(KernelContext& ctx) const;

  // Packs the constant filter `w` here when the weight provider has no form for it (grouped
  // filters whose per-group panels a layout cannot express).
  void PackFilter(const Tensor& w, int64_t group);

  const kernels::F32DwConvKernel& dwconv_;
  UnpackedGemmRows gemm_rows_;  // filters packed here or per call (no resolver form)
  const kernels::F32GemmKernel* gemm_ = nullptr;  // the kernel the panels were packed for
  ConvMode mode_ = ConvMode::kPointwise;          // meaningful when w_panels_ is set
  ConvModeFn run_ = nullptr;                      // mode_'s function
  Tensor w_const_;                                // the constant W the panels were built from
  std::vector<kernels::F32Panels> w_panels_;      // per group
  std::vector<kernels::F32Panels> winograd_;      // Winograd mode: the 36 transformed operands
  const kernels::F32WinogradKernel* winograd_row_ = nullptr;  // capped at the session's ISA
  ConvEpilogue epi_;                              // fused activation (empty: none)
  bool dw_fused_ = false;                         // a fused depthwise + pointwise pair
  ConvEpilogue dw_epi_;                           // the depthwise stage's activation
};

ConvKernel::ConvKernel(const KernelInit& init)
    : dwconv_(kernels::F32DwConvKernelForIsa(KernelIsaName(init))), gemm_rows_(init) {
  const Node& node = init.node;
  const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
  const int64_t group = node.GetInt("group", 1);
  if (w == nullptr || w->dtype() != DType::kFloat32 || w->rank() < 3 || group <= 0 ||
      w->dim(0) % group != 0 || w->dim(0) == 0)
    return;
  // The use facts the resolver, compile and the layout pass read for this filter.
  const WeightUseInfo use = FindWeightConsumer("", "Conv", 1)->use_of(node);
  mode_ = ChooseConvWeightMode(w->shape(), group, use.unit_strides_pads);
  if (mode_ == ConvMode::kDepthwise) return;  // weights read in place
  w_const_ = *w;
  if (ConvWinogradApplies(w->shape(), group, use.unit_strides_dilations, init.weights().isa())) {
    // Transformed here, not a cached form (docs/weight-forms.md, "Winograd filters").
    const char* isa = KernelIsaName(init);
    winograd_row_ = &kernels::F32WinogradKernelForIsa(isa);
    gemm_ = &gemm_rows_.ForM(static_cast<size_t>(w->dim(0)));
    const Tensor wc = w->Contiguous();
    winograd_ = kernels::MakeF32WinogradFilterPanels(gemm_->mr, wc.data<float>(),
                                                     static_cast<size_t>(w->dim(0)),
                                                     static_cast<size_t>(w->dim(1)));
    return;
  }
  run_ = ConvModeFunction(mode_);
  const int64_t mg = w->dim(0) / group, k = w->numel() / w->dim(0);
  // The one path for cacheable weights: the resolver's form, a compiled entry or a pack.
  auto pw = init.weights().Prepare(node, node.inputs[1], *w, use);
  if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32ConvAPanels) {
    const PreparedWeight& p = **pw;
    gemm_ = kernels::FindF32GemmKernel(p.form.kernel);
    const size_t mr = static_cast<size_t>(p.form.panel);
    const size_t per_group =
        kernels::F32PanelsSize(mr, static_cast<size_t>(k), static_cast<size_t>(mg));
    const float* base = reinterpret_cast<const float*>(p.bytes.data);
    for (int64_t g = 0; g < group; ++g)
      w_panels_.push_back(kernels::BorrowF32Panels(mr, static_cast<size_t>(k),
                                                   static_cast<size_t>(mg),
                                                   base + static_cast<size_t>(g) * per_group,
                                                   p.bytes.keep_alive));
    if (gemm_ != nullptr) return;
    w_panels_.clear();
  }
  PackFilter(*w, group);
}

void ConvKernel::PackFilter(const Tensor& w, int64_t group) {
  const Tensor wc = w.Contiguous();
  const int64_t mg = w.dim(0) / group, k = w.numel() / w.dim(0), c = w.dim(1);
  gemm_ = &gemm_rows_.ForM(static_cast<size_t>(mg));
  std::vector<float> perm;
  if (mode_ == ConvMode::kTapMajor) perm.resize(static_cast<size_t>(mg * k));
  for (int64_t g = 0; g < group; ++g) {
    const float* wg = wc.data<float>() + g * mg * k;
    if (mode_ == ConvMode::kTapMajor) {
      PermuteTapMajor(wg, mg, c, k / c, perm.data());
      wg = perm.data();
    }
    w_panels_.push_back(kernels::MakeF32PanelsFromMk(gemm_->mr, static_cast<size_t>(mg),
                                                     static_cast<size_t>(k), wg,
                                                     static_cast<size_t>(k)));
  }
}

Status ConvKernel::Compute(KernelContext& ctx) const {
  if (dw_fused_) return ComputeDepthwisePointwise(ctx);
  VT_ASSIGN_OR_RETURN(ConvInputs in, ReadConvInputs(ctx, epi_));
  const DType dt = in.X.dtype();
  Tensor Y = ctx.AllocOutput(0, dt, in.yshape);
  if (Y.numel() == 0) return Status::Ok();
  if (dt == DType::kFloat64 && epi_.empty()) {
    const Tensor x64 = in.X.Contiguous(), w64 = in.W.Contiguous();
    const Tensor b64 = in.B.defined() ? in.B.Contiguous() : Tensor();
    DirectConvF64(in.geo, in.X.dim(0), in.X.dim(1), in.W.dim(0), in.group, x64.data<double>(),
                  w64.data<double>(), b64.defined() ? b64.data<double>() : nullptr,
                  Y.mutable_data<double>());
    return Status::Ok();
  }
  const ConvMode mode =
      ChooseConvWeightMode(in.W.shape(), in.group, UnitStridesAndPads(in.geo));
  const bool winograd = !winograd_.empty() && in.geo.rank() == 2 && IsSameConstant(in.W, w_const_);
  const bool prepacked = !w_panels_.empty() && mode == mode_ && IsSameConstant(in.W, w_const_);

  const Tensor x = AsF32(in.X);
  const Tensor b = in.B.defined() ? AsF32(in.B) : Tensor();
  const Tensor w = prepacked || winograd ? Tensor() : AsF32(in.W);
  Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, in.yshape);
  ConvCall c;
  c.x = x.data<float>();
  c.w = w.defined() ? w.data<float>() : nullptr;
  c.w_panels = prepacked ? &w_panels_ : nullptr;
  c.N = in.X.dim(0);
  c.C = in.X.dim(1);
  c.M = in.W.dim(0);
  c.group = in.group;
  c.gemm = prepacked || winograd ? gemm_ : &gemm_rows_.ForM(static_cast<size_t>(c.Mg()));
  c.winograd = winograd ? &winograd_ : nullptr;
  c.dwconv = &dwconv_;
  c.bias = b.defined() ? b.data<float>() : nullptr;
  c.y = yf.mutable_data<float>();
  c.geo = &in.geo;
  c.epi = &epi_;
  c.threads = ctx.threads();
  if (winograd)
    RunWinogradConv(c, *winograd_row_);
  else
    (prepacked ? run_ : ConvModeFunction(mode))(c);
  if (dt != DType::kFloat32) StoreF32As(yf, Y);
  return Status::Ok();
}

// The f32 tensor input `i` of rank `rank`, contiguous. Errors: InvalidArgument naming the node
// otherwise.
Expected<Tensor> F32Input(KernelContext& ctx, size_t i, int rank, const char* what) {
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.dtype() != DType::kFloat32 || t.rank() != rank)
    return ctx.Error(std::string(what) + " must be float32 of rank " + std::to_string(rank) +
                     ", got " + DTypeName(t.dtype()) + ShapeToString(t.shape()));
  return t.Contiguous();
}

// Bias input `i` ([n] f32, contiguous) or an undefined tensor when absent. Errors:
// InvalidArgument naming the node for another type or shape.
Expected<Tensor> OptionalBias(KernelContext& ctx, size_t i, int64_t n, const char* what) {
  if (!ctx.has_input(i) || !ctx.input_value(i)->is_tensor()) return Tensor();
  const Tensor& b = ctx.input(i);
  if (b.dtype() != DType::kFloat32 || b.rank() != 1 || b.dim(0) != n)
    return ctx.Error(std::string(what) + " " + ShapeToString(b.shape()) + " must be float32 [" +
                     std::to_string(n) + "]");
  return b.Contiguous();
}

// The node's own geometry is a pointwise one: group 1, unit strides and dilations, no pads.
bool PointwiseAttributes(const Node& n) {
  auto all = [&](const char* name, int64_t v) {
    const std::vector<int64_t> a = n.GetInts(name);
    return std::all_of(a.begin(), a.end(), [v](int64_t x) { return x == v; });
  };
  const std::string auto_pad = n.GetString("auto_pad", "NOTSET");
  return n.GetInt("group", 1) == 1 && all("strides", 1) && all("dilations", 1) && all("pads", 0) &&
         (auto_pad == "NOTSET" || auto_pad == "VALID");
}

Status ConvKernel::ComputeDepthwisePointwise(KernelContext& ctx) const {
  if (!PointwiseAttributes(ctx.node()))
    return ctx.Error("a fused depthwise stage (vt.dw_*) needs a pointwise Conv: group 1, unit "
                     "strides and dilations, no pads");
  VT_ASSIGN_OR_RETURN(const Tensor x, F32Input(ctx, 0, 4, "X"));
  VT_ASSIGN_OR_RETURN(const Tensor w, F32Input(ctx, 1, 4, "W"));
  VT_ASSIGN_OR_RETURN(const Tensor wd, F32Input(ctx, 3, 4, "depthwise W"));
  const int64_t C = x.dim(1), M = w.dim(0);
  if (wd.dim(0) != C || wd.dim(1) != 1 || w.dim(1) != C || w.dim(2) != 1 || w.dim(3) != 1)
    return ctx.Error("X " + ShapeToString(x.shape()) + ", depthwise W " +
                     ShapeToString(wd.shape()) + " and W " + ShapeToString(w.shape()) +
                     " are not a depthwise [C, 1, kh, kw] and pointwise [M, C, 1, 1] pair");
  VT_ASSIGN_OR_RETURN(const Tensor b, OptionalBias(ctx, 2, M, "B"));
  VT_ASSIGN_OR_RETURN(const Tensor bd, OptionalBias(ctx, 4, C, "depthwise B"));
  for (const auto& [e, n] : {std::pair{&epi_, M}, std::pair{&dw_epi_, C}})
    for (const auto* v : {&e->scale, &e->shift})
      if (v->size() > 1 && static_cast<int64_t>(v->size()) != n)
        return ctx.Error("fused activation has " + std::to_string(v->size()) +
                         " scale/shift values for " + std::to_string(n) + " channels");
  DepthwiseStage d{x.data<float>(), wd.data<float>(), bd.defined() ? bd.data<float>() : nullptr,
                   &dwconv_, &dw_epi_, {}};
  VT_ASSIGN_OR_RETURN(d.geo, DepthwiseStageGeometry(ctx, {x.dim(2), x.dim(3)},
                                                    {wd.dim(2), wd.dim(3)}));
  const SpatialGeometry pw{d.geo.out, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, d.geo.out};
  Tensor y = ctx.AllocOutput(0, DType::kFloat32, {x.dim(0), M, d.geo.out[0], d.geo.out[1]});
  if (y.numel() == 0) return Status::Ok();
  const bool prepacked = !w_panels_.empty() && IsSameConstant(ctx.input(1), w_const_);
  ConvCall c;
  c.w = prepacked ? nullptr : w.data<float>();
  c.w_panels = prepacked ? &w_panels_ : nullptr;
  c.gemm = prepacked ? gemm_ : &gemm_rows_.ForM(static_cast<size_t>(M));
  c.bias = b.defined() ? b.data<float>() : nullptr;
  c.y = y.mutable_data<float>();
  c.N = x.dim(0);
  c.C = C;
  c.M = M;
  c.geo = &pw;
  c.epi = &epi_;
  c.threads = ctx.threads();
  RunDepthwisePointwiseConv(c, d);
  return Status::Ok();
}

Expected<std::unique_ptr<OpKernel>> MakeConv(const KernelInit& init) {
  const Node& node = init.node;
  const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
  // Channel count unknown (W computed at run time): Compute checks the scale/shift sizes.
  VT_ASSIGN_OR_RETURN(ConvEpilogue epi,
                      ParseConvEpilogue(node, w != nullptr && w->rank() >= 1 ? w->dim(0) : -1));
  epi.act_fn = F32ConvActRowFor(init);
  auto k = std::make_unique<ConvKernel>(init);
  k->set_epilogue(std::move(epi));
  if (node.FindAttr(kConvDwStridesAttr) != nullptr) {
    const Tensor* wd = node.inputs.size() > 3 ? FindConstantOperand(init, node.inputs[3]) : nullptr;
    VT_ASSIGN_OR_RETURN(ConvEpilogue dw_epi,
                        ParseConvEpilogue(node, wd != nullptr && wd->rank() >= 1 ? wd->dim(0) : -1,
                                          kConvDwEpilogueAttrs));
    dw_epi.act_fn = F32ConvActRowFor(init);
    k->set_depthwise_epilogue(std::move(dw_epi));
  }
  return std::unique_ptr<OpKernel>(std::move(k));
}

VT_REGISTER_OP("", "Conv", 1, kMaxOpset, KernelFactory(MakeConv));

}  // namespace
}  // namespace vt::ops
