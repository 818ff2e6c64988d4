#include "exec/graph_runner.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_set>

#include "exec/unsupported_ops.h"

#include "vtensor/base/host_memory.h"
#include "vtensor/graph/node_status.h"
#include "vtensor/exec/kernel_description.h"

namespace vt {

// Buffers of host-arena size go back to the arena when released (their storage is dropped):
// it splits and merges freed ranges, so a released buffer serves later requests of any size,
// where this pool matches exact sizes only; the first run then touches about its peak of live
// bytes in fresh memory (base/host_memory.h).
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

std::vector<Value> BufferPool::TakeSlots(size_t n) {
  std::vector<Value> v;
  if (!slot_vectors_.empty()) {
    v = std::move(slot_vectors_.back());
    slot_vectors_.pop_back();
  }
  v.resize(n);
  return v;
}

void BufferPool::GiveSlots(std::vector<Value> slots) {
  slots.clear();
  slot_vectors_.push_back(std::move(slots));
}

BufferPools::Lease BufferPools::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      std::unique_ptr<BufferPool> p = std::move(free_.back());
      free_.pop_back();
      return Lease(this, std::move(p));
    }
    ++created_;
  }
  return Lease(this, std::make_unique<BufferPool>());
}

void BufferPools::Return(std::unique_ptr<BufferPool> pool) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(pool));
}

size_t BufferPools::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return created_;
}

Tensor KernelContext::AllocOutput(size_t i, DType dtype, const Shape& shape) {
  Tensor t;
  if (dtype == DType::kString || frame_ == nullptr || frame_->pool == nullptr) {
    t = Tensor::Empty(dtype, shape);
  } else {
    size_t bytes = static_cast<size_t>(NumElements(shape)) * DTypeSize(dtype);
    t = Tensor(dtype, Layout::Contiguous(shape), frame_->pool->Get(bytes));
  }
  SetOutput(i, t);
  return t;
}

Tensor KernelContext::AllocOutputOver(size_t i, DType dtype, const Shape& shape,
                                      std::initializer_list<size_t> inputs) {
  if (last_use_ != nullptr && dtype != DType::kString) {
    const size_t bytes = static_cast<size_t>(NumElements(shape)) * DTypeSize(dtype);
    for (size_t k : inputs) {
      if (k >= inputs_.size() || !last_use_[k] || inputs_[k] == nullptr ||
          !inputs_[k]->is_tensor())
        continue;
      const Tensor& in = inputs_[k]->tensor();
      const std::shared_ptr<Storage>& st = in.storage();
      // One owner (the run's slot) and nothing else in the buffer: no one reads it later.
      if (in.dtype() != dtype || !in.is_contiguous() || in.layout().offset() != 0 || !st ||
          st->kind() != Storage::Kind::kHeap || st->size() != bytes || st.use_count() != 1)
        continue;
      Tensor t(dtype, Layout::Contiguous(shape), st);
      SetOutput(i, t);
      return t;
    }
  }
  return AllocOutput(i, dtype, shape);
}

Expected<std::vector<Value>> KernelContext::RunSubgraph(const Graph& graph,
                                                        const std::vector<Value>& inputs) {
  if (frame_ == nullptr) return Internal("RunSubgraph without a runner");
  return frame_->runner->RunSubgraph(graph, inputs, *frame_, threads_);
}

const Value* ExecFrame::Lookup(const std::string& name) const {
  for (const ExecFrame* f = this; f != nullptr; f = f->parent) {
    auto it = f->runner->slot_of_.find(name);
    if (it != f->runner->slot_of_.end()) return f->At(it->second);
  }
  return nullptr;
}

const Value* ExecFrame::At(int s) const {
  const Value* c = runner->const_value_[static_cast<size_t>(s)];
  return c != nullptr ? c : &(*slots)[static_cast<size_t>(s)];
}

int GraphRunner::Slot(const std::string& n) {
  auto it = slot_of_.find(n);
  if (it != slot_of_.end()) return it->second;
  const int s = num_slots_++;
  slot_of_[n] = s;
  return s;
}

int GraphRunner::Ref(const std::string& n) {
  auto it = slot_of_.find(n);
  if (it != slot_of_.end()) return it->second;
  for (size_t k = 0; k < outer_names_.size(); ++k)
    if (outer_names_[k] == n) return -2 - static_cast<int>(k);
  outer_names_.push_back(n);
  return -2 - static_cast<int>(outer_names_.size() - 1);
}

void GraphRunner::AssignSlots(const std::vector<size_t>& order) {
  std::unordered_set<std::string> inputs;
  for (const auto& in : graph_->inputs) inputs.insert(in.name);
  std::vector<int> const_slots;
  init_values_.reserve(graph_->initializers.size());  // const_value_ points into it
  for (const auto& [n, t] : graph_->initializers) {
    if (inputs.count(n)) {
      init_slots_.push_back({Slot(n), &t});
    } else {
      const_slots.push_back(Slot(n));
      init_values_.emplace_back(t);
    }
  }
  for (const auto& in : graph_->inputs) input_slots_.push_back(Slot(in.name));
  for (size_t idx : order)
    for (const auto& o : graph_->nodes[idx].outputs)
      if (!o.empty()) Slot(o);
  const_value_.assign(static_cast<size_t>(num_slots_), nullptr);
  for (size_t i = 0; i < const_slots.size(); ++i)
    const_value_[static_cast<size_t>(const_slots[i])] = &init_values_[i];
}

void GraphRunner::PlanNodeSlots(size_t p, const Node& node, std::vector<int>* last_use) {
  NodePlan& np = plan_[p];
  np.node = &node;
  auto used_here = [&](int s) {
    if (s >= 0) (*last_use)[static_cast<size_t>(s)] = static_cast<int>(p);
  };
  for (const auto& in : node.inputs) {
    const int s = in.empty() ? -1 : Ref(in);
    np.in_slots.push_back(s);
    used_here(s);
  }
  for (const auto& o : node.outputs) np.out_slots.push_back(o.empty() ? -1 : Slot(o));
  max_node_inputs_ = std::max(max_node_inputs_, np.in_slots.size());
  max_node_outputs_ = std::max(max_node_outputs_, np.out_slots.size());
  for (const auto& [an, a] : node.attrs) {
    std::vector<std::shared_ptr<Graph>> subs = a.graphs;
    if (a.g) subs.push_back(a.g);
    for (const auto& sg : subs)
      for (const auto& n : OuterReferences(*sg)) used_here(Ref(n));
  }
}

void GraphRunner::PrepareSubgraphs(const Node& node) {
  for (const auto& [an, a] : node.attrs) {
    std::vector<const Graph*> subs;
    if (a.g) subs.push_back(a.g.get());
    for (const auto& sg : a.graphs) subs.push_back(sg.get());
    for (const Graph* sg : subs)
      if (!subrunners_.count(sg))
        if (auto sub = Prepare(*sg, *model_, provider_); sub.ok()) {
          sub.value()->BindOuter(*this);
          subrunners_.emplace(sg, std::move(sub).value());
        }
  }
}

void GraphRunner::BindOuter(const GraphRunner& owner) {
  outer_owner_ = &owner;
  outer_src_.assign(outer_names_.size(), -1);
  for (size_t k = 0; k < outer_names_.size(); ++k) {
    const std::string& n = outer_names_[k];
    if (auto it = owner.slot_of_.find(n); it != owner.slot_of_.end()) {
      outer_src_[k] = it->second;
      continue;
    }
    for (size_t j = 0; j < owner.outer_names_.size(); ++j)
      if (owner.outer_names_[j] == n) outer_src_[k] = -2 - static_cast<int>(j);
  }
}

void GraphRunner::PlanReleases(std::vector<int>* last_use) {
  const int steps = static_cast<int>(plan_.size());
  for (const auto& o : graph_->outputs) {
    const int s = Ref(o.name);
    output_slots_.push_back(s);
    if (s >= 0) (*last_use)[static_cast<size_t>(s)] = steps;
  }
  std::unordered_set<int> persistent;
  for (const auto& [s, t] : init_slots_) persistent.insert(s);
  for (int s = 0; s < num_slots_; ++s) {
    const int lu = (*last_use)[static_cast<size_t>(s)];
    if (lu >= 0 && lu < steps && !persistent.count(s) &&
        const_value_[static_cast<size_t>(s)] == nullptr)
      plan_[static_cast<size_t>(lu)].release_after.push_back(s);
  }
  // A run's slots die with it, so its outputs move out of them, unless an output appears
  // twice (later copies read the slot) or is an initializer (shared by every run).
  for (size_t i = 0; i < output_slots_.size(); ++i) {
    const int s = output_slots_[i];
    bool movable = s >= 0 && const_value_[static_cast<size_t>(s)] == nullptr;
    for (size_t j = i + 1; j < output_slots_.size() && movable; ++j)
      movable = output_slots_[j] != s;
    output_move_.push_back(movable);
  }
  // An input is last used at step p when p releases it (initializers and the graph's outputs
  // are never released; graph inputs are, but the caller's copy keeps their buffer shared).
  for (size_t p = 0; p < plan_.size(); ++p) {
    NodePlan& np = plan_[p];
    np.last_use.assign(np.in_slots.size(), 0);
    for (size_t i = 0; i < np.in_slots.size(); ++i)
      np.last_use[i] = std::find(np.release_after.begin(), np.release_after.end(),
                                 np.in_slots[i]) != np.release_after.end();
  }
  // Outputs never consumed are released right after their producer.
  for (auto& np : plan_)
    for (int s : np.out_slots)
      if (s >= 0 && (*last_use)[static_cast<size_t>(s)] < 0) np.release_after.push_back(s);
}

Expected<std::unique_ptr<GraphRunner>> GraphRunner::Prepare(const Graph& graph, const Model& model,
                                                             WeightProvider* provider) {
  auto r = std::unique_ptr<GraphRunner>(new GraphRunner());
  r->provider_ = provider;
  r->graph_ = &graph;
  r->model_ = &model;
  // Only the top-level graph adds the file name; nested errors already carry it.
  const bool top = graph.parent == nullptr && graph.name.find("/function") == std::string::npos;
  const std::string file = model.path.empty() ? "<model>" : model.path;
  auto with_file = [&](Status st) { return top ? std::move(st).WithContext(file) : std::move(st); };
  auto order_or = graph.TopologicalOrder();
  if (!order_or.ok()) return with_file(order_or.take_status());
  const std::vector<size_t> order = std::move(order_or).value();

  r->AssignSlots(order);
  std::vector<int> last_use(static_cast<size_t>(r->num_slots_), -1);
  UnsupportedOps unsupported;
  r->plan_.resize(order.size());
  for (size_t p = 0; p < order.size(); ++p) {
    const Node& node = graph.nodes[order[p]];
    r->PlanNodeSlots(p, node, &last_use);
    auto k = CreateKernel(node, graph, model, provider);
    if (!k.ok()) {
      // Keep going on unsupported ops so one error lists all of them.
      if (k.status().code() != StatusCode::kUnimplemented) return with_file(k.take_status());
      unsupported.Add(node, k.status());
      continue;
    }
    r->plan_[p].kernel = std::move(k).value();
    // Subgraph kernels are prepared now as well (their weights are packed, or taken from the
    // compiled-tensor cache, at load like every other weight).
    r->PrepareSubgraphs(node);
  }
  if (!unsupported.empty()) return with_file(Unimplemented(unsupported.Message()));
  r->PlanReleases(&last_use);
  return r;
}

Expected<std::vector<Value>> GraphRunner::Run(const std::unordered_map<std::string, Value>& feeds,
                                              BufferPool* pool, int threads,
                                              OpProfile* profile) const {
  std::vector<Value> slots = NewSlots(pool);
  for (size_t i = 0; i < graph_->inputs.size(); ++i) {
    auto it = feeds.find(graph_->inputs[i].name);
    if (it != feeds.end()) slots[static_cast<size_t>(input_slots_[i])] = it->second;
  }
  Expected<std::vector<Value>> r = RunIn(slots, nullptr, pool, threads, profile);
  if (pool != nullptr) pool->GiveSlots(std::move(slots));
  return r;
}

std::vector<Value> GraphRunner::NewSlots(BufferPool* pool) const {
  std::vector<Value> slots =
      pool != nullptr ? pool->TakeSlots(static_cast<size_t>(num_slots_))
                      : std::vector<Value>(static_cast<size_t>(num_slots_));
  for (const auto& [s, t] : init_slots_) slots[static_cast<size_t>(s)] = Value(*t);
  return slots;
}

const Value* GraphRunner::OuterValue(size_t k, const ExecFrame& outer) const {
  if (outer.runner == outer_owner_) {
    const int src = outer_src_[k];
    if (src >= 0) return outer.At(src);
    if (src <= -2) return outer.outer_vals[static_cast<size_t>(-2 - src)];
  }
  return outer.Lookup(outer_names_[k]);
}

namespace {
std::vector<std::pair<DType, Shape>> Signature(const std::vector<const Value*>& vals) {
  std::vector<std::pair<DType, Shape>> out;
  out.reserve(vals.size());
  for (const Value* v : vals)
    out.push_back(v && v->is_tensor() ? std::pair{v->tensor().dtype(), v->tensor().shape()}
                                      : std::pair{DType::kUndefined, Shape{}});
  return out;
}
}  // namespace

Status GraphRunner::ComputeProfiled(const NodePlan& np, KernelContext& ctx,
                                    const std::vector<Value>& outs, const ExecFrame& frame) const {
  OpProfile* prof = frame.profile;
  static thread_local const uint64_t tid = static_cast<uint64_t>(::gettid());
  OpEvent e;
  e.node = np.node;
  e.depth = frame.depth;
  e.thread = tid;
  // The recording itself (Mark, the shapes, Add) is in span_us, which the parent's self time
  // leaves out, so profiling cost is not charged to If/Loop nodes.
  const double begin_us = prof->NowUs();
  const size_t mark = prof->Mark();
  e.start_us = prof->NowUs();
  Status st = np.kernel->Compute(ctx);
  e.dur_us = prof->NowUs() - e.start_us;
  std::vector<const Value*> vals;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) vals.push_back(ctx.input_value(i));
  e.inputs = Signature(vals);
  vals.clear();
  for (const Value& v : outs) vals.push_back(&v);
  e.outputs = Signature(vals);
  e.span_us = prof->NowUs() - begin_us;
  prof->Add(std::move(e), mark);
  return st;
}

Expected<std::vector<Value>> GraphRunner::RunIn(std::vector<Value>& slots,
                                                const ExecFrame* outer, BufferPool* pool,
                                                int threads, OpProfile* profile) const {
  std::vector<const Value*> outer_vals(outer_names_.size(), nullptr);
  if (outer != nullptr)
    for (size_t k = 0; k < outer_names_.size(); ++k) outer_vals[k] = OuterValue(k, *outer);
  const ExecFrame frame{this,
                        &slots,
                        outer,
                        pool,
                        outer ? outer->profile : profile,
                        outer ? outer->depth + 1 : 0,
                        outer_vals.data()};

  // One input list and one output list per run, handed to each node in turn.
  std::vector<const Value*> ins;
  std::vector<Value> outs;
  ins.reserve(max_node_inputs_);
  outs.reserve(max_node_outputs_);
  for (const auto& np : plan_) {
    ins.clear();
    for (int s : np.in_slots) {
      const Value* v = nullptr;
      if (s >= 0) {
        v = frame.At(s);
      } else if (s <= -2) {
        v = outer_vals[static_cast<size_t>(-2 - s)];
        if (v == nullptr)
          return AnnotateNode(InvalidArgument("input '" +
                                              outer_names_[static_cast<size_t>(-2 - s)] +
                                              "' is not defined"),
                              *np.node);
      }
      ins.push_back(v);
    }
    outs.assign(np.out_slots.size(), Value());
    KernelContext ctx(*np.node, std::move(ins), &outs, &frame, threads);
    ctx.set_last_uses(np.last_use.data());
    Status st = frame.profile ? ComputeProfiled(np, ctx, outs, frame) : np.kernel->Compute(ctx);
    ins = ctx.TakeInputs();
    if (!st.ok()) return AnnotateNode(std::move(st), *np.node);
    for (size_t o = 0; o < np.out_slots.size(); ++o)
      if (np.out_slots[o] >= 0) slots[static_cast<size_t>(np.out_slots[o])] = std::move(outs[o]);
    for (int s : np.release_after) {
      Value& v = slots[static_cast<size_t>(s)];
      if (v.is_tensor() && pool != nullptr) {
        std::shared_ptr<Storage> st2 = v.tensor().storage();
        v = Value();
        pool->Put(std::move(st2));
      } else {
        v = Value();
      }
    }
  }
  std::vector<Value> result;
  result.reserve(output_slots_.size());
  for (size_t i = 0; i < output_slots_.size(); ++i) {
    int s = output_slots_[i];
    if (output_move_[i]) {
      result.push_back(std::move(slots[static_cast<size_t>(s)]));
    } else if (s >= 0) {
      result.push_back(*frame.At(s));
    } else {
      const Value* v = outer_vals[static_cast<size_t>(-2 - s)];
      if (v == nullptr)
        return InvalidArgument("graph output '" + graph_->outputs[i].name + "' is not defined");
      result.push_back(*v);
    }
  }
  return result;
}

Expected<const GraphRunner*> GraphRunner::SubRunner(const Graph& g) const {
  if (auto it = subrunners_.find(&g); it != subrunners_.end()) return it->second.get();
  std::lock_guard<std::mutex> lock(lazy_->mu);
  auto it = lazy_->runners.find(&g);
  if (it == lazy_->runners.end()) {
    VT_ASSIGN_OR_RETURN(auto sub, Prepare(g, *model_, provider_));
    sub->BindOuter(*this);
    it = lazy_->runners.emplace(&g, std::move(sub)).first;
  }
  return it->second.get();
}

Expected<std::vector<Value>> GraphRunner::RunSubgraph(const Graph& g,
                                                      const std::vector<Value>& inputs,
                                                      const ExecFrame& at, int threads) const {
  VT_ASSIGN_OR_RETURN(const GraphRunner* sub, SubRunner(g));
  if (inputs.size() > g.inputs.size())
    return InvalidArgument("subgraph '" + g.name + "' takes " + std::to_string(g.inputs.size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  std::vector<Value> slots = sub->NewSlots(at.pool);
  for (size_t i = 0; i < inputs.size(); ++i)
    slots[static_cast<size_t>(sub->input_slots_[i])] = inputs[i];
  Expected<std::vector<Value>> r = sub->RunIn(slots, &at, at.pool, threads, nullptr);
  if (at.pool != nullptr) at.pool->GiveSlots(std::move(slots));
  return r;
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
