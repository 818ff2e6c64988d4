// GraphRunner: a prepared, executable graph (internal to the runtime).
//
// Prepared state (the plan, kernels, subgraph runners) is built once and read-only afterwards,
// so one runner serves any number of concurrent runs; everything a run writes (value slots,
// kernel input/output lists, buffers) belongs to that run: its ExecFrame on the caller's stack
// and the BufferPool it holds for its duration (docs/design.md, "Concurrent runs").
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vtensor/graph/graph.h"
#include "vtensor/exec/kernel.h"
#include "vtensor/exec/op_profile.h"
#include "vtensor/tensor/value.h"

namespace vt {

// Recycles heap buffers of released intermediates by exact byte size. Not synchronised: one
// pool serves one run at a time (BufferPools hands them out).
class BufferPool {
 public:
  std::shared_ptr<Storage> Get(size_t bytes);
  void Put(std::shared_ptr<Storage> s);
  size_t pooled_bytes() const { return pooled_bytes_; }

  // `n` empty value slots for one graph's run, in a vector an earlier run of this pool gave
  // back (its capacity kept) when there is one: steady-state runs allocate no slot vectors.
  std::vector<Value> TakeSlots(size_t n);
  // Gives back a run's slot vector: its values are released now, its capacity kept.
  void GiveSlots(std::vector<Value> slots);

 private:
  std::unordered_map<size_t, std::vector<std::shared_ptr<Storage>>> free_;
  size_t pooled_bytes_ = 0;
  // Last given back on top: a run takes its main graph's vector first and gives it back last,
  // so each graph of a run that repeats gets the vector it had before.
  std::vector<std::vector<Value>> slot_vectors_;
};

// A session's buffer pools. A run borrows one pool for its whole duration and returns it; the
// mutex guards only that hand-over (two lock operations per run, none per node), so a single
// caller reuses the same warm pool on every run and N concurrent callers hold N pools.
class BufferPools {
 public:
  class Lease {
   public:
    Lease(BufferPools* owner, std::unique_ptr<BufferPool> pool)
        : owner_(owner), pool_(std::move(pool)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_) owner_->Return(std::move(pool_));
    }
    BufferPool* get() const { return pool_.get(); }

   private:
    BufferPools* owner_;
    std::unique_ptr<BufferPool> pool_;
  };

  // The most recently returned pool, or a new empty one when every pool is in use.
  Lease Acquire();
  // Pools created so far (the peak number of concurrent runs).
  size_t size() const;

 private:
  void Return(std::unique_ptr<BufferPool> pool);
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<BufferPool>> free_;
  size_t created_ = 0;
};

class GraphRunner;

// One run of one graph: its value slots, the enclosing run (outer-scope names of a subgraph)
// and the run's buffer pool. Lives on the stack of the running thread; kernels reach it through
// KernelContext (AllocOutput, RunSubgraph).
struct ExecFrame {
  const GraphRunner* runner;
  std::vector<Value>* slots;
  const ExecFrame* parent;
  BufferPool* pool;
  OpProfile* profile = nullptr;  // null: no timing (the default)
  int depth = 0;                 // subgraph nesting of this run (OpEvent::depth)
  // This run's outer-scope values, one per runner->outer_names_ (null: not defined).
  const Value* const* outer_vals = nullptr;
  // Value visible under `name` from this frame (own slots, then enclosing frames), or null.
  const Value* Lookup(const std::string& name) const;
  // Value of own slot `s` (an initializer's prepared value, or the run's slot).
  const Value* At(int s) const;
};

class GraphRunner {
 public:
  // Prepares `graph` (kernels created, order computed). `model` supplies opsets and path.
  // `provider` (may be null: the default) packs or takes cached constant weights.
  static Expected<std::unique_ptr<GraphRunner>> Prepare(const Graph& graph, const Model& model,
                                                        WeightProvider* provider = nullptr);

  // Executes with values for graph.inputs by name (missing initializer-backed inputs use the
  // initializer), drawing intermediate buffers from `pool` (which this run uses exclusively).
  // Safe to call from several threads at once, each with its own pool. `profile` (may be
  // null) receives one event per node run, subgraph nodes included.
  Expected<std::vector<Value>> Run(const std::unordered_map<std::string, Value>& feeds,
                                   BufferPool* pool, int threads,
                                   OpProfile* profile = nullptr) const;

  // Runs subgraph `g` (an attribute of a node in `at`'s graph, or a function body) with
  // positional inputs; outer-scope names resolve through `at`. Used by KernelContext.
  Expected<std::vector<Value>> RunSubgraph(const Graph& g, const std::vector<Value>& inputs,
                                           const ExecFrame& at, int threads) const;
  // (node name, KernelDescription::Describe()) of the main graph's kernels that implement it,
  // in execution order.
  std::vector<std::pair<std::string, std::string>> KernelNotes() const;
  const Model& model() const { return *model_; }

 private:
  friend struct ExecFrame;
  // Preparation steps (Prepare runs them in this order).
  // The slot of value `n` of this graph, created on first sight.
  int Slot(const std::string& n);
  // The slot of `n` when this graph has one, else an outer reference (-2 - index).
  int Ref(const std::string& n);
  // Slots of initializers, inputs and node outputs (in `order`).
  void AssignSlots(const std::vector<size_t>& order);
  // Input / output slots of plan_[p] for `node`; last_use of what it and its subgraphs read.
  void PlanNodeSlots(size_t p, const Node& node, std::vector<int>* last_use);
  // Runners of `node`'s subgraphs, prepared now (a subgraph that cannot be prepared stays lazy:
  // its error surfaces only if a run reaches it).
  void PrepareSubgraphs(const Node& node);
  // Output slots, then what each step releases after it ran (values past their last use;
  // initializers are never released).
  void PlanReleases(std::vector<int>* last_use);

  struct NodePlan {
    const Node* node = nullptr;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> in_slots;   // -1 absent; <= -2 outer reference (-2 - index)
    std::vector<int> out_slots;  // -1 unused output
    std::vector<int> release_after;
    // Per input: 1 when this step is the last use of that value in the run (the value is
    // released after it), for KernelContext::AllocOutputOver.
    std::vector<uint8_t> last_use;
  };
  // Subgraphs first prepared during a run: function bodies expanded at run time and
  // subgraphs whose preparation failed at load (retried, so their error surfaces in the run
  // that reaches them). Shared by concurrent runs, hence the mutex.
  struct LazyRunners {
    std::mutex mu;
    std::unordered_map<const Graph*, std::unique_ptr<GraphRunner>> runners;
  };

  // A run's slots before its inputs are bound: initializers that a graph input may override
  // are copied in, the others are read in place through const_value_. From `pool` when not
  // null (BufferPool::TakeSlots).
  std::vector<Value> NewSlots(BufferPool* pool) const;
  // Runs the plan on `slots` (inputs bound); `outer` is the enclosing run, or null.
  Expected<std::vector<Value>> RunIn(std::vector<Value>& slots, const ExecFrame* outer,
                                     BufferPool* pool, int threads, OpProfile* profile) const;
  // The value outer name k resolves to in the enclosing run `outer`.
  const Value* OuterValue(size_t k, const ExecFrame& outer) const;
  // Resolves outer names against `owner`, the runner whose runs enclose this one's, once, so a
  // run finds them by index rather than by name.
  void BindOuter(const GraphRunner& owner);
  // Compute() of plan step `np` with an OpEvent for `frame.profile`.
  Status ComputeProfiled(const NodePlan& np, KernelContext& ctx, const std::vector<Value>& outs,
                         const ExecFrame& frame) const;
  Expected<const GraphRunner*> SubRunner(const Graph& g) const;

  const Graph* graph_ = nullptr;
  const Model* model_ = nullptr;
  WeightProvider* provider_ = nullptr;
  std::unordered_map<std::string, int> slot_of_;
  int num_slots_ = 0;
  std::vector<NodePlan> plan_;
  std::vector<std::string> outer_names_;
  // Initializers that are also graph inputs (a feed overrides them): copied into each run.
  std::vector<std::pair<int, const Tensor*>> init_slots_;
  // Every other initializer, wrapped once at Prepare; const_value_[slot] points at it (null
  // for slots a run writes), so a run neither copies nor releases them.
  std::vector<Value> init_values_;
  std::vector<const Value*> const_value_;
  // Per outer name: where the enclosing runner `outer_owner_` holds it (>= 0 its slot, <= -2
  // its outer name -2 - k), or -1: looked up by name.
  const GraphRunner* outer_owner_ = nullptr;
  std::vector<int> outer_src_;
  std::vector<int> input_slots_;   // per graph.inputs
  std::vector<int> output_slots_;  // per graph.outputs (-2 - k for outer)
  std::vector<bool> output_move_;  // per graph.outputs: the run's slot moves into the result
  size_t max_node_inputs_ = 0;  // sizes of the per-run input and output lists
  size_t max_node_outputs_ = 0;
  // Subgraphs prepared with this graph (read-only after Prepare).
  std::unordered_map<const Graph*, std::unique_ptr<GraphRunner>> subrunners_;
  std::unique_ptr<LazyRunners> lazy_ = std::make_unique<LazyRunners>();
};

// Creates the kernel for `node`: a registered kernel, else an ONNX schema function expansion.
// Errors: Unimplemented naming file, node, op type, domain and opset.
Expected<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, const Graph& graph,
                                                 const Model& model,
                                                 WeightProvider* provider = nullptr);

// Kernel that expands an ONNX function-defined op (schema function body) at run time.
Expected<std::unique_ptr<OpKernel>> CreateFunctionKernel(const Node& node, const Model& model);

}  // namespace vt
