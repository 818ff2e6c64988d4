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
//
// FuseResizeAdd: Add(Resize(x), y) or Add(y, Resize(x)) (Resize or Upsample) becomes one
// Resize that writes resize(x) + y row by row while each resized row is in cache: the resized
// tensor is never written to memory and read back (the feature pyramid of PP-OCRv4 det, a DBNet
// FPN, does this at three levels; docs/benchmarks.md). The Resize output must be read only by
// that Add and not be a graph output (nor read by a subgraph); y must not be one of the
// Resize's own inputs. The Resize takes over the Add's output name and its place in the node
// list, gains y as its last input (index 4 of a Resize, 2 of an Upsample; absent optional
// inputs before it as empty names) and kResizeAddAttr = 1 (graph/fused_attributes.h); it keeps
// its name. A session does not know its input sizes when it fuses, so the operands' shapes need
// not be known: the Add is left alone only where the graph states a mismatch (value types or
// symbolic shapes, passes/symbolic_shapes.h): a known element type other than float32, ranks
// that differ, or a dim with two known sizes (a broadcast). The kernel checks at run time: an
// f32 y of exactly the resized shape is added row by row, over y's buffer when y dies at the
// node; anything else runs the Add as written (broadcasting, type errors). Results are
// bit-identical to the unfused graph: the same float32 sum r + y of the same r.
#pragma once

#include <cstddef>

#include "vtensor/base/status.h"
#include "vtensor/graph/fused_attributes.h"
#include "vtensor/graph/graph.h"

namespace vt {

// Rewrites `graph` (and its subgraphs) in place; returns the number of fused patterns.
size_t FuseHardSwish(Graph& graph);

// The attributes FuseConv and FuseResizeAdd write are declared in graph/fused_attributes.h.

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

// Rewrites `graph` (and its subgraphs) in place; returns the number of Adds fused into a
// Resize / Upsample.
size_t FuseResizeAdd(Graph& graph);

}  // namespace vt
