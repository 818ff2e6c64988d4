// Scalar reference twins of the q4 GEMM microkernels (q4_ukernel.h): every block is decoded by
// the encoding's own traits (the single definition of the format) and the products are summed
// in f32 in increasing k order.
#include <vector>

#include "kernels/q4/q4_ukernel.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

void Reference(Encoding enc, size_t rows, size_t mr, size_t nc, size_t kb, const float* x,
               size_t ldx, const uint8_t* w, const float* bias, float* y, size_t ldy) {
  const EncodingTraits& t = GetEncodingTraits(enc);
  const size_t e = static_cast<size_t>(t.block_elems), bytes = static_cast<size_t>(t.block_bytes);
  std::vector<float> row(kb * e);
  for (size_t r = 0; r < nc; ++r) {
    for (size_t b = 0; b < kb; ++b)
      t.to_float(w + (b * rows + r) * bytes, row.data() + b * e, static_cast<int64_t>(e));
    for (size_t i = 0; i < mr; ++i) {
      float acc = 0.0f;
      for (size_t k = 0; k < kb * e; ++k) acc += x[i * ldx + k] * row[k];
      y[i * ldy + r] = acc + (bias != nullptr ? bias[r] : 0.0f);
    }
  }
}

}  // namespace

void Q4_0GemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy) {
  Reference(Encoding::kQ4_0, rows, mr, nc, kb, x, ldx, w, bias, y, ldy);
}

void Q4_KGemmReference(size_t rows, size_t mr, size_t nc, size_t kb, const float* x, size_t ldx,
                       const uint8_t* w, const float* bias, float* y, size_t ldy) {
  Reference(Encoding::kQ4_K, rows, mr, nc, kb, x, ldx, w, bias, y, ldy);
}

}  // namespace vt::kernels
