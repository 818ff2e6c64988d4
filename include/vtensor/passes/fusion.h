// Graph fusions applied at session creation (docs/design.md §3.3), after constant folding.
//
// FuseHardSwish: exporters (paddle2onnx, older PyTorch) spell HardSwish as
//   y = Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)     (or Mul(..., 1/6) instead of the Div)
// which costs four full passes over the tensor; it becomes one HardSwish(x) node. The
// intermediates must have no other consumer and not be graph outputs; the constants must be
// float32 scalars with exactly those values. Results may differ from the unfused graph by
// float rounding only (HardSwish is x * clamp(x/6 + 1/2, 0, 1)).
//
// FuseConv: a Conv (f32 constant W [M, C/group, k...], constant or absent B [M]) or a
// ConvTranspose (f32 constant W [C, M/group, k...], constant or absent B [M]) absorbs the
// single-consumer chain that follows it, in this order:
//   1. per-channel affine maps, folded into new weights: inference BatchNormalization (every
//      parameter a constant [M]), Mul / Add by a constant that broadcasts to [1, M, 1, ...]
//      (a scalar or one value per output channel). W' = W * s[m] and B' = t[m] are computed in
//      double and become new initializers named "<last folded output>.vt_folded_w" / "_b"
//      (deterministic, so compiled-weight entries made from them match); W and B are dropped
//      when nothing else reads them;
//   2. one activation: Relu, Clip (constant bounds), LeakyRelu, HardSigmoid, HardSwish,
//      Sigmoid, recorded in the attributes kConvActAttr / kConvActParamsAttr;
//   3. after the activation, Mul / Add by constants of the same broadcast form, recorded as
//      y = act(x) * scale[m] + shift[m] in kConvActScaleAttr / kConvActShiftAttr (1 or M
//      floats each).
//   4. x + x * h, where h is the output of a Conv fused as above (with an activation) read
//      only by that Mul, becomes x * h' with h' = h + 1 (added to the Conv's shift): the
//      residual squeeze-excite form of PP-OCRv4's neck, one full-size pass instead of two.
//   Step 4 applies to Conv only.
// The Conv keeps its ONNX op type and takes over the output name of the last absorbed node.
// Intermediates must have exactly one consumer and not be graph outputs. Results differ from
// the unfused graph by float rounding only. Run FuseHardSwish first so exported HardSwish
// patterns are one node.
#pragma once

#include <cstddef>

#include "vtensor/base/status.h"
#include "vtensor/graph/fused_attributes.h"
#include "vtensor/graph/graph.h"

namespace vt {

// Rewrites `graph` (and its subgraphs) in place; returns the number of fused patterns.
size_t FuseHardSwish(Graph& graph);

// The attributes FuseConv writes are declared in graph/fused_attributes.h.

// Rewrites `graph` (and its subgraphs) in place; returns the number of Conv nodes that
// absorbed at least one following node plus the number of step-4 rewrites.
size_t FuseConv(Graph& graph);

// FuseDepthwisePointwise: a depthwise 2-D Conv (W [C, 1, kh, kw] an f32 constant, group = C,
// constant or absent B, explicit pads: no auto_pad) whose output is read only by a pointwise
// Conv (W [M, C, 1, 1] an f32 constant, group 1, unit strides and dilations, no pads) becomes
// that pointwise Conv reading the depthwise Conv's input, with the depthwise filter, bias,
// geometry and fused activation as extra inputs and attributes (graph/fused_attributes.h,
// kConvDw*). The kernel computes the depthwise output band by band of rows into a buffer that
// stays in cache and multiplies each band by the pointwise filter: the depthwise output is
// never written to memory. Run after FuseConv (both Convs keep the activations it fused).
// Results are bit-identical to the two Convs. Returns the number of pairs fused.
size_t FuseDepthwisePointwise(Graph& graph);

}  // namespace vt
