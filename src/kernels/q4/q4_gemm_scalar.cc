// Portable q4 GEMM microkernels (q4_ukernel.h), panel height 8: each input block of the panel
// is decoded once by the encoding's traits into f32, then multiplied into 16-lane partial sums
// that the compiler vectorises for the baseline ISA; the lanes are added in a fixed order.
#include "kernels/q4/q4_ukernel.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

constexpr size_t kRows = 8;
constexpr size_t kLanes = 16;

template <Encoding kEnc, size_t kElems>
void PortableGemm(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx, const uint8_t* w,
                  const float* bias, float* y, size_t ldy) {
  const EncodingTraits& t = GetEncodingTraits(kEnc);
  const size_t bytes = static_cast<size_t>(t.block_bytes);
  float acc[kQ4MaxMr][kRows][kLanes] = {};
  float wf[kRows][kElems];
  for (size_t b = 0; b < kb; ++b) {
    for (size_t r = 0; r < kRows; ++r)
      t.to_float(w + (b * kRows + r) * bytes, wf[r], static_cast<int64_t>(kElems));
    for (size_t i = 0; i < mr; ++i) {
      const float* xb = x + i * ldx + b * kElems;
      for (size_t r = 0; r < kRows; ++r)
        for (size_t j = 0; j < kElems; j += kLanes)
          for (size_t l = 0; l < kLanes; ++l) acc[i][r][l] += xb[j + l] * wf[r][j + l];
    }
  }
  for (size_t i = 0; i < mr; ++i)
    for (size_t r = 0; r < nc; ++r) {
      float s = 0.0f;
      for (size_t l = 0; l < kLanes; ++l) s += acc[i][r][l];
      y[i * ldy + r] = s + (bias != nullptr ? bias[r] : 0.0f);
    }
}

}  // namespace

void gemm_q4_0_f32_8x8_scalar(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                              const uint8_t* w, const float* bias, float* y, size_t ldy) {
  PortableGemm<Encoding::kQ4_0, kQ4_0Elems>(mr, nc, kb, x, ldx, w, bias, y, ldy);
}

void gemm_q4_k_f32_8x8_scalar(size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                              const uint8_t* w, const float* bias, float* y, size_t ldy) {
  PortableGemm<Encoding::kQ4_K, kQ4_KElems>(mr, nc, kb, x, ldx, w, bias, y, ldy);
}

}  // namespace vt::kernels
