// A depthwise Conv and the pointwise Conv it feeds, run as one (passes/fusion.h
// FuseDepthwisePointwise): band by band of output rows, the depthwise kernel writes the band of
// every channel into a per-thread buffer (as RunDepthwiseConv does for a whole channel: phase
// planes, then kernels/conv/f32_dwconv.h), and the pointwise GEMM reads that buffer as its B
// operand (as RunPointwiseConv reads X). Each output gets the same operations in the same order
// as in the two Convs, so the results are the same bits; the depthwise output is never
// written to memory.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "kernels/cpu/flush_denormals.h"
#include "ops/nn/conv_modes.h"
#include "vtensor/graph/fused_attributes.h"

namespace vt::ops {
namespace {

using kernels::F32GemmB;

// Depthwise output floats per band (all channels): with the pointwise output band they stay
// in a 1 MiB L2.
constexpr int64_t kBandFloats = int64_t{64} << 10;

// Depthwise rows [oh0, oh1) of every channel of image n into `band` [C, rows, OW].
void DepthwiseBand(const DepthwiseStage& d, const Conv2dView& v, int64_t C, int64_t n,
                   int64_t oh0, int64_t oh1, float* band) {
  const kernels::ScopedFlushDenormals ftz;  // as RunDepthwiseConv
  ConvScratch& sc = ThreadConvScratch();
  kernels::F32ConvPhasePlanes pl = PhasePlaneGeometry(v, 1);
  pl.Hq = (oh1 - oh0) + (pl.KH - 1) * pl.DH / pl.SH;
  sc.planes.Resize(kernels::F32ConvPhasePlanesFloats(1, pl.SH, pl.SW, pl.Hq, pl.Wq));
  const int64_t taps = v.KH * v.KW, in_sz = v.H * v.W, rows = oh1 - oh0;
  std::vector<int64_t>& off = sc.tap_offsets;
  off.resize(static_cast<size_t>(taps));
  for (int64_t t = 0; t < taps; ++t)
    off[static_cast<size_t>(t)] = kernels::F32ConvPhasePlanesTapOffset(pl, static_cast<size_t>(t));
  kernels::F32DwConvParams p{};
  p.width = static_cast<size_t>(v.OW);
  p.rows = static_cast<size_t>(rows);
  p.x_pitch = static_cast<size_t>(pl.Wq);
  p.y_pitch = static_cast<size_t>(v.OW);
  p.taps = off.size();
  p.off = off.data();
  p.clamp = d.epi->ClampOnly();
  p.min = d.epi->p0;
  p.max = d.epi->p1;
  const bool post = !d.epi->empty() && !d.epi->ClampOnly();
  for (int64_t ch = 0; ch < C; ++ch) {
    // The band is an image whose first row is input row oh0 * SH - PH.
    const float* xc = d.x + (n * C + ch) * in_sz;
    const int64_t ph = v.PH - oh0 * pl.SH;
    if (ch + 1 < C) kernels::PrefetchF32ConvPhasePlanesInput(xc + in_sz, v.H, v.W, ph, pl);
    kernels::BuildF32ConvPhasePlanes(xc, 1, v.H, v.W, ph, v.PW, pl, sc.planes.data());
    p.w = d.w + ch * taps;
    p.bias = d.bias != nullptr ? d.bias[ch] : 0.0f;
    float* yc = band + ch * rows * v.OW;
    d.kernel->fn(&p, sc.planes.data(), yc);
    if (post) d.epi->ApplyRow(yc, static_cast<size_t>(rows * v.OW), ch);
  }
}

// Output rows [oh0, oh1) of image n.
void RunBand(const ConvCall& c, const DepthwiseStage& d, const Conv2dView& v, int64_t n,
             int64_t oh0, int64_t oh1) {
  const int64_t cols = (oh1 - oh0) * v.OW, out_sz = v.OH * v.OW;
  kernels::AlignedFloats& band = ThreadConvScratch().wide;
  band.Resize(static_cast<size_t>(c.C * cols));
  DepthwiseBand(d, v, c.C, n, oh0, oh1, band.data());
  float* y = c.y + n * c.M * out_sz + oh0 * v.OW;
  const F32GemmB B{F32GemmB::Kind::kKn, band.data(), static_cast<size_t>(cols)};
  kernels::F32Gemm(KernelForColumns(*c.gemm, static_cast<size_t>(cols)), static_cast<size_t>(c.M),
                   static_cast<size_t>(cols), static_cast<size_t>(c.C), c.FilterOperand(0), B, y,
                   static_cast<size_t>(out_sz), c.GemmEpilogue(0), 1);
  if (c.post())
    for (int64_t m = 0; m < c.M; ++m) c.epi->ApplyRow(y + m * out_sz, static_cast<size_t>(cols), m);
}

}  // namespace

Expected<SpatialGeometry> DepthwiseStageGeometry(const KernelContext& ctx,
                                                 const std::vector<int64_t>& in,
                                                 const std::vector<int64_t>& kernel) {
  const Node& node = ctx.node();
  SpatialGeometry g;
  g.in = in;
  g.kernel = kernel;
  g.stride = node.GetInts(kConvDwStridesAttr);
  g.dilation = node.GetInts(kConvDwDilationsAttr);
  const std::vector<int64_t> pads = node.GetInts(kConvDwPadsAttr);
  if (in.size() != 2 || kernel.size() != 2 || g.stride.size() != 2 || g.dilation.size() != 2 ||
      pads.size() != 4)
    return ctx.Error("fused depthwise stage needs 2-D input and kernel, 2 strides, 2 dilations "
                     "and 4 pads");
  g.pad_begin = {pads[0], pads[1]};
  g.pad_end = {pads[2], pads[3]};
  g.out.resize(2);
  for (size_t i = 0; i < 2; ++i) {
    if (g.stride[i] <= 0 || g.dilation[i] <= 0 || g.pad_begin[i] < 0 || g.pad_end[i] < 0 ||
        kernel[i] <= 0)
      return ctx.Error("fused depthwise stage has a non-positive stride, dilation or kernel, or "
                       "a negative pad");
    const int64_t span = (kernel[i] - 1) * g.dilation[i] + 1;
    const int64_t padded = in[i] + g.pad_begin[i] + g.pad_end[i];
    if (padded < span)
      return ctx.Error("fused depthwise stage: input extent " + std::to_string(in[i]) +
                       " with its pads is smaller than the kernel");
    g.out[i] = (padded - span) / g.stride[i] + 1;
  }
  return g;
}

void RunDepthwisePointwiseConv(const ConvCall& c, const DepthwiseStage& d) {
  const Conv2dView v = View2d(d.geo);
  // Rows per band: a band's depthwise output fits kBandFloats, and every thread gets a band
  // (the GEMM of a band runs on one thread).
  const int64_t per_thread = (v.OH + c.threads - 1) / std::max(c.threads, 1);
  const int64_t rows = std::clamp<int64_t>(kBandFloats / std::max<int64_t>(c.C * v.OW, 1), 1,
                                           std::max<int64_t>(per_thread, 1));
  const int64_t bands = (v.OH + rows - 1) / rows;
  for (int64_t n = 0; n < c.N; ++n) {
#pragma omp parallel for num_threads(c.threads) schedule(dynamic) if (c.threads > 1 && bands > 1)
    for (int64_t b = 0; b < bands; ++b)
      RunBand(c, d, v, n, b * rows, std::min(v.OH, (b + 1) * rows));
  }
}

}  // namespace vt::ops
