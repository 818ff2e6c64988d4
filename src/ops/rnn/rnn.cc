// RNN, GRU, LSTM (ONNX Operators.md "RNN", "GRU", "LSTM"; opsets 1/3/7/14).
//
// Inputs: X [seq, batch, input] (layout 1: [batch, seq, input]), W [dirs, G*hidden, input],
// R [dirs, G*hidden, hidden], B [dirs, 2*G*hidden]?, sequence_lens [batch]?,
// initial_h [dirs, batch, hidden]? (layout 1: [batch, dirs, hidden]), LSTM: initial_c?,
// P [dirs, 3*hidden]? (peepholes i, o, f). G = 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c).
// Outputs: Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]), Y_h, LSTM Y_c
// shaped like initial_h. Steps past sequence_lens[b] leave zeros in Y and do not change the
// state; the reverse direction of batch b starts at step sequence_lens[b] - 1.
//
// The input projection X·W^T of all steps is one GEMM before the recurrence; each step then
// needs one small GEMM (batch x G*hidden) against R and elementwise gate math. No allocation
// happens inside the step loop: each thread keeps its scratch buffers between runs.
#include <algorithm>
#include <cstring>

#include "ops/common/op_util.h"
#include "ops/rnn/rnn_kernels.h"
#include "vtensor/exec/kernel_description.h"
#include "vtensor/forms/weight_provider.h"
#include "vtensor/graph/node_status.h"

namespace vt::ops {
namespace {

enum class CellKind { kRnn, kGru, kLstm };

struct RnnConfig {
  CellKind kind = CellKind::kRnn;
  int gates = 1;           // G
  int acts_per_dir = 1;    // f (RNN); f, g (GRU); f, g, h (LSTM)
  int64_t hidden = -1;     // -1: infer from R
  int num_dirs = 1;
  bool reverse = false;    // direction == "reverse"
  bool has_clip = false;
  float clip = 0;
  int64_t layout = 0;
  bool linear_before_reset = false;
  bool input_forget = false;
  std::vector<rnn::Activation> acts;  // acts_per_dir per direction
  const rnn::F32Rows* rows = &rnn::F32RowsFor(true);  // the session level's float rows
};

Expected<RnnConfig> ReadConfig(const Node& node, CellKind kind) {
  RnnConfig c;
  c.kind = kind;
  c.gates = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
  c.acts_per_dir = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 2 : 3;
  auto err = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), node); };
  if (const Attribute* h = node.FindAttr("hidden_size")) {
    if (h->i <= 0) return err("hidden_size must be positive, got " + std::to_string(h->i));
    c.hidden = h->i;
  }
  const std::string dir = node.GetString("direction", "forward");
  if (dir == "forward") {
    c.num_dirs = 1;
  } else if (dir == "reverse") {
    c.reverse = true;
  } else if (dir == "bidirectional") {
    c.num_dirs = 2;
  } else {
    return err("unknown direction '" + dir + "'");
  }
  if (const Attribute* cl = node.FindAttr("clip")) {
    if (!(cl->f > 0)) return err("clip must be positive");
    c.has_clip = true;
    c.clip = cl->f;
  }
  c.layout = node.GetInt("layout", 0);
  if (c.layout != 0 && c.layout != 1) return err("layout must be 0 or 1");
  c.linear_before_reset = node.GetInt("linear_before_reset", 0) != 0;
  c.input_forget = node.GetInt("input_forget", 0) != 0;

  std::vector<std::string> names = node.GetStrings("activations");
  if (names.empty()) {
    std::vector<std::string> def = kind == CellKind::kRnn   ? std::vector<std::string>{"Tanh"}
                                   : kind == CellKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int d = 0; d < c.num_dirs; ++d) names.insert(names.end(), def.begin(), def.end());
  } else if (names.size() == static_cast<size_t>(c.acts_per_dir) && c.num_dirs == 2) {
    // Some exporters list one direction's functions for both directions.
    names.insert(names.end(), names.begin(), names.end());
  }
  if (names.size() != static_cast<size_t>(c.acts_per_dir) * static_cast<size_t>(c.num_dirs))
    return err("expected " + std::to_string(c.acts_per_dir * c.num_dirs) + " activations, got " +
               std::to_string(names.size()));
  const std::vector<float> alphas = node.GetFloats("activation_alpha");
  const std::vector<float> betas = node.GetFloats("activation_beta");
  size_t na = 0, nb = 0;
  for (const auto& n : names) {
    auto a = rnn::MakeActivation(n, alphas.data(), alphas.size(), &na, betas.data(), betas.size(),
                                 &nb);
    if (!a.ok()) return AnnotateNode(a.take_status(), node);
    c.acts.push_back(*a);
  }
  return c;
}

template <typename T>
void ClipInPlace(T* x, int64_t n, T lim) {
  for (int64_t i = 0; i < n; ++i) x[i] = std::min(lim, std::max(-lim, x[i]));
}

// Optional input i as a contiguous tensor of `dt` and `shape`, or an undefined tensor when
// absent. Errors: wrong dtype or shape.
Expected<Tensor> OptionalInput(KernelContext& ctx, size_t i, const char* name, DType dt,
                               const Shape& shape) {
  if (!ctx.has_input(i) || ctx.input_value(i)->is_none()) return Tensor();
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.dtype() != dt)
    return ctx.Error(std::string(name) + " has dtype " + DTypeName(t.dtype()) + ", X has " +
                     DTypeName(dt));
  if (t.shape() != shape)
    return ctx.Error(std::string(name) + " has shape " + ShapeToString(t.shape()) +
                     ", expected " + ShapeToString(shape));
  return t.Contiguous();
}

// One call's inputs, checked against each other (contiguous, all of X's dtype).
struct RnnInputs {
  Tensor x, w, r, b, h0, c0, p;  // b, h0, c0, p undefined when absent
  int64_t seq = 0, batch = 0, in = 0, H = 0;
  Shape state_shape;          // of initial_h / Y_h / Y_c
  std::vector<int64_t> lens;  // per batch; seq without sequence_lens
  bool padded = false;        // some lens < seq
};

// Errors: InvalidArgument naming the node for every rank, shape, dtype or length mismatch.
Expected<RnnInputs> ReadInputs(KernelContext& ctx, const RnnConfig& c) {
  RnnInputs in;
  const int64_t G = c.gates, D = c.num_dirs;
  const DType dt = ctx.input(0).dtype();
  in.x = ctx.input(0).Contiguous();
  const Tensor& x = in.x;
  if (x.rank() != 3) return ctx.Error("X must have rank 3, got " + ShapeToString(x.shape()));
  in.seq = c.layout == 0 ? x.dim(0) : x.dim(1);
  in.batch = c.layout == 0 ? x.dim(1) : x.dim(0);
  in.in = x.dim(2);
  VT_ASSIGN_OR_RETURN(Tensor r, ctx.RequireTensor(2));
  if (r.rank() != 3) return ctx.Error("R must have rank 3, got " + ShapeToString(r.shape()));
  in.H = c.hidden > 0 ? c.hidden : r.dim(2);
  const int64_t H = in.H;
  if (H <= 0) return ctx.Error("hidden size must be positive");
  VT_ASSIGN_OR_RETURN(in.w, OptionalInput(ctx, 1, "W", dt, {D, G * H, in.in}));
  if (!in.w.defined()) return ctx.Error("W is required");
  VT_ASSIGN_OR_RETURN(in.r, OptionalInput(ctx, 2, "R", dt, {D, G * H, H}));
  VT_ASSIGN_OR_RETURN(in.b, OptionalInput(ctx, 3, "B", dt, {D, 2 * G * H}));
  in.state_shape = c.layout == 0 ? Shape{D, in.batch, H} : Shape{in.batch, D, H};
  VT_ASSIGN_OR_RETURN(in.h0, OptionalInput(ctx, 5, "initial_h", dt, in.state_shape));
  if (c.kind == CellKind::kLstm) {
    VT_ASSIGN_OR_RETURN(in.c0, OptionalInput(ctx, 6, "initial_c", dt, in.state_shape));
    VT_ASSIGN_OR_RETURN(in.p, OptionalInput(ctx, 7, "P", dt, {D, 3 * H}));
  }
  in.lens.assign(static_cast<size_t>(in.batch), in.seq);
  if (!ctx.has_input(4) || ctx.input_value(4)->is_none()) return in;
  VT_ASSIGN_OR_RETURN(Tensor sl, ctx.RequireTensor(4));
  if (!IsIntegerDType(sl.dtype()) || sl.numel() != in.batch)
    return ctx.Error("sequence_lens must be an integer tensor of " + std::to_string(in.batch) +
                     " elements, got " + DTypeName(sl.dtype()) + ShapeToString(sl.shape()));
  for (int64_t i = 0; i < in.batch; ++i) {
    const int64_t l = sl.GetInt64(i);
    if (l < 0 || l > in.seq)
      return ctx.Error("sequence_lens[" + std::to_string(i) + "] = " + std::to_string(l) +
                       " outside [0, " + std::to_string(in.seq) + "]");
    in.lens[static_cast<size_t>(i)] = l;
    in.padded |= l < in.seq;
  }
  return in;
}

// One run of the recurrence over all directions, in element type T. The scratch buffer is
// laid out once: xw [seq*batch, GH] | gates [batch, GH] | h [batch, H] | c [batch, H] |
// tmp [batch, H] | bias [GH] | rbh [H] | xt [seq*batch*in when layout 1].
template <typename T>
class RnnRun {
 public:
  RnnRun(const RnnConfig& c, const RnnInputs& in, std::vector<T>* buf)
      : c_(c), in_(in), H_(in.H), GH_(c.gates * in.H), batch_(in.batch) {
    const int64_t rows = in.seq * in.batch;
    const size_t need = static_cast<size_t>(rows * GH_ + batch_ * GH_ + 3 * batch_ * H_ + GH_ +
                                            H_ + (c.layout == 1 ? rows * in.in : 0));
    if (buf->size() < need) buf->resize(need);
    xw_ = buf->data();
    gates_ = xw_ + rows * GH_;
    hs_ = gates_ + batch_ * GH_;
    cs_ = hs_ + batch_ * H_;
    tmp_ = cs_ + batch_ * H_;
    bias_ = tmp_ + batch_ * H_;
    rbh_ = bias_ + GH_;
    xs_ = in.x.data<T>();
    if (c.layout == 1) xs_ = SequenceMajor(rbh_ + H_);
  }

  // Allocates the requested outputs and runs every direction.
  void Run(KernelContext& ctx) {
    const DType dt = in_.x.dtype();
    if (ctx.output_requested(0)) {
      const int64_t D = c_.num_dirs, seq = in_.seq;
      const Shape ys = c_.layout == 0 ? Shape{seq, D, batch_, H_} : Shape{batch_, seq, D, H_};
      y_ = ctx.AllocOutput(0, dt, ys);
      if (in_.padded) std::memset(y_.raw_mutable_data(), 0, y_.nbytes());
    }
    if (ctx.output_requested(1)) yh_ = ctx.AllocOutput(1, dt, in_.state_shape);
    if (c_.kind == CellKind::kLstm && ctx.output_requested(2))
      yc_ = ctx.AllocOutput(2, dt, in_.state_shape);
    for (int64_t d = 0; d < c_.num_dirs; ++d) RunDirection(d);
  }

 private:
  // X [batch, seq, in] (layout 1) copied to `xt` as [seq, batch, in].
  const T* SequenceMajor(T* xt) const {
    const int64_t seq = in_.seq, n = in_.in;
    const T* x = in_.x.data<T>();
    for (int64_t t = 0; t < seq; ++t)
      for (int64_t bi = 0; bi < batch_; ++bi)
        std::memcpy(xt + (t * batch_ + bi) * n, x + (bi * seq + t) * n,
                    static_cast<size_t>(n) * sizeof(T));
    return xt;
  }

  int64_t StateOffset(int64_t d, int64_t bi) const {
    return c_.layout == 0 ? (d * batch_ + bi) * H_ : (bi * c_.num_dirs + d) * H_;
  }
  T* YAt(int64_t t, int64_t d, int64_t bi) {
    const int64_t D = c_.num_dirs;
    const int64_t off = c_.layout == 0 ? ((t * D + d) * batch_ + bi) * H_
                                       : ((bi * in_.seq + t) * D + d) * H_;
    return y_.mutable_data<T>() + off;
  }
  bool LinearGru() const { return c_.kind == CellKind::kGru && !c_.linear_before_reset; }

  void RunDirection(int64_t d) {
    rd_ = in_.r.data<T>() + d * GH_ * H_;
    act_ = &c_.acts[static_cast<size_t>(d * c_.acts_per_dir)];
    pi_ = in_.p.defined() ? in_.p.data<T>() + d * 3 * H_ : nullptr;
    FoldBiases(d);
    ProjectInputs(d);
    LoadInitialState(d);
    const bool rev = c_.reverse || d == 1;
    for (int64_t s = 0; s < in_.seq; ++s) Step(s, rev, d);
    StoreFinalState(d);
  }

  // Biases folded into the input projection. GRU with linear_before_reset keeps the recurrent
  // bias of the h gate apart (rbh): it is multiplied by r.
  void FoldBiases(int64_t d) {
    std::fill(bias_, bias_ + GH_, T(0));
    std::fill(rbh_, rbh_ + H_, T(0));
    if (!in_.b.defined()) return;
    const T* wb = in_.b.data<T>() + d * 2 * GH_;
    const T* rb = wb + GH_;
#pragma omp simd
    for (int64_t k = 0; k < GH_; ++k) bias_[k] = wb[k] + rb[k];
    if (c_.kind == CellKind::kGru && c_.linear_before_reset)
      for (int64_t k = 0; k < H_; ++k) {
        bias_[2 * H_ + k] = wb[2 * H_ + k];
        rbh_[k] = rb[2 * H_ + k];
      }
  }

  // xw = X W^T + bias for every step at once.
  void ProjectInputs(int64_t d) {
    const int64_t rows = in_.seq * batch_, n = in_.in;
    const T* wd = in_.w.data<T>() + d * GH_ * n;
    if (rows > 0) rnn::GemmNT(*c_.rows, rows, GH_, n, xs_, n, wd, n, xw_, GH_, false);
    for (int64_t row = 0; row < rows; ++row) {
      T* g = xw_ + row * GH_;
#pragma omp simd
      for (int64_t k = 0; k < GH_; ++k) g[k] += bias_[k];
    }
  }

  void LoadInitialState(int64_t d) {
    for (int64_t bi = 0; bi < batch_; ++bi) {
      T* h = hs_ + bi * H_;
      T* cc = cs_ + bi * H_;
      if (in_.h0.defined()) std::memcpy(h, in_.h0.data<T>() + StateOffset(d, bi), H_ * sizeof(T));
      else std::fill(h, h + H_, T(0));
      if (c_.kind != CellKind::kLstm) continue;
      if (in_.c0.defined()) std::memcpy(cc, in_.c0.data<T>() + StateOffset(d, bi), H_ * sizeof(T));
      else std::fill(cc, cc + H_, T(0));
    }
  }

  // Step s of every batch row: the recurrent projection of all rows, then each row's cell.
  void Step(int64_t s, bool rev, int64_t d) {
    // GRU without linear_before_reset: z and r only; the h gate needs r first.
    const int64_t n_rec = LinearGru() ? 2 * H_ : GH_;
    rnn::GemmNT(*c_.rows, batch_, n_rec, H_, hs_, H_, rd_, H_, gates_, GH_, false);
    if (LinearGru()) GruResetProjection(s, rev);
    for (int64_t bi = 0; bi < batch_; ++bi) {
      const int64_t len = in_.lens[static_cast<size_t>(bi)];
      if (s >= len) continue;
      const int64_t t = rev ? len - 1 - s : s;
      const T* xg = xw_ + (t * batch_ + bi) * GH_;
      T* g = gates_ + bi * GH_;
      T* h = hs_ + bi * H_;
      switch (c_.kind) {
        case CellKind::kRnn: RnnCell(xg, g, h); break;
        case CellKind::kGru: GruCell(xg, g, h); break;
        case CellKind::kLstm: LstmCell(xg, g, h, cs_ + bi * H_, tmp_ + bi * H_); break;
      }
      if (y_.defined()) std::memcpy(YAt(t, d, bi), h, H_ * sizeof(T));
    }
  }

  // GRU without linear_before_reset: z, r of every row, then (r * h) Rh^T into the h-gate slot.
  void GruResetProjection(int64_t s, bool rev) {
    for (int64_t bi = 0; bi < batch_; ++bi) {
      const int64_t len = in_.lens[static_cast<size_t>(bi)];
      T* g = gates_ + bi * GH_;
      T* rh = tmp_ + bi * H_;
      if (s >= len) {
        std::fill(rh, rh + H_, T(0));
        continue;
      }
      const int64_t t = rev ? len - 1 - s : s;
      const T* xg = xw_ + (t * batch_ + bi) * GH_;
#pragma omp simd
      for (int64_t k = 0; k < 2 * H_; ++k) g[k] += xg[k];
      if (c_.has_clip) Clip(g, 2 * H_);
      rnn::Apply(*c_.rows, act_[0], g, 2 * H_);
      const T* h = hs_ + bi * H_;
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) rh[k] = g[H_ + k] * h[k];
    }
    rnn::GemmNT(*c_.rows, batch_, H_, H_, tmp_, H_, rd_ + 2 * H_ * H_, H_, gates_ + 2 * H_, GH_,
                false);
  }

  void Clip(T* x, int64_t n) const { ClipInPlace(x, n, static_cast<T>(c_.clip)); }

  // h = f(x W^T + h R^T + b).
  void RnnCell(const T* xg, T* g, T* h) {
#pragma omp simd
    for (int64_t k = 0; k < H_; ++k) g[k] += xg[k];
    if (c_.has_clip) Clip(g, H_);
    rnn::Apply(*c_.rows, act_[0], g, H_);
    std::memcpy(h, g, H_ * sizeof(T));
  }

  // z, r, h gates; h = (1 - z) * hh + z * h.
  void GruCell(const T* xg, T* g, T* h) {
    T* z = g;
    T* rr = g + H_;
    T* hh = g + 2 * H_;
    if (c_.linear_before_reset) {
#pragma omp simd
      for (int64_t k = 0; k < 2 * H_; ++k) g[k] += xg[k];
      if (c_.has_clip) Clip(g, 2 * H_);
      rnn::Apply(*c_.rows, act_[0], g, 2 * H_);
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) hh[k] = xg[2 * H_ + k] + rr[k] * (hh[k] + rbh_[k]);
    } else {
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) hh[k] += xg[2 * H_ + k];
    }
    if (c_.has_clip) Clip(hh, H_);
    rnn::Apply(*c_.rows, act_[1], hh, H_);
#pragma omp simd
    for (int64_t k = 0; k < H_; ++k) h[k] = (T(1) - z[k]) * hh[k] + z[k] * h[k];
  }

  // i, o, f, c gates with optional peepholes (P: i, o, f); cc is the cell state, th scratch.
  void LstmCell(const T* xg, T* g, T* h, T* cc, T* th) {
    T* gi = g;
    T* go = g + H_;
    T* gf = g + 2 * H_;
    T* gc = g + 3 * H_;
    const T* po = pi_ != nullptr ? pi_ + H_ : nullptr;
    const T* pf = pi_ != nullptr ? pi_ + 2 * H_ : nullptr;
#pragma omp simd
    for (int64_t k = 0; k < GH_; ++k) g[k] += xg[k];
    if (pi_ != nullptr) {
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) {
        gi[k] += pi_[k] * cc[k];
        gf[k] += pf[k] * cc[k];
      }
    }
    if (c_.has_clip) {
      Clip(gi, H_);
      Clip(gf, 2 * H_);  // f and c gates are adjacent
    }
    rnn::Apply(*c_.rows, act_[0], gi, H_);
    if (c_.input_forget) {
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) gf[k] = T(1) - gi[k];
    } else {
      rnn::Apply(*c_.rows, act_[0], gf, H_);
    }
    rnn::Apply(*c_.rows, act_[1], gc, H_);
#pragma omp simd
    for (int64_t k = 0; k < H_; ++k) cc[k] = gf[k] * cc[k] + gi[k] * gc[k];
    if (po != nullptr) {
#pragma omp simd
      for (int64_t k = 0; k < H_; ++k) go[k] += po[k] * cc[k];
    }
    if (c_.has_clip) Clip(go, H_);
    rnn::Apply(*c_.rows, act_[0], go, H_);
    std::memcpy(th, cc, H_ * sizeof(T));
    rnn::Apply(*c_.rows, act_[2], th, H_);
#pragma omp simd
    for (int64_t k = 0; k < H_; ++k) h[k] = go[k] * th[k];
  }

  void StoreFinalState(int64_t d) {
    for (int64_t bi = 0; bi < batch_; ++bi) {
      if (yh_.defined())
        std::memcpy(yh_.mutable_data<T>() + StateOffset(d, bi), hs_ + bi * H_, H_ * sizeof(T));
      if (yc_.defined())
        std::memcpy(yc_.mutable_data<T>() + StateOffset(d, bi), cs_ + bi * H_, H_ * sizeof(T));
    }
  }

  const RnnConfig& c_;
  const RnnInputs& in_;
  const int64_t H_, GH_, batch_;
  T *xw_, *gates_, *hs_, *cs_, *tmp_, *bias_, *rbh_;
  const T* xs_;                         // X as [seq, batch, in] rows
  Tensor y_, yh_, yc_;                  // requested outputs (undefined otherwise)
  const T* rd_ = nullptr;               // R of the current direction
  const rnn::Activation* act_ = nullptr;  // its activations
  const T* pi_ = nullptr;               // its peepholes (LSTM), or null
};

class RecurrentKernel : public OpKernel, public KernelDescription {
 public:
  explicit RecurrentKernel(RnnConfig cfg) : cfg_(std::move(cfg)) {}
  std::string Describe() const override {
    return std::string("float rows ") + cfg_.rows->name;
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
    if (x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64) return Run(ctx);
    if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) return RunWidened(ctx);
    return ctx.Unsupported(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  }

 private:
  // float32 / float64 inputs, on the calling thread's scratch.
  Status Run(KernelContext& ctx) const {
    VT_ASSIGN_OR_RETURN(RnnInputs in, ReadInputs(ctx, cfg_));
    if (in.x.dtype() == DType::kFloat32) RnnRun<float>(cfg_, in, &ThreadScratch<float>()).Run(ctx);
    else RnnRun<double>(cfg_, in, &ThreadScratch<double>()).Run(ctx);
    return Status::Ok();
  }

  // float16 (opset 1) and bfloat16 (opset 22): the float inputs are widened to float32, the
  // float32 recurrence runs on them and each output is rounded once to X's type.
  Status RunWidened(KernelContext& ctx) const {
    const DType dt = ctx.input(0).dtype();
    static constexpr const char* kNames[] = {"X", "W", "R", "B", "sequence_lens", "initial_h",
                                             "initial_c", "P"};
    std::vector<Value> wide(ctx.num_inputs());
    std::vector<const Value*> ins(ctx.num_inputs(), nullptr);
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Value* v = ctx.input_value(i);
      if (v == nullptr || !v->is_tensor() || i == 4) {
        ins[i] = v;
        continue;
      }
      if (v->tensor().dtype() != dt)
        return ctx.Error(std::string(i < 8 ? kNames[i] : "input") + " has dtype " +
                         DTypeName(v->tensor().dtype()) + ", X has " + DTypeName(dt));
      wide[i] = Value(CastTensor(v->tensor(), DType::kFloat32));
      ins[i] = &wide[i];
    }
    std::vector<Value> outs(ctx.num_outputs());
    KernelContext inner(ctx.node(), std::move(ins), &outs, nullptr, ctx.threads());
    VT_RETURN_IF_ERROR(Run(inner));
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i].is_tensor() && outs[i].tensor().defined())
        ctx.SetOutput(i, Value(CastTensor(outs[i].tensor(), dt)));
    return Status::Ok();
  }

  // Per-thread scratch reused across calls (a run executes one node at a time on its thread;
  // concurrent runs are on other threads), so steady-state calls do not allocate.
  template <typename T>
  static std::vector<T>& ThreadScratch() {
    thread_local std::vector<T> buf;
    return buf;
  }

  RnnConfig cfg_;
};

KernelFactory MakeFactory(CellKind kind) {
  return [kind](const KernelInit& init) -> Expected<std::unique_ptr<OpKernel>> {
    VT_ASSIGN_OR_RETURN(RnnConfig cfg, ReadConfig(init.node, kind));
    cfg.rows = &rnn::F32RowsFor(init.weights().isa() >= IsaLevel::kAvx2);
    return std::unique_ptr<OpKernel>(new RecurrentKernel(std::move(cfg)));
  };
}

VT_REGISTER_OP("", "RNN", 1, kMaxOpset, MakeFactory(CellKind::kRnn));
VT_REGISTER_OP("", "GRU", 1, kMaxOpset, MakeFactory(CellKind::kGru));
VT_REGISTER_OP("", "LSTM", 1, kMaxOpset, MakeFactory(CellKind::kLstm));

}  // namespace
}  // namespace vt::ops
