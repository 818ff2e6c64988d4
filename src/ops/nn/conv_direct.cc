// Packed mode's direct path: a Conv of few input channels (an RGB stem) with its filter
// prepacked for an AVX-512 GEMM row runs kernels/conv/f32_conv_direct.h over the same panels,
// blocks of output rows spread over the threads; the kernel adds the bias and a clamp, and another
// fused activation runs on each output row right after it. Same bits as the GEMM over phase
// planes (the kernel's summation is the GEMM's).
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/conv/f32_conv_direct.h"
#include "ops/nn/conv_modes.h"

namespace vt::ops {

bool RunDirectConv(const ConvCall& c) {
  if (c.w_panels == nullptr || c.group != 1 || c.w_panels->size() != 1 ||
      std::strcmp(c.gemm->isa, "avx512") != 0)
    return false;
  const Conv2dView v = View2d(*c.geo);
  kernels::F32DirectConvGeometry g;
  g.C = c.C;
  g.H = v.H;
  g.W = v.W;
  g.KH = v.KH;
  g.KW = v.KW;
  g.SH = v.SH;
  g.SW = v.SW;
  g.DH = v.DH;
  g.DW = v.DW;
  g.PH = v.PH;
  g.PW = v.PW;
  g.OH = v.OH;
  g.OW = v.OW;
  const kernels::F32Panels& w = (*c.w_panels)[0];
  if (w.width != c.gemm->mr || !kernels::F32DirectConvApplies(g, w.width)) return false;
  // Blocks of output rows, over every image, shared out to the threads: a few rows share the
  // cost of starting a block. A call with fewer blocks than threads (a 1-D signal is one row)
  // keeps the GEMM, which threads its columns.
  constexpr int64_t kRowsPerBlock = 4;
  const int64_t blocks = (v.OH + kRowsPerBlock - 1) / kRowsPerBlock, total = c.N * blocks;
  if (total < c.threads) return false;
  const int64_t in_sz = c.in_numel(), out_sz = c.out_numel();
  const bool clamp = c.clamp(), post = c.post();
#pragma omp parallel num_threads(c.threads) if (c.threads > 1)
  {
    ConvScratch& sc = ThreadConvScratch();
    sc.planes.Resize(kernels::F32DirectConvRowFloats(g));
#pragma omp for schedule(static)
    for (int64_t i = 0; i < total; ++i) {
      const int64_t n = i / blocks, oh0 = i % blocks * kRowsPerBlock;
      const int64_t oh1 = std::min(v.OH, oh0 + kRowsPerBlock);
      float* y = c.y + n * c.M * out_sz;
      kernels::f32_conv_direct_avx512(g, w, c.M, c.bias, clamp, c.epi->p0, c.epi->p1,
                                      c.x + n * c.C * in_sz, oh0, oh1, y, sc.planes.data());
      if (post)
        for (int64_t m = 0; m < c.M; ++m)
          c.epi->ApplyRow(y + m * out_sz + oh0 * v.OW, static_cast<size_t>((oh1 - oh0) * v.OW), m);
    }
  }
  return true;
}

}  // namespace vt::ops
