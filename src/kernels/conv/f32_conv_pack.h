// Packing of the convolution-as-GEMM B operand: B[K = C * prod(kernel), N = output positions]
// built block by block directly in the panel layout of kernels/gemm/f32_gemm_pack.h, never as
// a whole im2col matrix. Row k of B is (channel c, kernel offset r...) in row-major order of
// [C, k1, ..., kn] (the order of the ONNX weight [M, C, k1, ..., kn]).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

// 2-D convolution as GEMM without im2col (1-D uses H = KH = OH = 1).
//
// The padded input is rearranged once into "phase planes": for each channel c and stride
// phase (ph, pw) in [0, SH) x [0, SW), plane(c, ph, pw)[qh][qw] = x[c][qh*SH + ph - PH]
// [qw*SW + pw - PW] (0 outside the image), of size Hq x Wq with Hq = OH + (KH-1)*DH/SH and
// Wq = OW + (KW-1)*DW/SW. Output position (oh, ow) then reads, for tap (r, s), the plane
// element at row oh + r*DH/SH, column ow + s*DW/SW of phase (r*DH % SH, s*DW % SW). On the
// "wide" output grid n = oh * Wq + ow (ow < Wq, columns ow >= OW are junk), every GEMM row
// k = (c, r, s) is a contiguous run of the planes: B(k, n) = planes[row_offset(k) + n].
// Layout of the buffer: [C][SH][SW][Hq][Wq] floats, then a zeroed tail.
// The caller computes the GEMM on the wide grid and drops the junk columns.
struct F32ConvPhasePlanes {
  const float* planes;  // BuildF32ConvPhasePlanes output
  int64_t C, KH, KW, SH, SW, DH, DW;
  int64_t Hq, Wq;
};

// Floats of the phase-plane buffer (including the zeroed tail that wide-grid reads may touch).
size_t F32ConvPhasePlanesFloats(int64_t C, int64_t SH, int64_t SW, int64_t Hq, int64_t Wq);

// Fills `dst` (F32ConvPhasePlanesFloats floats) from x [C, H, W] with leading pads PH, PW:
// every float, the zeros included. Phases no tap reads are all zero for strides up to 64 (above,
// they hold input values: finite, never read). Reads the input rows in memory order.
void BuildF32ConvPhasePlanes(const float* x, int64_t C, int64_t H, int64_t W, int64_t PH,
                             int64_t PW, const F32ConvPhasePlanes& geo, float* dst);

// Asks the caches for the first `bytes` of the input rows that BuildF32ConvPhasePlanes(x, 1, H,
// W, PH, PW, geo, ...) reads (one channel): a caller that builds channel after channel calls
// it for the next channel before building this one. The builder itself runs ahead only within
// its own rows.
void PrefetchF32ConvPhasePlanesInput(const float* x, int64_t H, int64_t W, int64_t PH,
                                     const F32ConvPhasePlanes& geo, int64_t bytes = 4096);

// Tap-major access without packing: with GEMM rows ordered k = tap * C + c (tap = r * KW + s),
// the rows of one tap are C runs at a fixed stride, i.e. a row-major [C, wide grid] matrix.
// F32GemmGroupRowsFn-compatible (`ctx` is a const F32ConvPhasePlanes*): channel 0's run of
// `tap`. The stride between channels is F32ConvPhasePlanesChannelStride.
const float* F32ConvPhasePlanesTapRows(const void* ctx, size_t tap);
// Offset of that run from `planes` (channel 0), in floats.
int64_t F32ConvPhasePlanesTapOffset(const F32ConvPhasePlanes& g, size_t tap);
size_t F32ConvPhasePlanesChannelStride(const F32ConvPhasePlanes& g);

// F32GemmPackBlockFn-compatible: `ctx` is a const F32ConvPhasePlanes*; columns are wide-grid
// positions. Fills rows [k0, k0+kc) x columns [n0, n0+nc) as ceil(nc/nr) panels of kc*nr.
void PackF32ConvPhasePlanesToPanelsNr(const void* ctx, size_t k0, size_t kc, size_t n0,
                                      size_t nc, size_t nr, float* dst);

// Filters of one group, ONNX order [M, C, taps] row-major (taps = product of the kernel
// dims), as the GEMM A operand [M, K = taps * C] with tap-major columns k = tap * C + c, packed
// into ceil(M / mr) panels of K * mr floats (the A panels of kernels/gemm/f32_gemm_pack.h,
// rows past M zero). Reads each panel's mr filters in place (no permuted copy) and writes the
// panel front to back; panels are split over OpenMP threads like PackF32PanelsThreaded.
void PackF32ConvFiltersTapMajorToPanelsMr(size_t mr, size_t M, size_t C, size_t taps,
                                          const float* w, float* dst);
// Scalar reference twin: element (m, tap * C + c) = w[(m * C + c) * taps + tap], one by one.
void PackF32ConvFiltersTapMajorToPanelsMrReference(size_t mr, size_t M, size_t C, size_t taps,
                                                   const float* w, float* dst);

// Any number of spatial axes (up to 8), slower; used for 3-D convolution.
struct F32ConvChwNd {
  const float* x;  // [C, in...]
  int64_t C;
  int rank;
  int64_t in[8], kernel[8], stride[8], dilation[8], pad[8], out[8];
};
void PackF32ConvChwNdToPanelsNr(const void* ctx, size_t k0, size_t kc, size_t n0, size_t nc,
                                size_t nr, float* dst);

}  // namespace vt::kernels
