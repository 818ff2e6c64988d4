// Static shape specialization (the StableHLO emitter needs a static type on
// every value; ONNX models often have symbolic batch or image dims).
//
// Binds every graph input to a static shape (given, or fully known in the model), then walks
// the graph in topological order and, per node:
//  * folds it when all its inputs are constants (the runtime's kernels compute the value);
//  * turns Shape / Size of a statically shaped value into a constant;
//  * inlines an If whose condition became constant (its branch replaces it);
//  * otherwise learns its output types by running its kernel on zero-filled inputs of the
//    static input shapes (so every op the runtime supports has a shape rule, exactly the
//    runtime's). Inputs that decide an output shape (Reshape's shape, Slice's starts, Pad's
//    pads, Resize's scales/sizes, reduction axes, ...) must be constants by then.
// If nodes with a data-dependent condition keep both branches, each specialized; their output
// types must agree. Every pass rule of passes/pass.h holds: metadata of surviving values is
// kept and folded values get their identity.
//
// After success every value read or produced by a node, in every graph, has a tensor type with
// all dims known in Graph::values, and graph inputs/outputs carry those types.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

struct StaticShapeOptions {
  // Shapes of graph inputs by name; required for inputs with a symbolic or unknown dim.
  std::map<std::string, Shape> input_shapes;
  // Inputs bound to constant values (e.g. a sample rate that selects an If branch): they
  // become initializers and stop being inputs. Values are converted to the input's dtype; a
  // rank-0 input takes exactly one value.
  std::map<std::string, std::vector<double>> input_values;
  // A folded value larger than this stays a node (its type is still learned).
  size_t max_fold_bytes = size_t{64} << 20;
};

// Errors: InvalidArgument naming the input and dim for an unbound dynamic input, a shape that
// contradicts the model, a node whose shape-deciding input is not constant (naming the node,
// op and input), If branches with different output types; Unimplemented for data-dependent
// shapes (NonZero, Unique, ...) and ops with subgraphs other than If; kernel errors naming the
// node.
Status SpecializeShapes(Model& model, const StaticShapeOptions& opts);

// True when `spec` is a tensor type with a known rank and all dims known.
bool IsStaticTensor(const TensorSpec& spec);
// The static dims of such a spec.
Shape StaticShape(const TensorSpec& spec);

}  // namespace vt
