#include "kernels/conv/f32_conv_direct.h"

#include "kernels/cpu/kernel_select.h"

namespace vt::kernels {

bool F32DirectConvApplies(const F32DirectConvGeometry& g, size_t mr) {
  static const bool cpu = CpuHasAvx512();
  const bool width = mr == 1 || mr == 2 || mr == 4 || mr == 6 || mr == 8 || mr == 12 || mr == 14;
  return cpu && width && g.C >= 1 && g.C <= kF32DirectConvMaxChannels &&
         g.K() <= kF32DirectConvMaxK && g.OW >= 16 && g.OH >= 1 && g.H >= 1 && g.W >= 1 &&
         g.KH >= 1 && g.KW >= 1 && g.SH >= 1 && g.SW >= 1 && g.DH >= 1 && g.DW >= 1 &&
         g.PH >= 0 && g.PW >= 0;
}

size_t F32DirectConvRowFloats(const F32DirectConvGeometry& g) {
  return static_cast<size_t>(g.C * g.KH * g.SW * F32DirectConvRowPitch(g));
}

}  // namespace vt::kernels
