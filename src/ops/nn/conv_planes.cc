// Tap-major and packed modes (1-D / 2-D): the input of one (image, group) is rearranged into
// phase planes (kernels/conv/f32_conv_pack.h) slice by slice of output rows, and each slice is
// one GEMM over the "wide" output grid (junk columns dropped when the planes are wider than
// the output). Tap-major orders the GEMM rows (tap, channel), so each tap's rows are a strided
// matrix the microkernel reads in place; packed orders them (channel, tap) and copies them into
// panels block by block (few channels would make tap-sized K blocks tiny).
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "ops/nn/conv_modes.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;

// What every slice of one call shares.
struct PlaneSlices {
  const ConvCall* c;
  Conv2dView v;
  kernels::F32ConvPhasePlanes geo;  // Hq and planes set per slice
  int64_t extra_rows;               // plane rows beyond the output rows of a slice
  int64_t slice_rows;               // output rows per slice
  bool tap_major;
};

PlaneSlices PlanSlices(const ConvCall& c, bool tap_major) {
  PlaneSlices s{&c, View2d(*c.geo), {}, 0, 0, tap_major};
  s.geo = PhasePlaneGeometry(s.v, c.Cg());
  s.extra_rows = (s.geo.KH - 1) * s.geo.DH / s.geo.SH;
  // Output rows per slice: the slice's planes (Cg * SH * SW plane rows per output row) stay
  // in L2 between being built and being read by the GEMM.
  constexpr int64_t kSliceFloats = int64_t{256} << 10;
  s.slice_rows = std::clamp<int64_t>(kSliceFloats / (c.Cg() * s.geo.SH * s.geo.SW * s.geo.Wq), 1,
                                     s.v.OH);
  return s;
}

// Output rows [oh0, oh1) of group g of one image: xg, yg point at the group's first input and
// output channel.
void RunSlice(const PlaneSlices& s, const float* xg, float* yg, int64_t g, int64_t oh0,
              int64_t oh1, int gemm_threads) {
  const ConvCall& c = *s.c;
  const int64_t Mg = c.Mg(), Cg = c.Cg(), out_sz = c.out_numel(), ow = s.v.OW;
  ConvScratch& sc = ThreadConvScratch();
  kernels::F32ConvPhasePlanes pl = s.geo;
  pl.Hq = (oh1 - oh0) + s.extra_rows;
  sc.planes.Resize(kernels::F32ConvPhasePlanesFloats(Cg, pl.SH, pl.SW, pl.Hq, pl.Wq));
  pl.planes = sc.planes.data();
  // The slice is an image whose first row is input row oh0 * SH - PH.
  kernels::BuildF32ConvPhasePlanes(xg, Cg, s.v.H, s.v.W, s.v.PH - oh0 * pl.SH, s.v.PW, pl,
                                   sc.planes.data());
  F32GemmB B;
  if (s.tap_major) {
    B.kind = F32GemmB::Kind::kKnGroups;
    B.rows = kernels::F32ConvPhasePlanesTapRows;
    B.ctx = &pl;
    B.group_rows = static_cast<size_t>(Cg);
    B.ld = kernels::F32ConvPhasePlanesChannelStride(pl);
  } else {
    B = {F32GemmB::Kind::kCallback, nullptr, 0, nullptr, kernels::PackF32ConvPhasePlanesToPanelsNr,
         &pl};
  }
  const size_t cols = static_cast<size_t>((oh1 - oh0) * pl.Wq);
  const kernels::F32GemmKernel& kr = KernelForColumns(*c.gemm, cols);
  const F32GemmA A = c.FilterOperand(g);
  const kernels::F32GemmEpilogue ep = c.GemmEpilogue(g);
  const size_t band = static_cast<size_t>((oh1 - oh0) * ow);
  auto finish = [&] {
    if (c.post())
      for (int64_t m = 0; m < Mg; ++m) c.epi->ApplyRow(yg + m * out_sz + oh0 * ow, band, g * Mg + m);
  };
  if (pl.Wq == ow) {  // no junk columns: write Y directly
    kernels::F32Gemm(kr, static_cast<size_t>(Mg), cols, static_cast<size_t>(c.K()), A, B,
                     yg + oh0 * ow, static_cast<size_t>(out_sz), ep, gemm_threads);
    finish();
    return;
  }
  sc.wide.Resize(static_cast<size_t>(Mg) * cols);
  kernels::F32Gemm(kr, static_cast<size_t>(Mg), cols, static_cast<size_t>(c.K()), A, B,
                   sc.wide.data(), cols, ep, gemm_threads);
  for (int64_t m = 0; m < Mg; ++m)
    for (int64_t r = 0; r < oh1 - oh0; ++r)
      std::memcpy(yg + m * out_sz + (oh0 + r) * ow, sc.wide.data() + m * cols + r * pl.Wq,
                  static_cast<size_t>(ow) * sizeof(float));
  finish();
}

void RunPlanes(const ConvCall& c, bool tap_major) {
  const PlaneSlices s = PlanSlices(c, tap_major);
  const int64_t oh = s.v.OH, in_sz = c.in_numel(), out_sz = c.out_numel();
  const int64_t slices = (oh + s.slice_rows - 1) / s.slice_rows;
  for (int64_t n = 0; n < c.N; ++n) {
    for (int64_t g = 0; g < c.group; ++g) {
      const float* xg = c.x + (n * c.C + g * c.Cg()) * in_sz;
      float* yg = c.y + (n * c.M + g * c.Mg()) * out_sz;
      // Several slices share the threads out; a single slice threads its GEMM.
      if (c.threads > 1 && slices > 1) {
#pragma omp parallel for num_threads(c.threads) schedule(dynamic)
        for (int64_t sl = 0; sl < slices; ++sl)
          RunSlice(s, xg, yg, g, sl * s.slice_rows, std::min(oh, (sl + 1) * s.slice_rows), 1);
      } else {
        for (int64_t sl = 0; sl < slices; ++sl)
          RunSlice(s, xg, yg, g, sl * s.slice_rows, std::min(oh, (sl + 1) * s.slice_rows),
                   c.threads);
      }
    }
  }
}

}  // namespace

void RunTapMajorConv(const ConvCall& c) {
  if (c.w_panels != nullptr) return RunPlanes(c, true);
  // A filter known only now: its rows reordered (tap, channel) per group, as the packed form is.
  ConvScratch& scratch = ThreadConvScratch();  // of the calling thread
  const int64_t Mg = c.Mg(), K = c.K();
  scratch.weights.Resize(static_cast<size_t>(c.M * K));
  for (int64_t g = 0; g < c.group; ++g)
    PermuteTapMajor(c.w + g * Mg * K, Mg, c.Cg(), c.geo->kernel_numel(),
                    scratch.weights.data() + g * Mg * K);
  ConvCall permuted = c;
  permuted.w = scratch.weights.data();
  RunPlanes(permuted, true);
}

void RunPackedConv(const ConvCall& c) {
  if (!RunDirectConv(c)) RunPlanes(c, false);
}

}  // namespace vt::ops
