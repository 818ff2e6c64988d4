// Sequence operators (ONNX Operators.md "SequenceEmpty", "SequenceConstruct", "SequenceInsert",
// "SequenceAt", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
// "SequenceMap"). A sequence is a Value of kind kSequence holding tensors of one dtype.
#include <algorithm>
#include <cstring>

#include "ops/common/op_util.h"
#include "ops/common/stack.h"

namespace vt::ops {
namespace {

// The sequence input `i`. Errors: absent or not a sequence.
Expected<const Value*> RequireSequence(KernelContext& ctx, size_t i) {
  const Value* v = ctx.input_value(i);
  if (v == nullptr || !v->is_sequence())
    return ctx.Error("input " + std::to_string(i) + " must be a sequence");
  return v;
}

// Reads the optional scalar position input `i`, normalised against `size`. Valid positions
// are [-size, size - 1], or [-size, size] when `allow_end` (insertion).
// Errors: not a one-element integer tensor, out of range.
Expected<int64_t> ReadPosition(KernelContext& ctx, size_t i, int64_t size, bool allow_end,
                               int64_t def) {
  if (!ctx.has_input(i) || ctx.input_value(i)->is_none()) return def;
  VT_ASSIGN_OR_RETURN(Tensor p, ctx.RequireTensor(i));
  if (p.numel() != 1 || (p.dtype() != DType::kInt64 && p.dtype() != DType::kInt32))
    return ctx.Error("position must be a one-element int32/int64 tensor");
  int64_t pos = p.GetInt64(0);
  const int64_t hi = allow_end ? size : size - 1;
  if (pos < -size || pos > hi)
    return ctx.Error("position " + std::to_string(pos) + " out of range for a sequence of " +
                     std::to_string(size) + " tensors");
  return pos < 0 ? pos + size : pos;
}

Status SequenceEmptyCompute(KernelContext& ctx) {
  int64_t dt = ctx.node().GetInt("dtype", static_cast<int64_t>(DType::kFloat32));
  if (!IsKnownDType(static_cast<int32_t>(dt)) || dt == 0)
    return ctx.Error("unknown dtype " + std::to_string(dt));
  ctx.SetOutput(0, Value::Sequence(static_cast<DType>(dt), {}));
  return Status::Ok();
}

Status SequenceConstructCompute(KernelContext& ctx) {
  std::vector<Tensor> items;
  items.reserve(ctx.num_inputs());
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
    if (!items.empty() && t.dtype() != items[0].dtype())
      return ctx.Error("input " + std::to_string(i) + " has dtype " + DTypeName(t.dtype()) +
                       ", input 0 has " + DTypeName(items[0].dtype()));
    items.push_back(std::move(t));
  }
  if (items.empty()) return ctx.Error("SequenceConstruct needs at least one input");
  DType dt = items[0].dtype();
  ctx.SetOutput(0, Value::Sequence(dt, std::move(items)));
  return Status::Ok();
}

Status SequenceInsertCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Value* seq, RequireSequence(ctx, 0));
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(1));
  DType dt = seq->elem_type();
  if (dt != DType::kUndefined && t.dtype() != dt)
    return ctx.Error("tensor dtype " + std::string(DTypeName(t.dtype())) +
                     " differs from sequence element type " + DTypeName(dt));
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  VT_ASSIGN_OR_RETURN(int64_t pos, ReadPosition(ctx, 2, n, true, n));
  std::vector<Tensor> items = seq->sequence();
  items.insert(items.begin() + pos, std::move(t));
  DType out_dt = items.front().dtype();
  ctx.SetOutput(0, Value::Sequence(out_dt, std::move(items)));
  return Status::Ok();
}

Status SequenceAtCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Value* seq, RequireSequence(ctx, 0));
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  if (!ctx.has_input(1)) return ctx.Error("position is required");
  if (n == 0) return ctx.Error("SequenceAt on an empty sequence");
  VT_ASSIGN_OR_RETURN(int64_t pos, ReadPosition(ctx, 1, n, false, 0));
  ctx.SetOutput(0, Value(seq->sequence()[static_cast<size_t>(pos)]));
  return Status::Ok();
}

Status SequenceEraseCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Value* seq, RequireSequence(ctx, 0));
  const int64_t n = static_cast<int64_t>(seq->sequence().size());
  if (n == 0) return ctx.Error("SequenceErase on an empty sequence");
  VT_ASSIGN_OR_RETURN(int64_t pos, ReadPosition(ctx, 1, n, false, n - 1));
  std::vector<Tensor> items = seq->sequence();
  items.erase(items.begin() + pos);
  ctx.SetOutput(0, Value::Sequence(seq->elem_type(), std::move(items)));
  return Status::Ok();
}

Status SequenceLengthCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Value* seq, RequireSequence(ctx, 0));
  ctx.SetOutput(0, Value(Tensor::ScalarI64(static_cast<int64_t>(seq->sequence().size()))));
  return Status::Ok();
}

// SplitToSequence (opset 11): split absent -> pieces of 1 along axis (squeezed unless
// keepdims); scalar split -> equal pieces of that size, the last one smaller; 1-D split ->
// given sizes, which must add up to the axis length.
Status SplitToSequenceCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor in, ctx.RequireTensor(0));
  if (in.rank() == 0) return ctx.Error("input must have rank >= 1");
  auto ax = NormalizeAxis(ctx.node().GetInt("axis", 0), in.rank());
  if (!ax.ok()) return ctx.Annotate(ax.take_status());
  const int axis = static_cast<int>(*ax);
  const int64_t len = in.dim(axis);
  std::vector<Tensor> items;
  if (!ctx.has_input(1) || ctx.input_value(1)->is_none()) {
    const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
    for (int64_t i = 0; i < len; ++i) {
      Tensor piece = keepdims ? NarrowAlongAxis(in, axis, i, 1) : SelectAlongAxis(in, axis, i);
      items.push_back(piece.Contiguous());
    }
  } else {
    VT_ASSIGN_OR_RETURN(Tensor split, ctx.RequireTensor(1));
    if (!IsIntegerDType(split.dtype()) || split.rank() > 1)
      return ctx.Error("split must be an integer scalar or 1-D tensor");
    std::vector<int64_t> sizes;
    if (split.rank() == 0) {
      int64_t s = split.GetInt64(0);
      if (s <= 0) return ctx.Error("split size must be positive, got " + std::to_string(s));
      for (int64_t done = 0; done < len; done += s) sizes.push_back(std::min(s, len - done));
    } else {
      sizes = ToInt64Vector(split);
      int64_t sum = 0;
      for (int64_t s : sizes) {
        if (s < 0) return ctx.Error("negative split size " + std::to_string(s));
        sum += s;
        if (sum > len) break;
      }
      if (sum != len)
        return ctx.Error("split sizes add up to " + std::to_string(sum) + ", axis length is " +
                         std::to_string(len));
    }
    int64_t start = 0;
    for (int64_t s : sizes) {
      items.push_back(NarrowAlongAxis(in, axis, start, s).Contiguous());
      start += s;
    }
  }
  ctx.SetOutput(0, Value::Sequence(in.dtype(), std::move(items)));
  return Status::Ok();
}

// ConcatFromSequence (opset 11): concatenates along `axis`, or stacks on a new axis when
// new_axis = 1 (then axis may be in [-r-1, r]).
Status ConcatFromSequenceCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(const Value* seq, RequireSequence(ctx, 0));
  const auto& items = seq->sequence();
  if (items.empty()) return ctx.Error("cannot concatenate an empty sequence");
  const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
  const Attribute* axis_attr = ctx.node().FindAttr("axis");
  if (axis_attr == nullptr) return ctx.Error("attribute 'axis' is required");
  const int r = items[0].rank();
  auto ax = NormalizeAxis(axis_attr->i, new_axis ? r + 1 : r);
  if (!ax.ok() || (!new_axis && r == 0)) return ctx.Error("axis " + std::to_string(axis_attr->i) +
                                                          " out of range for rank " +
                                                          std::to_string(r));
  const int axis = static_cast<int>(*ax);
  if (new_axis) {
    auto st = StackTensors(items, items[0].dtype(), items[0].shape());
    if (!st.ok()) return ctx.Annotate(st.take_status());
    ctx.SetOutput(0, Value(MoveLeadingAxis(*st, axis)));
    return Status::Ok();
  }
  Shape out_shape = items[0].shape();
  out_shape[static_cast<size_t>(axis)] = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const Tensor& t = items[k];
    bool ok = t.dtype() == items[0].dtype() && t.rank() == r;
    for (int d = 0; ok && d < r; ++d) ok = d == axis || t.dim(d) == items[0].dim(d);
    if (!ok)
      return ctx.Error("tensor " + std::to_string(k) + " (" + DTypeName(t.dtype()) +
                       ShapeToString(t.shape()) + ") does not match tensor 0 (" +
                       DTypeName(items[0].dtype()) + ShapeToString(items[0].shape()) +
                       ") outside axis " + std::to_string(axis));
    out_shape[static_cast<size_t>(axis)] += t.dim(axis);
  }
  const DType dt = items[0].dtype();
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape[static_cast<size_t>(d)];
  const size_t esize = DTypeSize(dt);
  const int64_t out_row = NumElements(out_shape) / std::max<int64_t>(outer, 1);
  auto* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  int64_t col = 0;  // elements of one output row already filled by earlier tensors
  for (const Tensor& t0 : items) {
    Tensor t = t0.Contiguous();
    const int64_t row = outer == 0 ? 0 : t.numel() / outer;
    const auto* src = static_cast<const uint8_t*>(t.raw_data());
    for (int64_t o = 0; o < outer; ++o) {
      if (dt == DType::kString) {
        const auto* s = reinterpret_cast<const std::string*>(src) + o * row;
        auto* d = reinterpret_cast<std::string*>(dst) + o * out_row + col;
        for (int64_t e = 0; e < row; ++e) d[e] = s[e];
      } else if (row > 0) {
        std::memcpy(dst + static_cast<size_t>(o * out_row + col) * esize,
                    src + static_cast<size_t>(o * row) * esize, static_cast<size_t>(row) * esize);
      }
    }
    col += row;
  }
  return Status::Ok();
}

// SequenceMap (opset 17): runs `body` once per element of the first sequence. Further inputs
// that are sequences are indexed alongside (same length required); tensors are passed whole.
// Each body output becomes one output sequence.
Status SequenceMapCompute(KernelContext& ctx) {
  const Attribute* a = ctx.node().FindAttr("body");
  if (a == nullptr || !a->g) return ctx.Error("missing graph attribute 'body'");
  const Graph& body = *a->g;
  VT_ASSIGN_OR_RETURN(const Value* first, RequireSequence(ctx, 0));
  const size_t n = first->sequence().size();
  if (body.inputs.size() != ctx.num_inputs())
    return ctx.Error("body takes " + std::to_string(body.inputs.size()) + " inputs, node has " +
                     std::to_string(ctx.num_inputs()));
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const Value* v = ctx.input_value(i);
    if (v == nullptr || v->is_none()) return ctx.Error("input " + std::to_string(i) + " is absent");
    if (v->is_sequence() && v->sequence().size() != n)
      return ctx.Error("sequence input " + std::to_string(i) + " has " +
                       std::to_string(v->sequence().size()) + " elements, input 0 has " +
                       std::to_string(n));
  }
  const size_t n_out = ctx.num_outputs();
  std::vector<std::vector<Tensor>> results(n_out);
  std::vector<Value> body_in(ctx.num_inputs());
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      body_in[i] = v->is_sequence() ? Value(v->sequence()[k]) : *v;
    }
    VT_ASSIGN_OR_RETURN(std::vector<Value> outs, ctx.RunSubgraph(body, body_in));
    if (outs.size() < n_out) return ctx.Error("body returned too few outputs");
    for (size_t o = 0; o < n_out; ++o) {
      if (!outs[o].is_tensor()) return ctx.Error("body output " + std::to_string(o) + " must be a tensor");
      results[o].push_back(std::move(outs[o].tensor()));
    }
  }
  for (size_t o = 0; o < n_out; ++o) {
    DType dt = o < body.outputs.size() ? body.outputs[o].spec.dtype() : DType::kUndefined;
    if (!results[o].empty()) dt = results[o][0].dtype();
    if (dt == DType::kUndefined) dt = DType::kFloat32;
    ctx.SetOutput(o, Value::Sequence(dt, std::move(results[o])));
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "SequenceEmpty", 11, kMaxOpset, SequenceEmptyCompute);
VT_REGISTER_OP("", "SequenceConstruct", 11, kMaxOpset, SequenceConstructCompute);
VT_REGISTER_OP("", "SequenceInsert", 11, kMaxOpset, SequenceInsertCompute);
VT_REGISTER_OP("", "SequenceAt", 11, kMaxOpset, SequenceAtCompute);
VT_REGISTER_OP("", "SequenceErase", 11, kMaxOpset, SequenceEraseCompute);
VT_REGISTER_OP("", "SequenceLength", 11, kMaxOpset, SequenceLengthCompute);
VT_REGISTER_OP("", "SplitToSequence", 11, kMaxOpset, SplitToSequenceCompute);
VT_REGISTER_OP("", "ConcatFromSequence", 11, kMaxOpset, ConcatFromSequenceCompute);
VT_REGISTER_OP("", "SequenceMap", 17, kMaxOpset, SequenceMapCompute);

}  // namespace
}  // namespace vt::ops
