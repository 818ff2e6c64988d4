#include "kernels/conv/f32_conv_transpose_2x2.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {

bool F32ConvTranspose2x2Applies(const F32ConvTranspose2x2Geometry& g) {
  static const bool cpu = CpuHasAvx512();
  return cpu && g.C >= 1 && g.C <= kF32ConvTranspose2x2MaxChannels && g.W >= 8 && g.H >= 1 &&
         g.M >= 1;
}

}  // namespace vt::kernels
