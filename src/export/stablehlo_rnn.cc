// LSTM -> StableHLO by unrolling over the static sequence length (ONNX LSTM, gates i, o, f, c;
// default activations Sigmoid / Tanh / Tanh; forward, reverse or bidirectional). The input
// projection of all steps is one dot_general; each step adds the recurrent projection.
#include "export/stablehlo_emitter.h"

namespace vt::hlo {

namespace {

constexpr int64_t kMaxUnroll = 4096;

Val SliceDim(Emitter& e, const Val& v, size_t dim, int64_t start, int64_t len) {
  std::vector<int64_t> b(v.shape.size(), 0), l(v.shape.begin(), v.shape.end()), s(v.shape.size(), 1);
  b[dim] = start;
  l[dim] = start + len;
  return e.Slice(v, b, l, s);
}

Status LstmOp(NodeContext& cx) {
  const Node& n = cx.node();
  if (n.GetInt("layout", 0) != 0) return cx.Unsupported("layout = 1");
  if (n.GetInt("input_forget", 0) != 0) return cx.Unsupported("input_forget = 1");
  if (n.FindAttr("clip") != nullptr) return cx.Unsupported("clip");
  if (cx.has_input(7)) return cx.Unsupported("peephole weights (input P)");
  const std::vector<std::string> acts = n.GetStrings("activations");
  for (size_t i = 0; i < acts.size(); ++i) {
    const char* want = i % 3 == 0 ? "Sigmoid" : "Tanh";
    if (acts[i] != want) return cx.Unsupported("activation " + acts[i]);
  }
  VT_ASSIGN_OR_RETURN(Val x, cx.In(0));
  VT_ASSIGN_OR_RETURN(Val w, cx.In(1));
  VT_ASSIGN_OR_RETURN(Val rw, cx.In(2));
  if (x.shape.size() != 3 || w.shape.size() != 3 || rw.shape.size() != 3)
    return cx.Error("X, W and R must have rank 3");
  // Only the batch may be dynamic: the sequence is unrolled and the sizes shape the weights.
  VT_RETURN_IF_ERROR(cx.RequireStatic(0, x, {0, 2}, "unrolling the sequence"));
  const int64_t seq = x.shape[0], batch = x.shape[1], in = x.shape[2];
  const int64_t dirs = w.shape[0], H = rw.shape[2];
  if (seq > kMaxUnroll) return cx.Unsupported("sequence length " + std::to_string(seq) + " > 4096");
  if (cx.has_input(4)) {
    const Tensor* lens = cx.Const(4);
    if (lens == nullptr) return cx.Unsupported("non-constant sequence_lens");
    for (int64_t i = 0; i < lens->numel(); ++i)
      if (lens->GetInt64(i) != seq) return cx.Unsupported("sequence_lens shorter than the sequence");
  }
  const std::string direction = n.GetString("direction", "forward");
  Emitter& e = cx.e();
  const DType dt = x.dtype;
  std::vector<Val> ys, hs, cs;
  for (int64_t d = 0; d < dirs; ++d) {
    const bool reverse = direction == "reverse" || (direction == "bidirectional" && d == 1);
    Val wd = e.Reshape(SliceDim(e, w, 0, d, 1), {4 * H, in});
    Val rd = e.Reshape(SliceDim(e, rw, 0, d, 1), {4 * H, H});
    // Input projection of every step: [seq, batch, 4H].
    Val xw = e.DotGeneral(x, wd, {}, {}, {2}, {1}, {seq, batch, 4 * H});
    if (cx.has_input(3)) {
      VT_ASSIGN_OR_RETURN(Val b, cx.In(3));
      Val bd = e.Reshape(SliceDim(e, b, 0, d, 1), {8 * H});
      Val bias = e.Binary("stablehlo.add", SliceDim(e, bd, 0, 0, 4 * H), SliceDim(e, bd, 0, 4 * H, 4 * H));
      xw = e.Binary("stablehlo.add", xw, e.BroadcastInDim(bias, xw.shape, {2}));
    }
    Val h, c;
    if (cx.has_input(5)) {
      VT_ASSIGN_OR_RETURN(Val h0, cx.In(5));
      h = e.Reshape(SliceDim(e, h0, 0, d, 1), {batch, H});
    } else {
      h = e.Splat(0, dt, {batch, H});
    }
    if (cx.has_input(6)) {
      VT_ASSIGN_OR_RETURN(Val c0, cx.In(6));
      c = e.Reshape(SliceDim(e, c0, 0, d, 1), {batch, H});
    } else {
      c = e.Splat(0, dt, {batch, H});
    }
    std::vector<Val> steps(static_cast<size_t>(seq));
    for (int64_t k = 0; k < seq; ++k) {
      const int64_t t = reverse ? seq - 1 - k : k;
      Val g = e.Reshape(SliceDim(e, xw, 0, t, 1), {batch, 4 * H});
      g = e.Binary("stablehlo.add", g, e.DotGeneral(h, rd, {}, {}, {1}, {1}, {batch, 4 * H}));
      Val ig = e.Unary("stablehlo.logistic", SliceDim(e, g, 1, 0, H));
      Val og = e.Unary("stablehlo.logistic", SliceDim(e, g, 1, H, H));
      Val fg = e.Unary("stablehlo.logistic", SliceDim(e, g, 1, 2 * H, H));
      Val cg = e.Unary("stablehlo.tanh", SliceDim(e, g, 1, 3 * H, H));
      c = e.Binary("stablehlo.add", e.Binary("stablehlo.multiply", fg, c), e.Binary("stablehlo.multiply", ig, cg));
      h = e.Binary("stablehlo.multiply", og, e.Unary("stablehlo.tanh", c));
      steps[static_cast<size_t>(t)] = e.Reshape(h, {1, 1, batch, H});
    }
    if (seq > 0) ys.push_back(e.Concat(steps, 0));
    hs.push_back(e.Reshape(h, {1, batch, H}));
    cs.push_back(e.Reshape(c, {1, batch, H}));
  }
  if (!n.outputs.empty() && !n.outputs[0].empty()) {
    if (seq == 0) return cx.Unsupported("empty sequence");
    cx.Set(0, e.Concat(ys, 1));
  }
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) cx.Set(1, e.Concat(hs, 0));
  if (n.outputs.size() > 2 && !n.outputs[2].empty()) cx.Set(2, e.Concat(cs, 0));
  return Status::Ok();
}

}  // namespace

void AddRnnConverters(std::map<std::string, Converter>& m) { m["LSTM"] = LstmOp; }

}  // namespace vt::hlo
