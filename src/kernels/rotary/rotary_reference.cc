#include "kernels/rotary/rotary_ukernel.h"

namespace vt::kernels {

void RotaryRowsReference(const RotaryRowsCall& c) {
  const size_t h = c.n / 2;
  for (size_t r = 0; r < c.rows; ++r) {
    const float* x = c.x + static_cast<ptrdiff_t>(r) * c.x_stride;
    const float* co = c.cos + static_cast<ptrdiff_t>(r) * c.cs_stride;
    const float* si = c.sin + static_cast<ptrdiff_t>(r) * c.cs_stride;
    float* y = c.y + static_cast<ptrdiff_t>(r) * c.y_stride;
    for (size_t d = 0; d < h; ++d) {
      const float a = x[d], b = x[d + h];  // both read before either is written (y may be x)
      y[d] = a * co[d] - b * si[d];
      y[d + h] = b * co[d + h] + a * si[d + h];
    }
  }
}

}  // namespace vt::kernels
