// Attributes vtensor's fusion passes write on nodes (names prefixed "vt.", which no ONNX
// operator uses) and the kernels that read them. The pass that writes them lives in
// passes/fusion.h; the kernels in src/ops. Declared here, below both, so neither includes the
// other.
#pragma once

namespace vt {

// Fused-Conv attributes written by FuseConv and read by the Conv kernel (src/ops/nn/conv_epilogue.h).
//   kConvActAttr        string: "Relu", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Sigmoid"
//   kConvActParamsAttr  floats: Clip {min, max}; LeakyRelu {alpha}; HardSigmoid {alpha, beta}
//   kConvActScaleAttr   floats: 1 or M values multiplying the activation's output
//   kConvActShiftAttr   floats: 1 or M values added after the scale
inline constexpr const char* kConvActAttr = "vt.act";
inline constexpr const char* kConvActParamsAttr = "vt.act_params";
inline constexpr const char* kConvActScaleAttr = "vt.act_scale";
inline constexpr const char* kConvActShiftAttr = "vt.act_shift";

}  // namespace vt
