// The five ways Conv computes (forms/weight_form.h ConvWeightMode), one function each; the
// Conv kernel (conv.cc) validates a call, gathers it into a ConvCall and runs the mode the
// weight form chose at kernel creation (or, for a filter only known at run time, the mode of
// its shape). How each mode forms the GEMM's B operand is described in conv.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"
#include "kernels/conv/f32_dwconv.h"
#include "kernels/conv/f32_winograd.h"
#include "kernels/gemm/f32_gemm.h"
#include "ops/nn/conv_epilogue.h"
#include "ops/nn/conv_geometry.h"
#include "vtensor/forms/weight_form.h"

namespace vt::ops {

// One validated Conv call in f32: X [N, C, in...], W [M, C/group, kernel...], Y [N, M, out...]
// (all contiguous), the geometry and the fused epilogue.
struct ConvCall {
  const float* x = nullptr;
  // W row-major, or null when `w_panels` holds it packed.
  const float* w = nullptr;
  // W packed per group into MR panels for `gemm` (weight form kF32ConvAPanels, or packed at
  // kernel creation); null when W is read from `w`.
  const std::vector<kernels::F32Panels>* w_panels = nullptr;
  // The GEMM row: the one the panels were packed for, else the row for M / group.
  const kernels::F32GemmKernel* gemm = nullptr;
  const kernels::F32DwConvKernel* dwconv = nullptr;  // depthwise mode's kernel
  // Winograd mode: the 36 transformed filter operands (kernels::MakeF32WinogradFilterPanels
  // for `gemm`), else null.
  const std::vector<kernels::F32Panels>* winograd = nullptr;
  const float* bias = nullptr;                        // [M] or null
  float* y = nullptr;
  int64_t N = 0, C = 0, M = 0, group = 1;
  const SpatialGeometry* geo = nullptr;
  const ConvEpilogue* epi = nullptr;
  int threads = 1;

  int64_t Cg() const { return C / group; }
  int64_t Mg() const { return M / group; }
  int64_t in_numel() const;   // spatial elements of one input channel
  int64_t out_numel() const;  // spatial elements of one output channel
  int64_t K() const { return Cg() * geo->kernel_numel(); }  // GEMM reduction length
  // The epilogue is a min/max clamp the GEMM / depthwise kernel applies itself.
  bool clamp() const { return epi->ClampOnly(); }
  // The epilogue is applied after each kernel call, on the band of output it wrote.
  bool post() const { return !epi->empty() && !epi->ClampOnly(); }
  // The GEMM epilogue of one group: bias rows and the kernel's clamp.
  kernels::F32GemmEpilogue GemmEpilogue(int64_t g) const;
  // Operand A (the filter) of group g.
  kernels::F32GemmA FilterOperand(int64_t g) const;
};

// A 1-D or 2-D convolution seen as 2-D (1-D: H = KH = OH = 1, stride / dilation 1, pad 0).
struct Conv2dView {
  int64_t H, W, OH, OW, KH, KW, SH, SW, DH, DW, PH, PW;
};
Conv2dView View2d(const SpatialGeometry& geo);

// The phase-plane geometry (kernels/conv/f32_conv_pack.h) of `v` for `channels` channels;
// Hq and planes are left to the caller.
kernels::F32ConvPhasePlanes PhasePlaneGeometry(const Conv2dView& v, int64_t channels);

// Per-thread buffers reused across calls (large fresh allocations would page-fault on every
// inference).
struct ConvScratch {
  kernels::AlignedFloats planes;
  kernels::AlignedFloats wide;
  kernels::AlignedFloats weights;
  std::vector<int64_t> tap_offsets;  // a depthwise band's taps (their offsets depend on its rows)
};
ConvScratch& ThreadConvScratch();

// W_g [Mg, C, taps] -> [Mg, taps, C] (GEMM rows in tap-major order).
void PermuteTapMajor(const float* w, int64_t mg, int64_t c, int64_t taps, float* dst);

// Outputs with only a few columns (a 1-D signal convolved down to a handful of frames) would
// leave most lanes of a wide tile idle; the narrow kernel of the same MR reads the same panels.
const kernels::F32GemmKernel& KernelForColumns(const kernels::F32GemmKernel& wide, size_t cols);

// The modes. Each writes all of Y, epilogue included.
void RunDepthwiseConv(const ConvCall& c);  // group == C == M, 1-D / 2-D
void RunPointwiseConv(const ConvCall& c);  // 1x1, stride 1, no pads: B is X itself
void RunTapMajorConv(const ConvCall& c);   // 1-D / 2-D, many channels: phase planes read in place
void RunPackedConv(const ConvCall& c);     // 1-D / 2-D, few channels: phase planes packed
// Packed mode's direct path (conv_direct.cc): a filter prepacked for an AVX-512 GEMM row over
// an input kernels::F32DirectConvApplies takes (C <= 4, C * KH * KW <= 128, group 1, output
// rows of 16 or more) and at least one block of 4 output rows per thread runs
// kernels/conv/f32_conv_direct.h, same bits; false (nothing written) for any other call.
bool RunDirectConv(const ConvCall& c);
void RunIm2colNdConv(const ConvCall& c);   // 3-D and up: im2col panels

// Winograd F(4x4, 3x3) (conv_winograd.cc), for a constant filter that ConvWinogradApplies to
// (vtensor/forms/conv_mode.h): c.winograd set, c.gemm its GEMM row; writes all of Y, epilogue
// included.
void RunWinogradConv(const ConvCall& c, const kernels::F32WinogradKernel& k);

// The depthwise Conv a pointwise Conv absorbed (passes/fusion.h FuseDepthwisePointwise).
struct DepthwiseStage {
  const float* x = nullptr;     // [N, C, H, W], contiguous
  const float* w = nullptr;     // [C, 1, KH, KW], contiguous
  const float* bias = nullptr;  // [C] or null
  const kernels::F32DwConvKernel* kernel = nullptr;
  const ConvEpilogue* epi = nullptr;  // its fused activation (kConvDwAct* attributes)
  SpatialGeometry geo;                // 2-D: X's extent to the depthwise output's
};

// The depthwise geometry of a fused pair from its kConvDw* attributes, for input extent `in`
// and kernel `kernel` (2 values each). Errors: InvalidArgument naming the node for a missing
// attribute, wrong lengths, non-positive strides or dilations, negative pads or an empty
// output.
Expected<SpatialGeometry> DepthwiseStageGeometry(const KernelContext& ctx,
                                                 const std::vector<int64_t>& in,
                                                 const std::vector<int64_t>& kernel);

// A fused pair: the depthwise stage `d`, then the pointwise Conv `c` on its output (c.x is
// unused; c.C == C; c.geo: the 1x1 geometry over the depthwise output's extent). Bands of
// output rows: the depthwise rows of every channel go into a buffer sized for the L2 cache,
// which the pointwise GEMM reads as its B operand; both epilogues run on each band. Writes all
// of Y; bit-identical to the two Convs run one after the other.
void RunDepthwisePointwiseConv(const ConvCall& c, const DepthwiseStage& d);

using ConvModeFn = void (*)(const ConvCall&);
ConvModeFn ConvModeFunction(ConvWeightMode mode);

}  // namespace vt::ops
