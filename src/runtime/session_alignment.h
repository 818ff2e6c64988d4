// Aligning the tensors a session reads (docs/design.md "§3.1 Capture (import)"): Session::Load
// imports large initializers as views of the mapped model file wherever the file puts them
// (format/model_skeleton.h), and a typed read needs the element type's alignment
// (tensor/natural_alignment.h). Before the passes or the kernels read a graph, the misaligned
// ones are copied, except the weights whose bytes no kernel reads because a compiled entry
// stands for them; copying those would touch every page of the source weights at each load.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/forms/isa.h"
#include "vtensor/forms/weight_profile.h"
#include "vtensor/graph/graph.h"

namespace vt {

// Main-graph initializers of `g` that kernels only pack: every node reading one is a main-graph
// node reading it as a packed weight (forms/weight_use.h WeightConsumers), no subgraph, graph
// input or graph output names it, and `ext` has a compiled entry for it on `isa` with
// `profile` (vt.profile, "exact" when absent). Their kernels take the entry's payload, or on
// a miss pack from an aligned copy (WeightProvider, WeightCache), so their bytes are never read
// through a typed pointer in place.
std::set<std::string> PackedOnlyWeights(const Graph& g, const vtensor::ModelExtension* ext,
                                        IsaLevel isa, WeightProfile profile);

// Replaces every tensor of `g` (initializers, attribute tensors, subgraphs included) that is
// not naturally aligned by an aligned copy, except main-graph initializers named in `keep`.
// Returns the bytes copied.
size_t AlignGraphTensors(Graph& g, const std::set<std::string>& keep);

}  // namespace vt
