// Winograd mode: a constant 3x3 filter of an ungrouped 2-D convolution with unit strides and
// dilations (kernels/conv/f32_winograd.h). The filter's 36 transformed GEMM operands are made
// when the kernel is created; each image is one kernels::RunF32WinogradConv call, which adds
// the bias and a clamp itself; another fused activation runs on each band of tiles as soon as
// the band is written.
#include <algorithm>

#include "ops/nn/conv_modes.h"

namespace vt::ops {
namespace {

struct ImageCtx {
  const ConvCall* c;
  float* y;  // the image's output
};

void FinishTiles(const void* ctx, int64_t tr, int64_t tw0, int64_t tw1) {
  const auto* r = static_cast<const ImageCtx*>(ctx);
  const ConvCall& c = *r->c;
  const int64_t oh = c.geo->out[0], ow = c.geo->out[1], out_sz = c.out_numel();
  const int64_t col0 = 4 * tw0, cols = std::min(4 * tw1, ow) - col0;
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t row = 4 * tr; row < std::min(4 * tr + 4, oh); ++row)
      c.epi->ApplyRow(r->y + m * out_sz + row * ow + col0, static_cast<size_t>(cols), m);
}

}  // namespace

void RunWinogradConv(const ConvCall& c, const kernels::F32WinogradKernel& k) {
  kernels::F32WinogradConv wc;
  wc.geo.C = c.C;
  wc.geo.H = c.geo->in[0];
  wc.geo.W = c.geo->in[1];
  wc.geo.PH = c.geo->pad_begin[0];
  wc.geo.PW = c.geo->pad_begin[1];
  wc.geo.OH = c.geo->out[0];
  wc.geo.OW = c.geo->out[1];
  wc.M = c.M;
  wc.u = c.winograd->data();
  wc.gemm = c.gemm;
  wc.epilogue.bias = c.bias;
  wc.epilogue.clamp = c.clamp();
  wc.epilogue.min = c.epi->p0;
  wc.epilogue.max = c.epi->p1;
  const int64_t in_sz = c.in_numel(), out_sz = c.out_numel();
  for (int64_t n = 0; n < c.N; ++n) {
    ImageCtx image{&c, c.y + n * c.M * out_sz};
    wc.x = c.x + n * c.C * in_sz;
    wc.y = image.y;
    wc.tiles_done = c.post() ? FinishTiles : nullptr;
    wc.tiles_ctx = &image;
    kernels::RunF32WinogradConv(k, wc, c.threads);
  }
}

}  // namespace vt::ops
