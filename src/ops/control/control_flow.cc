// If, Loop, Scan: control flow over subgraph attributes (ONNX Operators.md "If", "Loop",
// "Scan"). Subgraphs run through KernelContext::RunSubgraph, which resolves outer-scope names
// and caches the prepared subgraph per Graph*.
#include <algorithm>
#include <limits>

#include "ops/common/op_util.h"
#include "ops/common/stack.h"

namespace vt::ops {
namespace {

// Reads a one-element boolean-like condition tensor. Errors: not a tensor / not one element.
Expected<bool> ReadCondition(KernelContext& ctx, size_t i, const char* what) {
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.numel() != 1)
    return ctx.Error(std::string(what) + " must have exactly one element, got shape " +
                     ShapeToString(t.shape()));
  if (t.dtype() == DType::kString) return ctx.Error(std::string(what) + " must be boolean");
  return t.GetDouble(0) != 0.0;
}

Expected<const Graph*> RequireGraphAttr(KernelContext& ctx, const char* name) {
  const Attribute* a = ctx.node().FindAttr(name);
  if (a == nullptr || !a->g) return ctx.Error(std::string("missing graph attribute '") + name + "'");
  return a->g.get();
}

// Result type of a scan output that never received a slice (zero iterations): taken from
// the body's declared output type when it is fully static, else [0] of float32.
void DeclaredOutputType(const Graph& body, size_t out_index, DType* dtype, Shape* shape) {
  *dtype = DType::kFloat32;
  shape->clear();
  if (out_index >= body.outputs.size()) return;
  const TensorSpec& spec = body.outputs[out_index].spec;
  if (spec.dtype() != DType::kUndefined) *dtype = spec.dtype();
  if (!spec.shape()) return;
  Shape s;
  for (const Dim& d : *spec.shape()) {
    if (!d.known()) return;  // unknown extent: the slice shape cannot be inferred
    s.push_back(d.value);
  }
  *shape = std::move(s);
}

Tensor ScalarBool(bool v) {
  Tensor t = Tensor::Empty(DType::kBool, {});
  *t.mutable_data<uint8_t>() = v ? 1 : 0;
  return t;
}

// ---------------------------------------------------------------------------------------------
// If (opset 1+): runs then_branch or else_branch; outputs are the branch outputs.

Status IfCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(bool cond, ReadCondition(ctx, 0, "cond"));
  VT_ASSIGN_OR_RETURN(const Graph* branch,
                      RequireGraphAttr(ctx, cond ? "then_branch" : "else_branch"));
  VT_ASSIGN_OR_RETURN(std::vector<Value> outs, ctx.RunSubgraph(*branch, {}));
  if (outs.size() != ctx.num_outputs())
    return ctx.Error(std::string(cond ? "then_branch" : "else_branch") + " produces " +
                     std::to_string(outs.size()) + " outputs, node has " +
                     std::to_string(ctx.num_outputs()));
  for (size_t i = 0; i < outs.size(); ++i) ctx.SetOutput(i, std::move(outs[i]));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Loop (opset 1+): inputs (M?, cond?, v_initial...), body (iter, cond, v...) ->
// (cond, v..., scan...). Outputs: final v... then scan outputs stacked on a new axis 0.

// Without a condition, a trip count beyond this is a model that never finishes in practice;
// it is refused instead of hanging the caller.
constexpr int64_t kMaxUnconditionalTrips = int64_t{1} << 31;

Status LoopCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Graph* body, RequireGraphAttr(ctx, "body"));
  const size_t n_in = ctx.num_inputs();
  if (n_in < 2) return ctx.Error("Loop needs inputs M and cond (either may be empty)");
  const size_t n_carried = n_in - 2;
  if (body->inputs.size() != n_carried + 2)
    return ctx.Error("body takes " + std::to_string(body->inputs.size()) +
                     " inputs, expected 2 + " + std::to_string(n_carried) + " loop-carried");
  if (body->outputs.size() < n_carried + 1)
    return ctx.Error("body produces " + std::to_string(body->outputs.size()) +
                     " outputs, expected at least 1 + " + std::to_string(n_carried));
  const size_t n_scan = body->outputs.size() - 1 - n_carried;
  if (ctx.num_outputs() > n_carried + n_scan)
    return ctx.Error("node has " + std::to_string(ctx.num_outputs()) + " outputs, body yields " +
                     std::to_string(n_carried) + " loop-carried + " + std::to_string(n_scan) +
                     " scan outputs");

  const bool has_m = ctx.has_input(0) && !ctx.input_value(0)->is_none();
  const bool has_cond = ctx.has_input(1) && !ctx.input_value(1)->is_none();
  int64_t trips = std::numeric_limits<int64_t>::max();
  if (has_m) {
    VT_ASSIGN_OR_RETURN(Tensor m, ctx.RequireTensor(0));
    if (m.numel() != 1 || !IsIntegerDType(m.dtype()))
      return ctx.Error("M must be a one-element integer tensor, got " +
                       std::string(DTypeName(m.dtype())) + ShapeToString(m.shape()));
    trips = m.GetInt64(0);
  }
  bool cond = true;
  if (has_cond) {
    VT_ASSIGN_OR_RETURN(cond, ReadCondition(ctx, 1, "cond"));
  } else if (!has_m) {
    return ctx.Error("Loop with neither trip count M nor cond never terminates");
  } else if (trips > kMaxUnconditionalTrips) {
    return ctx.Error("trip count " + std::to_string(trips) +
                     " without a condition exceeds the supported maximum");
  }

  std::vector<Value> body_in(n_carried + 2);
  for (size_t k = 0; k < n_carried; ++k) {
    const Value* v = ctx.input_value(2 + k);
    if (v == nullptr) return ctx.Error("loop-carried input " + std::to_string(k) + " is absent");
    body_in[2 + k] = *v;
  }
  std::vector<std::vector<Tensor>> scans(n_scan);
  for (int64_t it = 0; it < trips && cond; ++it) {
    body_in[0] = Value(Tensor::ScalarI64(it));
    body_in[1] = Value(ScalarBool(cond));
    auto outs = ctx.RunSubgraph(*body, body_in);
    if (!outs.ok())
      return ctx.Annotate(outs.take_status().WithContext("iteration " + std::to_string(it)));
    if (outs->size() != 1 + n_carried + n_scan)
      return ctx.Error("body returned " + std::to_string(outs->size()) + " values");
    if (has_cond) {
      const Value& c = (*outs)[0];
      if (!c.is_tensor() || c.tensor().numel() != 1)
        return ctx.Error("body output cond must be a one-element tensor");
      cond = c.tensor().GetDouble(0) != 0.0;
    }
    for (size_t k = 0; k < n_carried; ++k) body_in[2 + k] = std::move((*outs)[1 + k]);
    for (size_t k = 0; k < n_scan; ++k) {
      Value& s = (*outs)[1 + n_carried + k];
      if (!s.is_tensor())
        return ctx.Error("scan output " + std::to_string(k) + " must be a tensor");
      if (!scans[k].empty() && (scans[k][0].shape() != s.tensor().shape() ||
                                scans[k][0].dtype() != s.tensor().dtype()))
        return ctx.Error("scan output " + std::to_string(k) + " changes from " +
                         DTypeName(scans[k][0].dtype()) + ShapeToString(scans[k][0].shape()) +
                         " to " + DTypeName(s.tensor().dtype()) +
                         ShapeToString(s.tensor().shape()) + " in iteration " +
                         std::to_string(it));
      scans[k].push_back(std::move(s.tensor()));
    }
  }
  for (size_t k = 0; k < n_carried && k < ctx.num_outputs(); ++k)
    ctx.SetOutput(k, std::move(body_in[2 + k]));
  for (size_t k = 0; k < n_scan && n_carried + k < ctx.num_outputs(); ++k) {
    DType dt;
    Shape es;
    DeclaredOutputType(*body, 1 + n_carried + k, &dt, &es);
    auto stacked = StackTensors(scans[k], dt, es);
    if (!stacked.ok())
      return ctx.Annotate(stacked.take_status().WithContext("scan output " + std::to_string(k)));
    ctx.SetOutput(n_carried + k, std::move(stacked).value());
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Scan. Opset 9+: inputs (state..., scan_input...), per-input axis and direction attributes.
// Opset 8: inputs (sequence_lens?, state..., scan_input...) with a leading batch axis on every
// input and output; the sequence axis is 1 and `directions` gives the scan input directions.

struct ScanSpec {
  size_t n_state = 0, n_scan_in = 0, n_scan_out = 0;
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
};

// One scan over `states` and `scan_inputs` (the batch already removed for opset 8).
// `in_axes` are normalised. Scan outputs are stacked along axis 0 in iteration order
// (reversed later for reverse outputs). Steps past `length` are not run.
Status RunScan(KernelContext& ctx, const Graph& body, const ScanSpec& sp,
               std::vector<Value>* states, const std::vector<Tensor>& scan_inputs,
               int64_t length, std::vector<std::vector<Tensor>>* slices) {
  std::vector<Value> body_in(sp.n_state + sp.n_scan_in);
  for (int64_t t = 0; t < length; ++t) {
    for (size_t k = 0; k < sp.n_state; ++k) body_in[k] = (*states)[k];
    for (size_t j = 0; j < sp.n_scan_in; ++j) {
      int64_t pos = sp.in_dirs[j] ? length - 1 - t : t;
      body_in[sp.n_state + j] = Value(
          SelectAlongAxis(scan_inputs[j], static_cast<int>(sp.in_axes[j]), pos).Contiguous());
    }
    auto outs = ctx.RunSubgraph(body, body_in);
    if (!outs.ok())
      return ctx.Annotate(outs.take_status().WithContext("step " + std::to_string(t)));
    if (outs->size() != sp.n_state + sp.n_scan_out)
      return ctx.Error("body returned " + std::to_string(outs->size()) + " values");
    for (size_t k = 0; k < sp.n_state; ++k) (*states)[k] = std::move((*outs)[k]);
    for (size_t k = 0; k < sp.n_scan_out; ++k) {
      Value& s = (*outs)[sp.n_state + k];
      if (!s.is_tensor()) return ctx.Error("scan output " + std::to_string(k) + " must be a tensor");
      auto& v = (*slices)[k];
      if (!v.empty() && (v[0].shape() != s.tensor().shape() || v[0].dtype() != s.tensor().dtype()))
        return ctx.Error("scan output " + std::to_string(k) + " changes shape or dtype at step " +
                         std::to_string(t));
      v.push_back(std::move(s.tensor()));
    }
  }
  return Status::Ok();
}

Expected<ScanSpec> ReadScanSpec(KernelContext& ctx, const Graph& body, size_t n_inputs,
                                bool opset8) {
  const Node& n = ctx.node();
  ScanSpec sp;
  int64_t m = n.GetInt("num_scan_inputs", -1);
  if (m < 1 || static_cast<size_t>(m) > n_inputs)
    return ctx.Error("num_scan_inputs " + std::to_string(m) + " invalid for " +
                     std::to_string(n_inputs) + " inputs");
  sp.n_scan_in = static_cast<size_t>(m);
  sp.n_state = n_inputs - sp.n_scan_in;
  if (body.inputs.size() != n_inputs)
    return ctx.Error("body takes " + std::to_string(body.inputs.size()) + " inputs, expected " +
                     std::to_string(n_inputs));
  if (body.outputs.size() < sp.n_state)
    return ctx.Error("body produces fewer outputs than there are states");
  sp.n_scan_out = body.outputs.size() - sp.n_state;
  if (ctx.num_outputs() > body.outputs.size())
    return ctx.Error("node has more outputs than the body");

  auto read = [&](const char* name, size_t count, std::vector<int64_t>* dst) -> Status {
    *dst = n.GetInts(name);
    if (dst->empty()) dst->assign(count, 0);
    if (dst->size() != count)
      return ctx.Error(std::string(name) + " has " + std::to_string(dst->size()) +
                       " entries, expected " + std::to_string(count));
    return Status::Ok();
  };
  if (opset8) {
    VT_RETURN_IF_ERROR(read("directions", sp.n_scan_in, &sp.in_dirs));
    sp.in_axes.assign(sp.n_scan_in, 0);
    sp.out_axes.assign(sp.n_scan_out, 0);
    sp.out_dirs.assign(sp.n_scan_out, 0);
  } else {
    VT_RETURN_IF_ERROR(read("scan_input_axes", sp.n_scan_in, &sp.in_axes));
    VT_RETURN_IF_ERROR(read("scan_input_directions", sp.n_scan_in, &sp.in_dirs));
    VT_RETURN_IF_ERROR(read("scan_output_axes", sp.n_scan_out, &sp.out_axes));
    VT_RETURN_IF_ERROR(read("scan_output_directions", sp.n_scan_out, &sp.out_dirs));
  }
  for (int64_t d : sp.in_dirs)
    if (d != 0 && d != 1) return ctx.Error("scan direction must be 0 or 1");
  for (int64_t d : sp.out_dirs)
    if (d != 0 && d != 1) return ctx.Error("scan output direction must be 0 or 1");
  return sp;
}

// Reverses the order of `v` when `reverse`, then stacks along a new axis 0 and moves it to
// `axis` (in [-(r+1), r] for slice rank r).
Expected<Tensor> AssembleScanOutput(KernelContext& ctx, const Graph& body, size_t body_out,
                                    std::vector<Tensor> v, bool reverse, int64_t axis) {
  if (reverse) std::reverse(v.begin(), v.end());
  DType dt;
  Shape es;
  DeclaredOutputType(body, body_out, &dt, &es);
  auto st = StackTensors(v, dt, es);
  if (!st.ok()) return ctx.Annotate(st.take_status());
  Tensor out = std::move(st).value();
  auto ax = NormalizeAxis(axis, out.rank());
  if (!ax.ok()) return ctx.Annotate(ax.take_status().WithContext("scan_output_axes"));
  return MoveLeadingAxis(out, static_cast<int>(*ax));
}

Status Scan9Compute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Graph* body, RequireGraphAttr(ctx, "body"));
  VT_ASSIGN_OR_RETURN(ScanSpec sp, ReadScanSpec(ctx, *body, ctx.num_inputs(), false));
  std::vector<Value> states(sp.n_state);
  for (size_t k = 0; k < sp.n_state; ++k) {
    const Value* v = ctx.input_value(k);
    if (v == nullptr) return ctx.Error("state input " + std::to_string(k) + " is absent");
    states[k] = *v;
  }
  std::vector<Tensor> scan_in(sp.n_scan_in);
  int64_t length = -1;
  for (size_t j = 0; j < sp.n_scan_in; ++j) {
    VT_ASSIGN_OR_RETURN(scan_in[j], ctx.RequireTensor(sp.n_state + j));
    auto ax = NormalizeAxis(sp.in_axes[j], scan_in[j].rank());
    if (!ax.ok() || scan_in[j].rank() == 0)
      return ctx.Error("scan_input_axes[" + std::to_string(j) + "] = " +
                       std::to_string(sp.in_axes[j]) + " invalid for rank " +
                       std::to_string(scan_in[j].rank()));
    sp.in_axes[j] = *ax;
    int64_t len = scan_in[j].dim(static_cast<int>(*ax));
    if (length >= 0 && len != length)
      return ctx.Error("scan inputs disagree on sequence length: " + std::to_string(length) +
                       " vs " + std::to_string(len));
    length = len;
  }
  std::vector<std::vector<Tensor>> slices(sp.n_scan_out);
  VT_RETURN_IF_ERROR(RunScan(ctx, *body, sp, &states, scan_in, length, &slices));
  for (size_t k = 0; k < sp.n_state && k < ctx.num_outputs(); ++k)
    ctx.SetOutput(k, std::move(states[k]));
  for (size_t k = 0; k < sp.n_scan_out && sp.n_state + k < ctx.num_outputs(); ++k) {
    VT_ASSIGN_OR_RETURN(Tensor out, AssembleScanOutput(ctx, *body, sp.n_state + k,
                                                       std::move(slices[k]), sp.out_dirs[k] != 0,
                                                       sp.out_axes[k]));
    ctx.SetOutput(sp.n_state + k, std::move(out));
  }
  return Status::Ok();
}

Status Scan8Compute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Graph* body, RequireGraphAttr(ctx, "body"));
  if (ctx.num_inputs() < 2) return ctx.Error("Scan-8 needs sequence_lens and at least one input");
  VT_ASSIGN_OR_RETURN(ScanSpec sp, ReadScanSpec(ctx, *body, ctx.num_inputs() - 1, true));
  // Every input has a leading batch axis; the sequence axis of scan inputs is 1.
  int64_t batch = -1;
  std::vector<Value> inputs(ctx.num_inputs() - 1);
  for (size_t k = 0; k < inputs.size(); ++k) {
    VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(k + 1));
    const int min_rank = k < sp.n_state ? 1 : 2;
    if (t.rank() < min_rank) return ctx.Error("input " + std::to_string(k + 1) + " rank too small");
    if (batch >= 0 && t.dim(0) != batch) return ctx.Error("inputs disagree on batch size");
    batch = t.dim(0);
    inputs[k] = Value(t);
  }
  int64_t max_len = -1;
  for (size_t j = 0; j < sp.n_scan_in; ++j) {
    int64_t len = inputs[sp.n_state + j].tensor().dim(1);
    if (max_len >= 0 && len != max_len) return ctx.Error("scan inputs disagree on sequence length");
    max_len = len;
  }
  std::vector<int64_t> lens(static_cast<size_t>(batch), max_len);
  if (ctx.has_input(0) && !ctx.input_value(0)->is_none()) {
    VT_ASSIGN_OR_RETURN(Tensor sl, ctx.RequireTensor(0));
    if (sl.numel() != batch) return ctx.Error("sequence_lens must have one entry per batch");
    lens = ToInt64Vector(sl);
    for (int64_t l : lens)
      if (l < 0 || l > max_len)
        return ctx.Error("sequence_lens entry " + std::to_string(l) + " outside [0, " +
                         std::to_string(max_len) + "]");
  }
  std::vector<std::vector<Tensor>> final_states(sp.n_state);
  std::vector<std::vector<Tensor>> outs_per_batch(sp.n_scan_out);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Value> states(sp.n_state);
    for (size_t k = 0; k < sp.n_state; ++k)
      states[k] = Value(SelectAlongAxis(inputs[k].tensor(), 0, b).Contiguous());
    std::vector<Tensor> scan_in(sp.n_scan_in);
    for (size_t j = 0; j < sp.n_scan_in; ++j) {
      // Only the first lens[b] steps take part, in either direction.
      Tensor seq = SelectAlongAxis(inputs[sp.n_state + j].tensor(), 0, b);
      scan_in[j] = NarrowAlongAxis(seq, 0, 0, lens[static_cast<size_t>(b)]);
    }
    std::vector<std::vector<Tensor>> slices(sp.n_scan_out);
    VT_RETURN_IF_ERROR(
        RunScan(ctx, *body, sp, &states, scan_in, lens[static_cast<size_t>(b)], &slices));
    for (size_t k = 0; k < sp.n_state; ++k) {
      if (!states[k].is_tensor()) return ctx.Error("Scan-8 states must be tensors");
      final_states[k].push_back(states[k].tensor());
    }
    for (size_t k = 0; k < sp.n_scan_out; ++k) {
      // Steps past sequence_lens[b] are zero (ONNX Runtime's behaviour; the spec leaves
      // them unspecified).
      DType dt;
      Shape es;
      DeclaredOutputType(*body, sp.n_state + k, &dt, &es);
      if (!slices[k].empty()) {
        dt = slices[k][0].dtype();
        es = slices[k][0].shape();
      }
      while (static_cast<int64_t>(slices[k].size()) < max_len)
        slices[k].push_back(Tensor::Zeros(dt, es));
      auto st = StackTensors(slices[k], dt, es);
      if (!st.ok()) return ctx.Annotate(st.take_status());
      outs_per_batch[k].push_back(std::move(st).value());
    }
  }
  for (size_t k = 0; k < sp.n_state && k < ctx.num_outputs(); ++k) {
    auto st = StackTensors(final_states[k], inputs[k].tensor().dtype(),
                           Shape(inputs[k].tensor().shape().begin() + 1,
                                 inputs[k].tensor().shape().end()));
    if (!st.ok()) return ctx.Annotate(st.take_status());
    ctx.SetOutput(k, std::move(st).value());
  }
  for (size_t k = 0; k < sp.n_scan_out && sp.n_state + k < ctx.num_outputs(); ++k) {
    DType dt;
    Shape es;
    DeclaredOutputType(*body, sp.n_state + k, &dt, &es);
    es.insert(es.begin(), max_len);
    auto st = StackTensors(outs_per_batch[k], dt, es);
    if (!st.ok()) return ctx.Annotate(st.take_status());
    ctx.SetOutput(sp.n_state + k, std::move(st).value());
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "If", 1, kMaxOpset, IfCompute);
VT_REGISTER_OP("", "Loop", 1, kMaxOpset, LoopCompute);
VT_REGISTER_OP("", "Scan", 8, 8, Scan8Compute);
VT_REGISTER_OP("", "Scan", 9, kMaxOpset, Scan9Compute);

}  // namespace
}  // namespace vt::ops
