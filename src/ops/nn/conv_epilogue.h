// The activation a fused Conv applies to its output (passes/fuse_conv.cc): read once from
// the node's vt.act* attributes, then applied to each output channel's values right after the
// GEMM or depthwise kernel wrote them, while they are still in cache.
//
//   y = act(x) * scale[m] + shift[m]      (scale / shift: none, one value, or one per channel)
//
// Relu and Clip without scale/shift are plain min/max clamps, which the GEMM and depthwise
// kernels apply themselves (ClampOnly()); everything else goes through ApplyRow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/conv/f32_conv_act.h"
#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt::ops {

struct ConvEpilogue {
  enum class Act { kNone, kClamp, kLeakyRelu, kHardSigmoid, kHardSwish, kSigmoid };
  Act act = Act::kNone;
  float p0 = 0.0f, p1 = 0.0f;  // clamp {min, max}; LeakyRelu {alpha}; HardSigmoid {alpha, beta}
  std::vector<float> scale;    // empty, 1 or M values
  std::vector<float> shift;    // empty, 1 or M values
  // The activation row (kernels/conv/f32_conv_act.h) of the session's ISA level, set when the
  // node is prepared (ops/common/row_kernels.h F32ConvActRowFor); null: the process's default.
  kernels::F32ConvActFn act_fn = nullptr;

  bool empty() const { return act == Act::kNone && scale.empty() && shift.empty(); }
  // Only a min/max clamp (p0, p1): the producing kernel's own clamp does it.
  bool ClampOnly() const { return act == Act::kClamp && scale.empty() && shift.empty(); }
  // y[0, n) of output channel `m` in place.
  void ApplyRow(float* y, size_t n, int64_t m) const;
};

// The names of the four attributes an epilogue is read from (graph/fused_attributes.h).
struct ConvEpilogueAttrs {
  const char* act;
  const char* params;
  const char* scale;
  const char* shift;
};
// A Conv's own (kConvAct*), and the depthwise stage's of a fused pair (kConvDwAct*).
extern const ConvEpilogueAttrs kConvEpilogueAttrs;
extern const ConvEpilogueAttrs kConvDwEpilogueAttrs;

// The epilogue of `node` (empty without the `attrs.act` attribute). Errors: InvalidArgument
// for an unknown activation, a parameter count that does not match it, or scale/shift sizes
// other than 1 or `channels` (not checked when `channels` < 0: unknown before run time).
Expected<ConvEpilogue> ParseConvEpilogue(const Node& node, int64_t channels,
                                         const ConvEpilogueAttrs& attrs = kConvEpilogueAttrs);

}  // namespace vt::ops
