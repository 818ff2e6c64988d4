// Kernel interface and registry: how an ONNX node becomes executable code.
//
// A kernel is created once per node at session creation (it may read attributes and
// constant initializers, and prepack weights), then Compute() runs it for every inference.
// Compute is const: one kernel serves every concurrent run of its session (runtime/session.h),
// so what it prepared is read-only afterwards and per-call state (scratch, buffers) lives in
// locals, in the run's buffer pool (AllocOutput) or in thread_local scratch, never in members.
// The rare kernel that must keep state across calls (a seeded random stream, a cache of
// expanded function bodies) guards it with its own mutex.
// Kernels are registered per (domain, op_type, opset range). Nodes without a registered
// kernel but with an ONNX function body (schema function) are expanded at run time.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/graph/node_status.h"
#include "vtensor/tensor/value.h"

namespace vt {

struct ExecFrame;  // internal (exec/graph_runner.h): one run of one graph

class KernelContext {
 public:
  // `frame`: the run this node executes in (its buffer pool and outer-scope values); null
  // outside a graph run (constant folding, tests): outputs are then fresh allocations and
  // RunSubgraph fails.
  KernelContext(const Node& node, std::vector<const Value*> inputs, std::vector<Value>* outputs,
                const ExecFrame* frame, int threads)
      : node_(node), inputs_(std::move(inputs)), outputs_(outputs), frame_(frame),
        threads_(threads) {}

  const Node& node() const { return node_; }
  int64_t opset() const { return node_.opset; }
  size_t num_inputs() const { return inputs_.size(); }
  // True when input i is given (non-empty name). An empty optional (kind kNone) counts as
  // given; only optional-typed ops see such values.
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  // Value of input i; null when absent (missing or empty name).
  const Value* input_value(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  // Tensor of input i. Precondition: has_input(i) and it is a tensor (see RequireTensor).
  const Tensor& input(size_t i) const { return inputs_[i]->tensor(); }
  // Tensor input i or an InvalidArgument naming the node when absent / not a tensor.
  Expected<Tensor> RequireTensor(size_t i) const;

  size_t num_outputs() const { return outputs_->size(); }
  // True when output i is consumed or a graph output (name non-empty).
  bool output_requested(size_t i) const {
    return i < node_.outputs.size() && !node_.outputs[i].empty();
  }
  void SetOutput(size_t i, Value v) {
    if (i < outputs_->size()) (*outputs_)[i] = std::move(v);
  }
  // Allocates a contiguous output with uninitialised contents (possibly a reused buffer)
  // and installs it as output i.
  Tensor AllocOutput(size_t i, DType dtype, const Shape& shape);
  // AllocOutput, but the output may take the buffer of one of `inputs` (tried in order): one
  // whose value this node uses last in the run, held by nothing else (not a graph input, an
  // initializer or a view another value shares), of `dtype`, as many elements as `shape`, and
  // contiguous over its whole buffer. The kernel then overwrites that input while it reads it, so
  // only kernels that read each element of the input before writing the same element of the
  // output (elementwise, in index order) may call it. Lowers the run's peak of live buffers,
  // which is the fresh memory a first run touches (docs/benchmarks.md, "Where the first run's
  // time goes").
  Tensor AllocOutputOver(size_t i, DType dtype, const Shape& shape,
                         std::initializer_list<size_t> inputs);
  // For the executor: per input, nonzero when this node is the value's last use in the run
  // (null: none is). Outside a graph run no input is.
  void set_last_uses(const uint8_t* last_use) { last_use_ = last_use; }

  int threads() const { return threads_; }
  // Hands the input pointer buffer back to the executor for reuse (no allocation per node).
  std::vector<const Value*> TakeInputs() { return std::move(inputs_); }

  // Runs `graph` (a subgraph attribute of this node) with positional inputs; outer-scope
  // names resolve to the values visible at this node. Returns the graph outputs in order.
  Expected<std::vector<Value>> RunSubgraph(const Graph& graph, const std::vector<Value>& inputs);

  // `st` with this node named in its context chain (once), keeping its code: how a kernel
  // passes on an error from a helper (`return ctx.Annotate(shape.take_status());`).
  Status Annotate(Status st) const { return AnnotateNode(std::move(st), node_); }
  // InvalidArgument / Unimplemented naming this node: "node 'n' (Op, opset N): <msg>".
  Status Error(std::string msg) const { return Annotate(InvalidArgument(std::move(msg))); }
  Status Unsupported(std::string msg) const {
    return Annotate(Unimplemented(std::move(msg)));
  }

 private:
  const Node& node_;
  std::vector<const Value*> inputs_;
  std::vector<Value>* outputs_;
  const ExecFrame* frame_;
  int threads_;
  const uint8_t* last_use_ = nullptr;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Runs the node once; may be called from several threads at once (see above).
  virtual Status Compute(KernelContext& ctx) const = 0;
};

// What a kernel factory may inspect when its node is prepared.
class WeightProvider;  // forms/weight_provider.h

struct KernelInit {
  const Node& node;
  const Graph& graph;  // to look up constant initializers (graph.initializers)
  // Packs (or takes from the compiled-tensor cache) constant weights; null outside a session
  // (then weights() is the default provider: host ISA, exact profile, no cache).
  WeightProvider* provider = nullptr;
  // Initializer visible from this node (own graph or enclosing ones), or null.
  const Tensor* FindInitializer(const std::string& name) const;
  WeightProvider& weights() const;
};

using KernelFactory = std::function<Expected<std::unique_ptr<OpKernel>>(const KernelInit&)>;
using ComputeFn = Status (*)(KernelContext&);

class KernelRegistry {
 public:
  static KernelRegistry& Global();

  // Registers a factory for opsets [min_opset, max_opset] of (domain, op_type).
  void Register(const std::string& domain, const std::string& op_type, int min_opset,
                int max_opset, KernelFactory factory);
  // Stateless kernel from a plain function.
  void RegisterFn(const std::string& domain, const std::string& op_type, int min_opset,
                  int max_opset, ComputeFn fn);
  const KernelFactory* Find(const std::string& domain, const std::string& op_type,
                            int64_t opset) const;
  // All registered (domain, op_type) pairs, for `vtensor info` and docs.
  std::vector<std::pair<std::string, std::string>> List() const;

 private:
  struct Entry {
    int min_opset, max_opset;
    KernelFactory factory;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Entry>> entries_;
};

// Static registration helper: `VT_REGISTER_OP("", "Relu", 6, kMaxOpset, ReluCompute);`
constexpr int kMaxOpset = 1000;
struct OpRegistrar {
  OpRegistrar(const char* domain, const char* op, int min_opset, int max_opset, ComputeFn fn) {
    KernelRegistry::Global().RegisterFn(domain, op, min_opset, max_opset, fn);
  }
  OpRegistrar(const char* domain, const char* op, int min_opset, int max_opset, KernelFactory f) {
    KernelRegistry::Global().Register(domain, op, min_opset, max_opset, std::move(f));
  }
};
#define VT_REGISTER_OP(domain, op, min_opset, max_opset, fn) \
  static ::vt::OpRegistrar VT_CONCAT(_vt_reg_, __COUNTER__)(domain, op, min_opset, max_opset, fn)

}  // namespace vt
