// Constant folding (docs/design.md §3.3): evaluates, once at session creation,
// every node whose inputs are all constants (initializers, including outer-scope ones for
// subgraphs) and replaces it by initializers holding its outputs. Constant nodes become
// initializers named after their output, so weights built from Constant/Slice/Concat chains
// become stable, prepackable initializers.
#pragma once

#include <cstddef>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

struct FoldStats {
  size_t folded_nodes = 0;
  size_t skipped_large = 0;  // nodes not folded because their output would be too large
};

struct FoldOptions {
  // A node whose outputs exceed this many bytes, and exceed its inputs' bytes, is kept (avoids
  // materialising e.g. a huge ConstantOfShape/Expand at load time).
  size_t max_output_bytes = size_t{64} << 20;
};

// Folds `graph` and, recursively, its subgraphs. Nondeterministic ops (Random*, Bernoulli,
// Multinomial, Dropout), ops with subgraphs and non-tensor outputs are never folded.
// Errors: only internal failures; a node whose kernel fails is simply left in place so the
// error surfaces at run time with full context.
Status FoldConstants(Graph& graph, const Model& model, const FoldOptions& opts, FoldStats* stats);

}  // namespace vt
