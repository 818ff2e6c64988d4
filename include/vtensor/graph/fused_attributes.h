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

// Fused-Resize attribute written by FuseResizeAdd and read by the Resize / Upsample kernel
// (src/ops/nn/resize.cc).
//   kResizeAddAttr  int: 1 when the node's last input (index 4 of a Resize, 2 of an Upsample;
//                   the optional inputs before it given or empty) is an addend: the node's
//                   output is Add(resized input, addend), as the Add of the node's opset
//                   computes it (numpy broadcasting, equal element types required).
inline constexpr const char* kResizeAddAttr = "vt.add";

}  // namespace vt
