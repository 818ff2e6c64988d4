// Pointwise and N-d im2col modes: one GEMM per (image, group) over the whole output, B being
// X itself (pointwise: 1x1, stride 1, no pads) or im2col panels packed block by block
// (kernels/conv/f32_conv_pack.h F32ConvChwNd, any number of spatial axes). A post-GEMM
// epilogue runs on the rows the GEMM wrote.
#include <omp.h>

#include <algorithm>

#include "ops/nn/conv_modes.h"

namespace vt::ops {
namespace {

using kernels::F32GemmB;

// The epilogue on columns [n0, n1) of every output row of group g (yg: its first channel).
void FinishColumns(const ConvCall& c, float* yg, int64_t g, int64_t n0, int64_t n1) {
  if (!c.post()) return;
  const int64_t Mg = c.Mg(), out_sz = c.out_numel();
  // Threaded GEMMs wrote the whole output: the rows are shared out the same way.
#pragma omp parallel for num_threads(c.threads) schedule(static) if (c.threads > 1)
  for (int64_t m = 0; m < Mg; ++m)
    c.epi->ApplyRow(yg + m * out_sz + n0, static_cast<size_t>(n1 - n0), g * Mg + m);
}

}  // namespace

void RunPointwiseConv(const ConvCall& c) {
  const int64_t in_sz = c.in_numel(), out_sz = c.out_numel();
  const kernels::F32GemmKernel& kr = KernelForColumns(*c.gemm, static_cast<size_t>(out_sz));
  // With a post-GEMM activation, bands of the GEMM's own N block (1024 columns): the
  // activation then reads values the GEMM has just written. One band when threaded (the GEMM
  // splits its tiles over the threads).
  const int64_t band = c.post() && c.threads == 1 ? 1024 : out_sz;
  for (int64_t n = 0; n < c.N; ++n) {
    for (int64_t g = 0; g < c.group; ++g) {
      const float* xg = c.x + (n * c.C + g * c.Cg()) * in_sz;
      float* yg = c.y + (n * c.M + g * c.Mg()) * out_sz;
      const kernels::F32GemmA A = c.FilterOperand(g);
      const kernels::F32GemmEpilogue ep = c.GemmEpilogue(g);
      for (int64_t n0 = 0; n0 < out_sz; n0 += band) {
        const int64_t n1 = std::min(out_sz, n0 + band);
        const F32GemmB B{F32GemmB::Kind::kKn, xg + n0, static_cast<size_t>(in_sz)};
        kernels::F32Gemm(kr, static_cast<size_t>(c.Mg()), static_cast<size_t>(n1 - n0),
                         static_cast<size_t>(c.K()), A, B, yg + n0, static_cast<size_t>(out_sz),
                         ep, c.threads);
        FinishColumns(c, yg, g, n0, n1);
      }
    }
  }
}

void RunIm2colNdConv(const ConvCall& c) {
  const SpatialGeometry& geo = *c.geo;
  const int64_t in_sz = c.in_numel(), out_sz = c.out_numel();
  kernels::F32ConvChwNd nd{};
  nd.C = c.Cg();
  nd.rank = static_cast<int>(geo.rank());
  for (size_t i = 0; i < geo.rank(); ++i) {
    nd.in[i] = geo.in[i];
    nd.kernel[i] = geo.kernel[i];
    nd.stride[i] = geo.stride[i];
    nd.dilation[i] = geo.dilation[i];
    nd.pad[i] = geo.pad_begin[i];
    nd.out[i] = geo.out[i];
  }
  const kernels::F32GemmKernel& kr = KernelForColumns(*c.gemm, static_cast<size_t>(out_sz));
  for (int64_t n = 0; n < c.N; ++n) {
    for (int64_t g = 0; g < c.group; ++g) {
      nd.x = c.x + (n * c.C + g * c.Cg()) * in_sz;
      float* yg = c.y + (n * c.M + g * c.Mg()) * out_sz;
      const F32GemmB B{F32GemmB::Kind::kCallback, nullptr, 0, nullptr,
                       kernels::PackF32ConvChwNdToPanelsNr, &nd};
      kernels::F32Gemm(kr, static_cast<size_t>(c.Mg()), static_cast<size_t>(out_sz),
                       static_cast<size_t>(c.K()), c.FilterOperand(g), B, yg,
                       static_cast<size_t>(out_sz), c.GemmEpilogue(g), c.threads);
      FinishColumns(c, yg, g, 0, out_sz);
    }
  }
}

}  // namespace vt::ops
