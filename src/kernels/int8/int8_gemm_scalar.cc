// Portable int8 GEMM microkernel and the scalar reference twin of every kernel.
#include <cstring>

#include "kernels/int8/int8_gemm_ukernel.h"

namespace vt::kernels {
namespace {

// Epilogue of one element (contract in int8_gemm_ukernel.h). The float expression is written
// once here and mirrored operation for operation by the SIMD kernels, so results are bit-exact.
inline void Finish(int32_t acc, size_t n, void* c_in, const Int8GemmTileParams& p) {
  int32_t s = acc;
  if (p.accumulate) {
    int32_t prev;
    std::memcpy(&prev, c_in, sizeof prev);
    s += prev;
  } else if (p.column_sums != nullptr) {
    s -= p.a_offset * p.column_sums[n];
  }
  if (p.dequantize) {
    float f = static_cast<float>(s) * (p.scale_a * p.scale_n[n]);
    if (p.bias_n != nullptr) f += p.bias_n[n];
    std::memcpy(c_in, &f, sizeof f);
  } else {
    std::memcpy(c_in, &s, sizeof s);
  }
}

}  // namespace

void Int8GemmUkernelReference(size_t MR, size_t NR, size_t mr, size_t nc, size_t kg,
                              const uint8_t* a, const int8_t* b, void* c, size_t c_stride,
                              const Int8GemmTileParams* params) {
  auto* cb = static_cast<unsigned char*>(c);
  for (size_t i = 0; i < mr; ++i) {
    for (size_t n = 0; n < nc; ++n) {
      int32_t acc = 0;
      for (size_t g = 0; g < kg; ++g)
        for (size_t j = 0; j < 4; ++j)
          acc += int32_t{a[(g * MR + i) * 4 + j]} * int32_t{b[(g * NR + n) * 4 + j]};
      Finish(acc, n, cb + (i * c_stride + n) * 4, *params);
    }
  }
}

void gemm_s8_u8_4x16_scalar(size_t mr, size_t nc, size_t kg, const uint8_t* a, const int8_t* b,
                            void* c, size_t c_stride, const Int8GemmTileParams* params) {
  constexpr size_t MR = 4, NR = 16;
  // All NR columns are computed (the packer zero-fills the tail), which keeps the inner loop
  // fixed-size for the vectoriser.
  int32_t acc[MR][NR] = {};
  for (size_t g = 0; g < kg; ++g) {
    const uint8_t* ag = a + g * MR * 4;
    const int8_t* bg = b + g * NR * 4;
#pragma GCC unroll 4
    for (size_t i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (size_t j = 0; j < 4; ++j) {
        const int32_t av = ag[i * 4 + j];
#pragma GCC unroll 16
        for (size_t n = 0; n < NR; ++n) acc[i][n] += av * int32_t{bg[n * 4 + j]};
      }
  }
  auto* cb = static_cast<unsigned char*>(c);
  for (size_t i = 0; i < mr; ++i)
    for (size_t n = 0; n < nc; ++n) Finish(acc[i][n], n, cb + (i * c_stride + n) * 4, *params);
}

}  // namespace vt::kernels
