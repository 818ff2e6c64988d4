// GraphRunner: a prepared, executable graph (internal to the runtime).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vtensor/graph/graph.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/tensor/value.h"

namespace vt {

// Recycles heap buffers of released intermediates by exact byte size.
class BufferPool {
 public:
  std::shared_ptr<Storage> Get(size_t bytes);
  void Put(std::shared_ptr<Storage> s);

 private:
  std::unordered_map<size_t, std::vector<std::shared_ptr<Storage>>> free_;
  size_t pooled_bytes_ = 0;
};

class GraphRunner {
 public:
  // Prepares `graph` (kernels created, order computed). `model` supplies opsets and path.
  // `provider` (may be null: the default) packs or takes cached constant weights.
  static Expected<std::unique_ptr<GraphRunner>> Prepare(const Graph& graph, const Model& model,
                                                        BufferPool* pool,
                                                        WeightProvider* provider = nullptr);

  // Executes with values for graph.inputs by name (missing initializer-backed inputs use the
  // initializer). `outer` is the enclosing runner's frame for outer-scope names.
  struct Frame;
  Expected<std::vector<Value>> Run(const std::unordered_map<std::string, Value>& feeds,
                                   const Frame* outer, int threads);

  // Used by KernelContext::RunSubgraph.
  Expected<std::vector<Value>> RunSubgraph(const Graph& g, const std::vector<Value>& inputs,
                                           int threads);
  BufferPool* pool() { return pool_; }
  // (node name, KernelDescription::Describe()) of the main graph's kernels that implement it,
  // in execution order.
  std::vector<std::pair<std::string, std::string>> KernelNotes() const;
  const Model& model() const { return *model_; }

  struct Frame {
    const GraphRunner* runner;
    std::vector<Value>* slots;
    const Frame* parent;
    const Value* Lookup(const std::string& name) const;
  };

 private:
  struct NodePlan {
    const Node* node = nullptr;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> in_slots;   // -1 absent; <= -2 outer reference (-2 - index)
    std::vector<int> out_slots;  // -1 unused output
    std::vector<int> release_after;
    std::vector<const Value*> ins;  // reused across runs
    std::vector<Value> outs;
  };

  const Graph* graph_ = nullptr;
  const Model* model_ = nullptr;
  WeightProvider* provider_ = nullptr;
  BufferPool* pool_ = nullptr;
  std::unordered_map<std::string, int> slot_of_;
  int num_slots_ = 0;
  std::vector<NodePlan> plan_;
  std::vector<std::string> outer_names_;
  std::vector<std::pair<int, const Tensor*>> init_slots_;
  std::vector<int> input_slots_;   // per graph.inputs
  std::vector<int> output_slots_;  // per graph.outputs (-2 - k for outer)
  std::unordered_map<const Graph*, std::unique_ptr<GraphRunner>> subrunners_;
  const Frame* current_frame_ = nullptr;
};

// Creates the kernel for `node`: a registered kernel, else an ONNX schema function expansion.
// Errors: Unimplemented naming file, node, op type, domain and opset.
Expected<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, const Graph& graph,
                                                 const Model& model,
                                                 WeightProvider* provider = nullptr);

// Kernel that expands an ONNX function-defined op (schema function body) at run time.
Expected<std::unique_ptr<OpKernel>> CreateFunctionKernel(const Node& node, const Model& model);

}  // namespace vt
