// Session: the runtime's final binding (DESIGN §3.5). Loads a model, prepares one kernel per
// node (prepacking weights), then executes the graph in topological order with intermediate
// buffers released after their last use and recycled through a buffer pool.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/runtime/value.h"

namespace vt {

struct SessionOptions {
  int threads = 1;  // OpenMP intra-op threads (>= 1)
  // Evaluate constant subgraphs once at creation (runtime/constant_folding.h).
  bool fold_constants = true;
  // Apply graph fusions (runtime/fusion.h); they need folded constants to match.
  bool fuse = true;
};

class GraphRunner;
class BufferPool;

class Session {
 public:
  // Prepares `model`. Errors: InvalidArgument / Unimplemented naming the node, op type and
  // opset (unknown op or domain, cycle, undefined value, bad attribute).
  static Expected<std::unique_ptr<Session>> Create(Model model, const SessionOptions& opts = {});
  // LoadModel + Create.
  static Expected<std::unique_ptr<Session>> Load(const std::string& path,
                                                 const SessionOptions& opts = {});
  ~Session();

  const Model& model() const { return model_; }
  // Inputs the caller must feed, in graph order (initializer-backed inputs excluded).
  std::vector<const GraphIO*> inputs() const { return model_.graph->RealInputs(); }
  const std::vector<GraphIO>& outputs() const { return model_.graph->outputs; }

  // Runs once. `inputs` follow inputs() order. Returns outputs in outputs() order.
  // Errors: InvalidArgument for a wrong count, dtype or a shape contradicting a fixed dim;
  // any kernel error (naming node, op type and opset).
  Expected<std::vector<Value>> Run(const std::vector<Value>& inputs);

 private:
  Session() = default;
  Model model_;
  SessionOptions opts_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<GraphRunner> runner_;
};

}  // namespace vt
