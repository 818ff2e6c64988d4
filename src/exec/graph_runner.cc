#include "exec/graph_runner.h"

#include <omp.h>

#include "exec/unsupported_ops.h"

#include <unordered_set>

#include "vtensor/base/host_memory.h"
#include "vtensor/exec/kernel_description.h"

namespace vt {

// Buffers of host-arena size go back to the arena when released (their storage is dropped):
// its size classes, and its reuse of a cached block up to 4x larger, let a released buffer
// serve later requests of other sizes, where this pool matches exact sizes only; the first run
// then faults in less fresh memory (base/host_memory.h).
namespace {
bool ArenaSized(size_t bytes) { return bytes >= kHostArenaMinBytes && HostArenaEnabled(); }
}  // namespace

std::shared_ptr<Storage> BufferPool::Get(size_t bytes) {
  if (ArenaSized(bytes)) return Storage::AllocateUninitialized(bytes);
  auto it = free_.find(bytes);
  if (it != free_.end() && !it->second.empty()) {
    auto s = std::move(it->second.back());
    it->second.pop_back();
    pooled_bytes_ -= bytes;
    return s;
  }
  return Storage::AllocateUninitialized(bytes);
}

void BufferPool::Put(std::shared_ptr<Storage> s) {
  if (!s || s->kind() != Storage::Kind::kHeap || s.use_count() != 1 || ArenaSized(s->size())) return;
  constexpr size_t kMaxPooled = size_t{1} << 31;
  if (pooled_bytes_ + s->size() > kMaxPooled) return;
  pooled_bytes_ += s->size();
  free_[s->size()].push_back(std::move(s));
}

Tensor KernelContext::AllocOutput(size_t i, DType dtype, const Shape& shape) {
  Tensor t;
  if (dtype == DType::kString || runner_ == nullptr) {
    t = Tensor::Empty(dtype, shape);
  } else {
    size_t bytes = static_cast<size_t>(NumElements(shape)) * DTypeSize(dtype);
    t = Tensor(dtype, Layout::Contiguous(shape), runner_->pool()->Get(bytes));
  }
  SetOutput(i, t);
  return t;
}

Expected<std::vector<Value>> KernelContext::RunSubgraph(const Graph& graph,
                                                        const std::vector<Value>& inputs) {
  if (runner_ == nullptr) return Internal("RunSubgraph without a runner");
  return runner_->RunSubgraph(graph, inputs, threads_);
}

const Value* GraphRunner::Frame::Lookup(const std::string& name) const {
  for (const Frame* f = this; f != nullptr; f = f->parent) {
    auto it = f->runner->slot_of_.find(name);
    if (it != f->runner->slot_of_.end()) return &(*f->slots)[static_cast<size_t>(it->second)];
  }
  return nullptr;
}

Expected<std::unique_ptr<GraphRunner>> GraphRunner::Prepare(const Graph& graph, const Model& model,
                                                             BufferPool* pool,
                                                             WeightProvider* provider) {
  auto r = std::unique_ptr<GraphRunner>(new GraphRunner());
  r->provider_ = provider;
  r->graph_ = &graph;
  r->model_ = &model;
  r->pool_ = pool;
  // Only the top-level graph adds the file name; nested errors already carry it.
  const bool top = graph.parent == nullptr && graph.name.find("/function") == std::string::npos;
  const std::string file = model.path.empty() ? "<model>" : model.path;
  auto with_file = [&](Status st) { return top ? std::move(st).WithContext(file) : std::move(st); };
  auto order_or = graph.TopologicalOrder();
  if (!order_or.ok()) return with_file(order_or.take_status());
  std::vector<size_t> order = std::move(order_or).value();

  auto slot = [&](const std::string& n) {
    auto it = r->slot_of_.find(n);
    if (it != r->slot_of_.end()) return it->second;
    int s = r->num_slots_++;
    r->slot_of_[n] = s;
    return s;
  };
  for (const auto& [n, t] : graph.initializers) r->init_slots_.push_back({slot(n), &t});
  for (const auto& in : graph.inputs) r->input_slots_.push_back(slot(in.name));
  for (size_t idx : order)
    for (const auto& o : graph.nodes[idx].outputs)
      if (!o.empty()) slot(o);

  auto ref = [&](const std::string& n) -> int {
    auto it = r->slot_of_.find(n);
    if (it != r->slot_of_.end()) return it->second;
    for (size_t k = 0; k < r->outer_names_.size(); ++k)
      if (r->outer_names_[k] == n) return -2 - static_cast<int>(k);
    r->outer_names_.push_back(n);
    return -2 - static_cast<int>(r->outer_names_.size() - 1);
  };

  std::vector<int> last_use(static_cast<size_t>(r->num_slots_), -1);
  UnsupportedOps unsupported;
  r->plan_.resize(order.size());
  for (size_t p = 0; p < order.size(); ++p) {
    const Node& node = graph.nodes[order[p]];
    NodePlan& np = r->plan_[p];
    np.node = &node;
    for (const auto& in : node.inputs) {
      int s = in.empty() ? -1 : ref(in);
      np.in_slots.push_back(s);
      if (s >= 0) last_use[static_cast<size_t>(s)] = static_cast<int>(p);
    }
    for (const auto& o : node.outputs) np.out_slots.push_back(o.empty() ? -1 : slot(o));
    for (const auto& [an, a] : node.attrs) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& sg : subs)
        for (const auto& n : OuterReferences(*sg)) {
          int s = ref(n);
          if (s >= 0) last_use[static_cast<size_t>(s)] = static_cast<int>(p);
        }
    }
    auto k = CreateKernel(node, graph, model, provider);
    if (!k.ok()) {
      // Keep going on unsupported ops so one error lists all of them.
      if (k.status().code() != StatusCode::kUnimplemented) return with_file(k.take_status());
      unsupported.Add(node, k.status());
      continue;
    }
    np.kernel = std::move(k).value();
    // Subgraph kernels are prepared now as well (their weights are packed, or taken from the
    // compiled-tensor cache, at load like every other weight). A subgraph that cannot be
    // prepared stays lazy: its error surfaces only if a run reaches it.
    for (const auto& [an, a] : node.attrs) {
      std::vector<const Graph*> subs;
      if (a.g) subs.push_back(a.g.get());
      for (const auto& sg : a.graphs) subs.push_back(sg.get());
      for (const Graph* sg : subs)
        if (!r->subrunners_.count(sg))
          if (auto sub = Prepare(*sg, model, pool, provider); sub.ok())
            r->subrunners_.emplace(sg, std::move(sub).value());
    }
  }
  if (!unsupported.empty()) return with_file(Unimplemented(unsupported.Message()));
  for (const auto& o : graph.outputs) {
    int s = ref(o.name);
    r->output_slots_.push_back(s);
    if (s >= 0) last_use[static_cast<size_t>(s)] = static_cast<int>(order.size());
  }
  std::unordered_set<int> persistent;
  for (const auto& [s, t] : r->init_slots_) persistent.insert(s);
  for (int s = 0; s < r->num_slots_; ++s) {
    int lu = last_use[static_cast<size_t>(s)];
    if (lu >= 0 && lu < static_cast<int>(order.size()) && !persistent.count(s))
      r->plan_[static_cast<size_t>(lu)].release_after.push_back(s);
  }
  // Outputs never consumed are released right after their producer.
  for (size_t p = 0; p < r->plan_.size(); ++p)
    for (int s : r->plan_[p].out_slots)
      if (s >= 0 && last_use[static_cast<size_t>(s)] < 0) r->plan_[p].release_after.push_back(s);
  return r;
}

Expected<std::vector<Value>> GraphRunner::Run(const std::unordered_map<std::string, Value>& feeds,
                                              const Frame* outer, int threads) {
  std::vector<Value> slots(static_cast<size_t>(num_slots_));
  for (const auto& [s, t] : init_slots_) slots[static_cast<size_t>(s)] = Value(*t);
  for (size_t i = 0; i < graph_->inputs.size(); ++i) {
    auto it = feeds.find(graph_->inputs[i].name);
    if (it != feeds.end()) slots[static_cast<size_t>(input_slots_[i])] = it->second;
  }
  Frame frame{this, &slots, outer};
  const Frame* saved = current_frame_;
  current_frame_ = &frame;
  struct Restore {
    const Frame** p;
    const Frame* v;
    ~Restore() { *p = v; }
  } restore{&current_frame_, saved};

  std::vector<const Value*> outer_vals(outer_names_.size(), nullptr);
  for (size_t k = 0; k < outer_names_.size(); ++k) {
    outer_vals[k] = outer ? outer->Lookup(outer_names_[k]) : nullptr;
  }
  for (auto& np : plan_) {
    std::vector<const Value*>& ins = np.ins;
    std::vector<Value>& outs = np.outs;
    ins.clear();
    for (int s : np.in_slots) {
      const Value* v = nullptr;
      if (s >= 0) {
        v = &slots[static_cast<size_t>(s)];
      } else if (s <= -2) {
        v = outer_vals[static_cast<size_t>(-2 - s)];
        if (v == nullptr)
          return InvalidArgument(np.node->Describe() + ": input '" +
                                 outer_names_[static_cast<size_t>(-2 - s)] + "' is not defined");
      }
      ins.push_back(v);
    }
    outs.assign(np.out_slots.size(), Value());
    KernelContext ctx(*np.node, std::move(ins), &outs, this, threads);
    Status st = np.kernel->Compute(ctx);
    ins = ctx.TakeInputs();
    if (!st.ok()) {
      if (st.message().find(np.node->Describe()) == std::string::npos)
        st.WithContext(np.node->Describe());
      return st;
    }
    for (size_t o = 0; o < np.out_slots.size(); ++o)
      if (np.out_slots[o] >= 0) slots[static_cast<size_t>(np.out_slots[o])] = std::move(outs[o]);
    for (int s : np.release_after) {
      Value& v = slots[static_cast<size_t>(s)];
      if (v.is_tensor()) {
        std::shared_ptr<Storage> st2 = v.tensor().storage();
        v = Value();
        pool_->Put(std::move(st2));
      } else {
        v = Value();
      }
    }
  }
  std::vector<Value> result;
  result.reserve(output_slots_.size());
  for (size_t i = 0; i < output_slots_.size(); ++i) {
    int s = output_slots_[i];
    if (s >= 0) {
      result.push_back(slots[static_cast<size_t>(s)]);
    } else {
      const Value* v = outer_vals[static_cast<size_t>(-2 - s)];
      if (v == nullptr)
        return InvalidArgument("graph output '" + graph_->outputs[i].name + "' is not defined");
      result.push_back(*v);
    }
  }
  return result;
}

Expected<std::vector<Value>> GraphRunner::RunSubgraph(const Graph& g,
                                                      const std::vector<Value>& inputs,
                                                      int threads) {
  auto it = subrunners_.find(&g);
  if (it == subrunners_.end()) {
    VT_ASSIGN_OR_RETURN(auto sub, Prepare(g, *model_, pool_, provider_));
    it = subrunners_.emplace(&g, std::move(sub)).first;
  }
  if (inputs.size() > g.inputs.size())
    return InvalidArgument("subgraph '" + g.name + "' takes " + std::to_string(g.inputs.size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  std::unordered_map<std::string, Value> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds[g.inputs[i].name] = inputs[i];
  return it->second->Run(feeds, current_frame_, threads);
}

std::vector<std::pair<std::string, std::string>> GraphRunner::KernelNotes() const {
  std::vector<std::pair<std::string, std::string>> notes;
  for (const NodePlan& np : plan_) {
    if (np.kernel == nullptr) continue;
    const auto* d = dynamic_cast<const KernelDescription*>(np.kernel.get());
    if (d == nullptr) continue;
    if (std::string text = d->Describe(); !text.empty()) notes.emplace_back(np.node->name, text);
  }
  return notes;
}

}  // namespace vt
