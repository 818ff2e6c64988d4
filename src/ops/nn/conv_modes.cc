#include "ops/nn/conv_modes.h"

namespace vt::ops {

int64_t ConvCall::in_numel() const {
  int64_t n = 1;
  for (int64_t v : geo->in) n *= v;
  return n;
}

int64_t ConvCall::out_numel() const { return geo->out_numel(); }

kernels::F32GemmEpilogue ConvCall::GemmEpilogue(int64_t g) const {
  kernels::F32GemmEpilogue ep;
  ep.bias_m = bias != nullptr ? bias + g * Mg() : nullptr;
  ep.clamp = clamp();
  ep.min = epi->p0;
  ep.max = epi->p1;
  return ep;
}

kernels::F32GemmA ConvCall::FilterOperand(int64_t g) const {
  using A = kernels::F32GemmA;
  if (w_panels != nullptr) return {A::Kind::kPanels, nullptr, 0, &(*w_panels)[static_cast<size_t>(g)]};
  return {A::Kind::kMk, w + g * Mg() * K(), static_cast<size_t>(K()), nullptr};
}

Conv2dView View2d(const SpatialGeometry& geo) {
  const bool one_d = geo.rank() == 1;
  const size_t a = one_d ? 0 : 1;  // the width axis
  Conv2dView v{};
  v.H = one_d ? 1 : geo.in[0];
  v.W = geo.in[a];
  v.OH = one_d ? 1 : geo.out[0];
  v.OW = geo.out[a];
  v.KH = one_d ? 1 : geo.kernel[0];
  v.KW = geo.kernel[a];
  v.SH = one_d ? 1 : geo.stride[0];
  v.SW = geo.stride[a];
  v.DH = one_d ? 1 : geo.dilation[0];
  v.DW = geo.dilation[a];
  v.PH = one_d ? 0 : geo.pad_begin[0];
  v.PW = geo.pad_begin[a];
  return v;
}

kernels::F32ConvPhasePlanes PhasePlaneGeometry(const Conv2dView& v, int64_t channels) {
  kernels::F32ConvPhasePlanes pl{};
  pl.C = channels;
  pl.KH = v.KH;
  pl.KW = v.KW;
  pl.SH = v.SH;
  pl.SW = v.SW;
  pl.DH = v.DH;
  pl.DW = v.DW;
  pl.Wq = v.OW + (v.KW - 1) * v.DW / v.SW;
  return pl;
}

ConvScratch& ThreadConvScratch() {
  thread_local ConvScratch s;
  return s;
}

void PermuteTapMajor(const float* w, int64_t mg, int64_t c, int64_t taps, float* dst) {
  for (int64_t m = 0; m < mg; ++m)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t t = 0; t < taps; ++t) dst[(m * taps + t) * c + ci] = w[(m * c + ci) * taps + t];
}

const kernels::F32GemmKernel& KernelForColumns(const kernels::F32GemmKernel& wide, size_t cols) {
  if (cols > 8) return wide;
  const kernels::F32GemmKernel* narrow = kernels::F32GemmNarrowKernel(wide);
  return narrow != nullptr ? *narrow : wide;
}

ConvModeFn ConvModeFunction(ConvWeightMode mode) {
  switch (mode) {
    case ConvWeightMode::kDepthwise: return RunDepthwiseConv;
    case ConvWeightMode::kPointwise: return RunPointwiseConv;
    case ConvWeightMode::kTapMajor: return RunTapMajorConv;
    case ConvWeightMode::kPacked: return RunPackedConv;
    case ConvWeightMode::kIm2colNd: return RunIm2colNdConv;
  }
  return RunIm2colNdConv;
}

}  // namespace vt::ops
