// Depthwise mode (group == C == M, 1-D / 2-D): each channel's phase planes are built and run
// through the dedicated depthwise kernel (kernels/conv/f32_dwconv.h), vectorised over output
// width; the epilogue is the kernel's clamp or runs on the channel right after it.
#include <omp.h>

#include <cstring>
#include <vector>

#include "kernels/cpu/flush_denormals.h"
#include "ops/nn/conv_modes.h"

namespace vt::ops {

void RunDepthwiseConv(const ConvCall& c) {
  const Conv2dView v = View2d(*c.geo);
  kernels::F32ConvPhasePlanes pl = PhasePlaneGeometry(v, 1);
  pl.Hq = v.OH + (pl.KH - 1) * pl.DH / pl.SH;
  const int64_t kvol = c.geo->kernel_numel(), in_sz = c.in_numel(), out_sz = c.out_numel();
  // Tap offsets do not depend on the channel (planes are rebuilt per channel).
  std::vector<int64_t> off(static_cast<size_t>(kvol));
  for (int64_t t = 0; t < kvol; ++t)
    off[static_cast<size_t>(t)] = kernels::F32ConvPhasePlanesTapOffset(pl, static_cast<size_t>(t));
  const size_t plane_floats = kernels::F32ConvPhasePlanesFloats(1, pl.SH, pl.SW, pl.Hq, pl.Wq);
  // Rows at least a vector wide are filtered row by row straight into Y (the kernel blocks
  // rows to share loads); narrower maps run as one flat row over the wide grid and are
  // compacted afterwards, which keeps the vectors full.
  const bool by_rows = v.OW >= 16;
  const size_t wide_floats = !by_rows && pl.Wq != v.OW ? static_cast<size_t>(v.OH * pl.Wq) : 0;
  const kernels::F32DwConvFn fn = c.dwconv->fn;
  const bool clamp = c.clamp(), post = c.post();
  const int64_t total = c.N * c.C;
#pragma omp parallel num_threads(c.threads) if (c.threads > 1)
  {
    const kernels::ScopedFlushDenormals ftz;
    ConvScratch& sc = ThreadConvScratch();
    sc.planes.Resize(plane_floats);
    sc.wide.Resize(wide_floats);
#pragma omp for schedule(static)
    for (int64_t i = 0; i < total; ++i) {
      const int64_t ch = i % c.C;
      if (i + 1 < total)
        kernels::PrefetchF32ConvPhasePlanesInput(c.x + (i + 1) * in_sz, v.H, v.W, v.PH, pl);
      kernels::BuildF32ConvPhasePlanes(c.x + i * in_sz, 1, v.H, v.W, v.PH, v.PW, pl,
                                       sc.planes.data());
      float* yc = c.y + i * out_sz;
      kernels::F32DwConvParams p{};
      p.taps = off.size();
      p.off = off.data();
      p.w = c.w + ch * kvol;
      p.bias = c.bias != nullptr ? c.bias[ch] : 0.0f;
      p.clamp = clamp;
      p.min = c.epi->p0;
      p.max = c.epi->p1;
      if (by_rows) {
        p.width = static_cast<size_t>(v.OW);
        p.rows = static_cast<size_t>(v.OH);
        p.x_pitch = static_cast<size_t>(pl.Wq);
        p.y_pitch = static_cast<size_t>(v.OW);
        fn(&p, sc.planes.data(), yc);
      } else {
        p.width = static_cast<size_t>(v.OH * pl.Wq);
        p.rows = 1;
        float* out = wide_floats ? sc.wide.data() : yc;
        fn(&p, sc.planes.data(), out);
        if (out != yc)
          for (int64_t r = 0; r < v.OH; ++r)
            std::memcpy(yc + r * v.OW, out + r * pl.Wq, static_cast<size_t>(v.OW) * sizeof(float));
      }
      if (post) c.epi->ApplyRow(yc, static_cast<size_t>(out_sz), ch);
    }
  }
}

}  // namespace vt::ops
