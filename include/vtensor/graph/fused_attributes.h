// Attributes vtensor's fusion passes write on nodes (names prefixed "vt.", which no ONNX
// operator uses) and the kernels that read them. The pass that writes them lives in
// passes/fusion.h; the kernels in src/ops. Declared here, below both, so neither includes the
// other.
#pragma once

namespace vt {

// Fused-Conv attributes written by FuseConv and read by the Conv and ConvTranspose kernels
// (src/ops/nn/conv_epilogue.h).
//   kConvActAttr        string: "Relu", "Clip", "LeakyRelu", "HardSigmoid", "HardSwish", "Sigmoid"
//   kConvActParamsAttr  floats: Clip {min, max}; LeakyRelu {alpha}; HardSigmoid {alpha, beta}
//   kConvActScaleAttr   floats: 1 or M values multiplying the activation's output
//   kConvActShiftAttr   floats: 1 or M values added after the scale
inline constexpr const char* kConvActAttr = "vt.act";
inline constexpr const char* kConvActParamsAttr = "vt.act_params";
inline constexpr const char* kConvActScaleAttr = "vt.act_scale";
inline constexpr const char* kConvActShiftAttr = "vt.act_shift";

// A pointwise Conv that absorbed the depthwise Conv feeding it (FuseDepthwisePointwise,
// passes/fusion.h; run by src/ops/nn/conv_dw_pw.cc). Its inputs are then
//   [X of the depthwise Conv, W_pw, B_pw or "", W_dw [C, 1, k...], B_dw [C] or ""]
// and the depthwise Conv's geometry and fused activation ride in
//   kConvDwStridesAttr / kConvDwPadsAttr / kConvDwDilationsAttr   ints (its strides, pads, dilations)
//   kConvDwActAttr, kConvDwActParamsAttr, kConvDwActScaleAttr, kConvDwActShiftAttr: its
//   kConvAct* attributes under these names.
inline constexpr const char* kConvDwStridesAttr = "vt.dw_strides";
inline constexpr const char* kConvDwPadsAttr = "vt.dw_pads";
inline constexpr const char* kConvDwDilationsAttr = "vt.dw_dilations";
inline constexpr const char* kConvDwActAttr = "vt.dw_act";
inline constexpr const char* kConvDwActParamsAttr = "vt.dw_act_params";
inline constexpr const char* kConvDwActScaleAttr = "vt.dw_act_scale";
inline constexpr const char* kConvDwActShiftAttr = "vt.dw_act_shift";

// Fused-Resize attribute written by FuseResizeAdd and read by the Resize / Upsample kernel
// (src/ops/nn/resize.cc).
//   kResizeAddAttr  int: 1 when the node's last input (index 4 of a Resize, 2 of an Upsample;
//                   the optional inputs before it given or empty) is an addend: the node's
//                   output is Add(resized input, addend), as the Add of the node's opset
//                   computes it (numpy broadcasting, equal element types required).
inline constexpr const char* kResizeAddAttr = "vt.add";

}  // namespace vt
