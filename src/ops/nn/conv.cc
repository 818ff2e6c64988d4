// Conv (ONNX Operators.md "Conv", opsets 1 and 11): N-d convolution of X [N, C, D1..Dn] with
// W [M, C/group, k1..kn] and optional bias B [M]; groups, strides, dilations, explicit pads and
// auto_pad. Computed in f32 (f16/bf16/f64 converted).
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
//
// A Conv that absorbed its activation (runtime/fusion.h FuseConv, ops/conv_epilogue.h) applies
// it as a min/max clamp inside the GEMM / depthwise kernel, or else on each band of output
// right after the kernel wrote it: per channel for depthwise, per slice of output rows for
// the plane modes, per 1024 columns (the GEMM's N block) for pointwise.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "kernels/conv/f32_conv_pack.h"
#include "kernels/cpu/flush_denormals.h"
#include "kernels/conv/f32_dwconv.h"
#include "kernels/gemm/f32_gemm.h"
#include "ops/common/constant_operand.h"
#include "ops/nn/conv_epilogue.h"
#include "ops/nn/conv_geometry.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {
namespace {

using kernels::F32Gemm;
using kernels::F32GemmA;
using kernels::F32GemmB;
using kernels::F32GemmEpilogue;
using kernels::F32Panels;

using ConvMode = ConvWeightMode;  // decided in forms/conv_mode.h (packing and compute agree)

// rank: of X (== rank of W); w: shape of W; unit: all strides 1 and all pads 0.
ConvMode ChooseMode(int rank, const Shape& w, int64_t group, bool unit) {
  (void)rank;
  return ChooseConvWeightMode(w, group, unit);
}

// W_g [Mg, C, taps] -> [Mg, taps, C] (GEMM rows in tap-major order).
void PermuteTapMajor(const float* w, int64_t mg, int64_t c, int64_t taps, float* dst) {
  for (int64_t m = 0; m < mg; ++m)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t t = 0; t < taps; ++t) dst[(m * taps + t) * c + ci] = w[(m * c + ci) * taps + t];
}

// Outputs with only a few columns (a 1-D signal convolved down to a handful of frames) would
// leave most lanes of a wide tile idle; the narrow kernel of the same MR reads the same panels.
const kernels::F32GemmKernel& KernelForColumns(const kernels::F32GemmKernel& wide, size_t cols) {
  if (cols > 8) return wide;
  const kernels::F32GemmKernel* narrow = kernels::F32GemmNarrowKernel(wide.mr);
  return narrow != nullptr ? *narrow : wide;
}

// Per-thread buffers reused across calls (large fresh allocations would page-fault on every
// inference).
struct ConvScratch {
  kernels::AlignedFloats planes;
  kernels::AlignedFloats wide;
  kernels::AlignedFloats weights;
};
ConvScratch& ThreadConvScratch() {
  thread_local ConvScratch s;
  return s;
}

bool UnitStridesAndPads(const Node& node) {
  for (int64_t s : node.GetInts("strides"))
    if (s != 1) return false;
  for (int64_t p : node.GetInts("pads"))
    if (p != 0) return false;
  return true;  // SAME_* pads of a 1x1 stride-1 kernel are 0 too
}

class ConvKernel final : public OpKernel {
 public:
  explicit ConvKernel(const KernelInit& init) : dwconv_(kernels::DefaultF32DwConvKernel()) {
    const Node& node = init.node;
    const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    const int64_t group = node.GetInt("group", 1);
    if (w == nullptr || w->dtype() != DType::kFloat32 || w->rank() < 3 || group <= 0 ||
        w->dim(0) % group != 0 || w->dim(0) == 0)
      return;
    mode_ = ChooseMode(w->rank(), w->shape(), group, UnitStridesAndPads(node));
    if (mode_ == ConvMode::kDepthwise) return;  // weights read in place
    w_const_ = *w;
    const int64_t mg = w->dim(0) / group, k = w->numel() / w->dim(0), c = w->dim(1);
    // The one path for cacheable weights: the resolver's form, a compiled entry or a pack.
    const WeightUseInfo use{WeightUse::kConvFilter, group, UnitStridesAndPads(node)};
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
    // Grouped filters whose per-group panels a layout cannot express: packed here.
    const Tensor wc = w->Contiguous();
    gemm_ = &kernels::F32GemmKernelForM(static_cast<size_t>(mg));
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

  Status Compute(KernelContext& ctx) override;

  void set_epilogue(ConvEpilogue e) { epi_ = std::move(e); }

 private:
  const kernels::F32DwConvKernel& dwconv_;
  const kernels::F32GemmKernel* gemm_ = nullptr;  // the kernel the panels were packed for
  ConvMode mode_ = ConvMode::kPointwise;          // meaningful when w_panels_ is set
  Tensor w_const_;                                // the constant W the panels were built from
  std::vector<F32Panels> w_panels_;               // per group
  ConvEpilogue epi_;                              // fused activation (empty: none)
};

Status ConvKernel::Compute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor X, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor W, ctx.RequireTensor(1));
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
  const int64_t N = X.dim(0), C = X.dim(1), M = W.dim(0), Cg = W.dim(1);
  const int64_t group = ctx.node().GetInt("group", 1);
  if (group <= 0) return ctx.Error("group must be positive, got " + std::to_string(group));
  if (Cg * group != C || M % group != 0)
    return ctx.Error("X " + ShapeToString(X.shape()) + " and W " + ShapeToString(W.shape()) +
                     " do not match group " + std::to_string(group));
  std::vector<int64_t> in(X.shape().begin() + 2, X.shape().end());
  std::vector<int64_t> ks(W.shape().begin() + 2, W.shape().end());
  if (auto attr_ks = ctx.node().GetInts("kernel_shape"); !attr_ks.empty() && attr_ks != ks)
    return ctx.Error("kernel_shape attribute disagrees with W " + ShapeToString(W.shape()));
  VT_ASSIGN_OR_RETURN(SpatialGeometry geo, ComputeForwardGeometry(ctx, in, ks, true, false));
  if (geo.rank() > 8) return ctx.Unsupported("more than 8 spatial axes");

  Tensor Bt;
  if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    Bt = ctx.input(2);
    if (Bt.dtype() != dt || Bt.rank() != 1 || Bt.dim(0) != M)
      return ctx.Error("B " + ShapeToString(Bt.shape()) + " must be [" + std::to_string(M) + "]");
  }

  Shape yshape = {N, M};
  yshape.insert(yshape.end(), geo.out.begin(), geo.out.end());
  for (const auto* v : {&epi_.scale, &epi_.shift})
    if (v->size() > 1 && static_cast<int64_t>(v->size()) != M)
      return ctx.Error("fused activation has " + std::to_string(v->size()) + " scale/shift values for " +
                       std::to_string(M) + " output channels");
  Tensor Y = ctx.AllocOutput(0, dt, yshape);
  if (Y.numel() == 0) return Status::Ok();
  const bool clamp = epi_.ClampOnly();
  const bool post = !epi_.empty() && !clamp;  // activation applied after each kernel call

  bool unit = true;
  for (size_t i = 0; i < geo.rank(); ++i)
    unit = unit && geo.stride[i] == 1 && geo.pad_begin[i] == 0 && geo.pad_end[i] == 0;
  const ConvMode mode = ChooseMode(rank, W.shape(), group, unit);
  const bool prepacked = !w_panels_.empty() && mode == mode_ && IsSameConstant(W, w_const_);

  const Tensor x = AsF32(X);
  const Tensor b = Bt.defined() ? AsF32(Bt) : Tensor();
  const Tensor w = prepacked ? Tensor() : AsF32(W);
  Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, yshape);

  const float* px = x.data<float>();
  const float* pw = w.defined() ? w.data<float>() : nullptr;
  const float* pb = b.defined() ? b.data<float>() : nullptr;
  float* py = yf.mutable_data<float>();
  const int64_t in_sz = NumElements(in), out_sz = geo.out_numel();
  const int64_t kvol = geo.kernel_numel();
  const int64_t Mg = M / group, K = Cg * kvol;
  const int threads = ctx.threads();

  // 1-D runs as 2-D with H = 1.
  const bool one_d = rank == 3;
  const size_t ax = one_d ? 0 : 1;
  const int64_t H = one_d ? 1 : in[0], Wd = in[ax];
  const int64_t oh = one_d ? 1 : geo.out[0], ow = geo.out[ax];

  if (mode == ConvMode::kDepthwise) {
    kernels::F32ConvPhasePlanes pl{};
    pl.C = 1;
    pl.KH = one_d ? 1 : ks[0];
    pl.KW = ks[ax];
    pl.SH = one_d ? 1 : geo.stride[0];
    pl.SW = geo.stride[ax];
    pl.DH = one_d ? 1 : geo.dilation[0];
    pl.DW = geo.dilation[ax];
    pl.Hq = oh + (pl.KH - 1) * pl.DH / pl.SH;
    pl.Wq = ow + (pl.KW - 1) * pl.DW / pl.SW;
    const int64_t ph = one_d ? 0 : geo.pad_begin[0], pwd = geo.pad_begin[ax];
    // Tap offsets do not depend on the channel (planes are rebuilt per channel).
    std::vector<int64_t> off(static_cast<size_t>(kvol));
    for (int64_t t = 0; t < kvol; ++t)
      off[static_cast<size_t>(t)] =
          kernels::F32ConvPhasePlanesTapOffset(pl, static_cast<size_t>(t));
    const size_t plane_floats = kernels::F32ConvPhasePlanesFloats(1, pl.SH, pl.SW, pl.Hq, pl.Wq);
    // Rows at least a vector wide are filtered row by row straight into Y (the kernel blocks
    // rows to share loads); narrower maps run as one flat row over the wide grid and are
    // compacted afterwards, which keeps the vectors full.
    const bool by_rows = ow >= 16;
    const size_t wide_floats = !by_rows && pl.Wq != ow ? static_cast<size_t>(oh * pl.Wq) : 0;
    const kernels::F32DwConvFn fn = dwconv_.fn;
    const int64_t total = N * C;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
      const kernels::ScopedFlushDenormals ftz;
      ConvScratch& sc = ThreadConvScratch();
      sc.planes.Resize(plane_floats);
      sc.wide.Resize(wide_floats);
#pragma omp for schedule(static)
      for (int64_t i = 0; i < total; ++i) {
        const int64_t c = i % C;
        kernels::BuildF32ConvPhasePlanes(px + i * in_sz, 1, H, Wd, ph, pwd, pl, sc.planes.data());
        float* yc = py + i * out_sz;
        kernels::F32DwConvParams p{};
        p.taps = off.size();
        p.off = off.data();
        p.w = pw + c * kvol;
        p.bias = pb ? pb[c] : 0.0f;
        p.clamp = clamp;
        p.min = epi_.p0;
        p.max = epi_.p1;
        if (by_rows) {
          p.width = static_cast<size_t>(ow);
          p.rows = static_cast<size_t>(oh);
          p.x_pitch = static_cast<size_t>(pl.Wq);
          p.y_pitch = static_cast<size_t>(ow);
          fn(&p, sc.planes.data(), yc);
        } else {
          p.width = static_cast<size_t>(oh * pl.Wq);
          p.rows = 1;
          float* out = wide_floats ? sc.wide.data() : yc;
          fn(&p, sc.planes.data(), out);
          if (out != yc)
            for (int64_t r = 0; r < oh; ++r)
              std::memcpy(yc + r * ow, out + r * pl.Wq, static_cast<size_t>(ow) * sizeof(float));
        }
        if (post) epi_.ApplyRow(yc, static_cast<size_t>(out_sz), c);
      }
    }
    if (dt != DType::kFloat32) StoreF32As(yf, Y);
    return Status::Ok();
  }

  const kernels::F32GemmKernel& gemm =
      prepacked ? *gemm_ : kernels::F32GemmKernelForM(static_cast<size_t>(Mg));
  ConvScratch& scratch = ThreadConvScratch();  // of the calling thread
  if (!prepacked && mode == ConvMode::kTapMajor) {
    scratch.weights.Resize(static_cast<size_t>(M * K));
    for (int64_t g = 0; g < group; ++g)
      PermuteTapMajor(pw + g * Mg * K, Mg, Cg, kvol, scratch.weights.data() + g * Mg * K);
    pw = scratch.weights.data();
  }

  const bool use_planes = mode == ConvMode::kTapMajor || mode == ConvMode::kPacked;
  kernels::F32ConvPhasePlanes geo2{};  // phase-plane geometry; Hq set per slice
  int64_t extra_rows = 0, slice_rows = oh;
  if (use_planes) {
    geo2.C = Cg;
    geo2.KH = one_d ? 1 : ks[0];
    geo2.KW = ks[ax];
    geo2.SH = one_d ? 1 : geo.stride[0];
    geo2.SW = geo.stride[ax];
    geo2.DH = one_d ? 1 : geo.dilation[0];
    geo2.DW = geo.dilation[ax];
    geo2.Wq = ow + (geo2.KW - 1) * geo2.DW / geo2.SW;
    extra_rows = (geo2.KH - 1) * geo2.DH / geo2.SH;
    // Output rows per slice: the slice's planes (Cg * SH * SW plane rows per output row) stay
    // in L2 between being built and being read by the GEMM.
    constexpr int64_t kSliceFloats = int64_t{256} << 10;
    slice_rows = std::clamp<int64_t>(kSliceFloats / (Cg * geo2.SH * geo2.SW * geo2.Wq), 1, oh);
  }
  kernels::F32ConvChwNd nd{};
  if (mode == ConvMode::kIm2colNd) {
    nd.C = Cg;
    nd.rank = static_cast<int>(geo.rank());
    for (size_t i = 0; i < geo.rank(); ++i) {
      nd.in[i] = in[i];
      nd.kernel[i] = ks[i];
      nd.stride[i] = geo.stride[i];
      nd.dilation[i] = geo.dilation[i];
      nd.pad[i] = geo.pad_begin[i];
      nd.out[i] = geo.out[i];
    }
  }
  const int64_t pad_h = one_d ? 0 : geo.pad_begin[0], pad_w = geo.pad_begin[ax];

  // Output rows [oh0, oh1) of one (image, group) through phase planes.
  auto run_slice = [&](const float* xg, float* yg, int64_t m0, const F32GemmA& A,
                       const float* bias, int64_t oh0, int64_t oh1, int gemm_threads) {
    ConvScratch& sc = ThreadConvScratch();
    kernels::F32ConvPhasePlanes pl = geo2;
    pl.Hq = (oh1 - oh0) + extra_rows;
    sc.planes.Resize(kernels::F32ConvPhasePlanesFloats(Cg, pl.SH, pl.SW, pl.Hq, pl.Wq));
    pl.planes = sc.planes.data();
    // The slice is an image whose first row is input row oh0 * SH - pad_h.
    kernels::BuildF32ConvPhasePlanes(xg, Cg, H, Wd, pad_h - oh0 * pl.SH, pad_w, pl,
                                     sc.planes.data());
    F32GemmB B;
    if (mode == ConvMode::kTapMajor) {
      B.kind = F32GemmB::Kind::kKnGroups;
      B.rows = kernels::F32ConvPhasePlanesTapRows;
      B.ctx = &pl;
      B.group_rows = static_cast<size_t>(Cg);
      B.ld = kernels::F32ConvPhasePlanesChannelStride(pl);
    } else {
      B = {F32GemmB::Kind::kCallback, nullptr, 0, nullptr,
           kernels::PackF32ConvPhasePlanesToPanelsNr, &pl};
    }
    const size_t cols = static_cast<size_t>((oh1 - oh0) * pl.Wq);
    const kernels::F32GemmKernel& kr = KernelForColumns(gemm, cols);
    F32GemmEpilogue ep;
    ep.bias_m = bias;
    ep.clamp = clamp;
    ep.min = epi_.p0;
    ep.max = epi_.p1;
    const size_t band = static_cast<size_t>((oh1 - oh0) * ow);
    auto finish = [&] {
      if (post)
        for (int64_t m = 0; m < Mg; ++m) epi_.ApplyRow(yg + m * out_sz + oh0 * ow, band, m0 + m);
    };
    if (pl.Wq == ow) {  // no junk columns: write Y directly
      F32Gemm(kr, static_cast<size_t>(Mg), cols, static_cast<size_t>(K), A, B, yg + oh0 * ow,
              static_cast<size_t>(out_sz), ep, gemm_threads);
      finish();
      return;
    }
    sc.wide.Resize(static_cast<size_t>(Mg) * cols);
    F32Gemm(kr, static_cast<size_t>(Mg), cols, static_cast<size_t>(K), A, B, sc.wide.data(),
            cols, ep, gemm_threads);
    for (int64_t m = 0; m < Mg; ++m)
      for (int64_t r = 0; r < oh1 - oh0; ++r)
        std::memcpy(yg + m * out_sz + (oh0 + r) * ow, sc.wide.data() + m * cols + r * pl.Wq,
                    static_cast<size_t>(ow) * sizeof(float));
    finish();
  };

  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < group; ++g) {
      const float* xg = px + (n * C + g * Cg) * in_sz;
      float* yg = py + (n * M + g * Mg) * out_sz;
      const float* bias = pb ? pb + g * Mg : nullptr;
      F32GemmA A;
      if (prepacked) {
        A = {F32GemmA::Kind::kPanels, nullptr, 0, &w_panels_[static_cast<size_t>(g)]};
      } else {
        A = {F32GemmA::Kind::kMk, pw + g * Mg * K, static_cast<size_t>(K), nullptr};
      }
      if (use_planes) {
        const int64_t slices = (oh + slice_rows - 1) / slice_rows;
        if (threads > 1 && slices > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic)
          for (int64_t sl = 0; sl < slices; ++sl)
            run_slice(xg, yg, g * Mg, A, bias, sl * slice_rows,
                      std::min(oh, (sl + 1) * slice_rows), 1);
        } else {
          for (int64_t sl = 0; sl < slices; ++sl)
            run_slice(xg, yg, g * Mg, A, bias, sl * slice_rows,
                      std::min(oh, (sl + 1) * slice_rows), threads);
        }
        continue;
      }
      F32GemmEpilogue ep;
      ep.bias_m = bias;
      ep.clamp = clamp;
      ep.min = epi_.p0;
      ep.max = epi_.p1;
      const kernels::F32GemmKernel& kr = KernelForColumns(gemm, static_cast<size_t>(out_sz));
      auto finish = [&](int64_t n0, int64_t n1) {
        if (!post) return;
        // Threaded GEMMs wrote the whole output: the rows are shared out the same way.
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
        for (int64_t m = 0; m < Mg; ++m)
          epi_.ApplyRow(yg + m * out_sz + n0, static_cast<size_t>(n1 - n0), g * Mg + m);
      };
      if (mode == ConvMode::kPointwise) {
        // With a post-GEMM activation, bands of the GEMM's own N block (1024 columns): the
        // activation then reads values the GEMM has just written. One band when threaded
        // (the GEMM splits its tiles over the threads).
        const int64_t band = post && threads == 1 ? 1024 : out_sz;
        for (int64_t n0 = 0; n0 < out_sz; n0 += band) {
          const int64_t n1 = std::min(out_sz, n0 + band);
          const F32GemmB B{F32GemmB::Kind::kKn, xg + n0, static_cast<size_t>(in_sz)};
          F32Gemm(kr, static_cast<size_t>(Mg), static_cast<size_t>(n1 - n0),
                  static_cast<size_t>(K), A, B, yg + n0, static_cast<size_t>(out_sz), ep, threads);
          finish(n0, n1);
        }
        continue;
      }
      nd.x = xg;
      const F32GemmB B{F32GemmB::Kind::kCallback, nullptr, 0, nullptr,
                       kernels::PackF32ConvChwNdToPanelsNr, &nd};
      F32Gemm(kr, static_cast<size_t>(Mg), static_cast<size_t>(out_sz), static_cast<size_t>(K),
              A, B, yg, static_cast<size_t>(out_sz), ep, threads);
      finish(0, out_sz);
    }
  }
  if (dt != DType::kFloat32) StoreF32As(yf, Y);
  return Status::Ok();
}

Expected<std::unique_ptr<OpKernel>> MakeConv(const KernelInit& init) {
  const Node& node = init.node;
  const Tensor* w = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
  // Channel count unknown (W computed at run time): Compute checks the scale/shift sizes.
  VT_ASSIGN_OR_RETURN(ConvEpilogue epi,
                      ParseConvEpilogue(node, w != nullptr && w->rank() >= 1 ? w->dim(0) : -1));
  auto k = std::make_unique<ConvKernel>(init);
  k->set_epilogue(std::move(epi));
  return std::unique_ptr<OpKernel>(std::move(k));
}

VT_REGISTER_OP("", "Conv", 1, kMaxOpset, KernelFactory(MakeConv));

}  // namespace
}  // namespace vt::ops
