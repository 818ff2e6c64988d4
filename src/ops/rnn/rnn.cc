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
};

Expected<RnnConfig> ReadConfig(const Node& node, CellKind kind) {
  RnnConfig c;
  c.kind = kind;
  c.gates = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
  c.acts_per_dir = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 2 : 3;
  auto err = [&](const std::string& m) { return InvalidArgument(node.Describe() + ": " + m); };
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
  if (names.size() != static_cast<size_t>(c.acts_per_dir * c.num_dirs))
    return err("expected " + std::to_string(c.acts_per_dir * c.num_dirs) + " activations, got " +
               std::to_string(names.size()));
  const std::vector<float> alphas = node.GetFloats("activation_alpha");
  const std::vector<float> betas = node.GetFloats("activation_beta");
  size_t na = 0, nb = 0;
  for (const auto& n : names) {
    auto a = rnn::MakeActivation(n, alphas.data(), alphas.size(), &na, betas.data(), betas.size(),
                                 &nb);
    if (!a.ok()) return err(a.status().message());
    c.acts.push_back(*a);
  }
  return c;
}

template <typename T>
void ClipInPlace(T* x, int64_t n, T lim) {
  for (int64_t i = 0; i < n; ++i) x[i] = std::min(lim, std::max(-lim, x[i]));
}

class RecurrentKernel : public OpKernel {
 public:
  explicit RecurrentKernel(RnnConfig cfg) : cfg_(std::move(cfg)) {}

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
    if (x.dtype() == DType::kFloat32) return Run<float>(ctx, &ThreadScratch<float>());
    if (x.dtype() == DType::kFloat64) return Run<double>(ctx, &ThreadScratch<double>());
    if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) return RunWidened(ctx);
    return ctx.Unsupported(std::string("dtype ") + DTypeName(x.dtype()) + " not supported");
  }

 private:
  // Optional input i as a contiguous tensor of `dt` and `shape`, or an undefined tensor when
  // absent. Errors: wrong dtype or shape.
  static Expected<Tensor> Optional(KernelContext& ctx, size_t i, const char* name, DType dt,
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
    VT_RETURN_IF_ERROR(Run<float>(inner, &ThreadScratch<float>()));
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

  template <typename T>
  Status Run(KernelContext& ctx, std::vector<T>* buf) const {
    const RnnConfig& c = cfg_;
    const bool lstm = c.kind == CellKind::kLstm, gru = c.kind == CellKind::kGru;
    const int64_t G = c.gates, D = c.num_dirs;
    const DType dt = ctx.input(0).dtype();
    Tensor x = ctx.input(0).Contiguous();
    if (x.rank() != 3) return ctx.Error("X must have rank 3, got " + ShapeToString(x.shape()));
    const int64_t seq = c.layout == 0 ? x.dim(0) : x.dim(1);
    const int64_t batch = c.layout == 0 ? x.dim(1) : x.dim(0);
    const int64_t in = x.dim(2);
    VT_ASSIGN_OR_RETURN(Tensor r, ctx.RequireTensor(2));
    if (r.rank() != 3) return ctx.Error("R must have rank 3, got " + ShapeToString(r.shape()));
    const int64_t H = c.hidden > 0 ? c.hidden : r.dim(2);
    if (H <= 0) return ctx.Error("hidden size must be positive");
    VT_ASSIGN_OR_RETURN(Tensor w, Optional(ctx, 1, "W", dt, {D, G * H, in}));
    if (!w.defined()) return ctx.Error("W is required");
    VT_ASSIGN_OR_RETURN(r, Optional(ctx, 2, "R", dt, {D, G * H, H}));
    VT_ASSIGN_OR_RETURN(Tensor b, Optional(ctx, 3, "B", dt, {D, 2 * G * H}));
    const Shape state_shape = c.layout == 0 ? Shape{D, batch, H} : Shape{batch, D, H};
    VT_ASSIGN_OR_RETURN(Tensor h0, Optional(ctx, 5, "initial_h", dt, state_shape));
    Tensor c0, p;
    if (lstm) {
      VT_ASSIGN_OR_RETURN(c0, Optional(ctx, 6, "initial_c", dt, state_shape));
      VT_ASSIGN_OR_RETURN(p, Optional(ctx, 7, "P", dt, {D, 3 * H}));
    }
    // Per-batch lengths; every batch runs all steps without sequence_lens.
    std::vector<int64_t> lens(static_cast<size_t>(batch), seq);
    bool padded = false;
    if (ctx.has_input(4) && !ctx.input_value(4)->is_none()) {
      VT_ASSIGN_OR_RETURN(Tensor sl, ctx.RequireTensor(4));
      if (!IsIntegerDType(sl.dtype()) || sl.numel() != batch)
        return ctx.Error("sequence_lens must be an integer tensor of " + std::to_string(batch) +
                         " elements, got " + DTypeName(sl.dtype()) + ShapeToString(sl.shape()));
      for (int64_t i = 0; i < batch; ++i) {
        int64_t l = sl.GetInt64(i);
        if (l < 0 || l > seq)
          return ctx.Error("sequence_lens[" + std::to_string(i) + "] = " + std::to_string(l) +
                           " outside [0, " + std::to_string(seq) + "]");
        lens[static_cast<size_t>(i)] = l;
        padded |= l < seq;
      }
    }

    // Outputs (only those requested are written).
    Tensor y, yh, yc;
    if (ctx.output_requested(0)) {
      Shape ys = c.layout == 0 ? Shape{seq, D, batch, H} : Shape{batch, seq, D, H};
      y = ctx.AllocOutput(0, dt, ys);
      if (padded) std::memset(y.raw_mutable_data(), 0, y.nbytes());
    }
    if (ctx.output_requested(1)) yh = ctx.AllocOutput(1, dt, state_shape);
    if (lstm && ctx.output_requested(2)) yc = ctx.AllocOutput(2, dt, state_shape);
    auto y_at = [&](int64_t t, int64_t d, int64_t bi) -> T* {
      int64_t off = c.layout == 0 ? ((t * D + d) * batch + bi) * H : ((bi * seq + t) * D + d) * H;
      return y.mutable_data<T>() + off;
    };
    auto state_off = [&](int64_t d, int64_t bi) {
      return c.layout == 0 ? (d * batch + bi) * H : (bi * D + d) * H;
    };

    // X as [seq, batch, in] rows.
    const T* xs = x.data<T>();
    const int64_t GH = G * H;
    // Scratch layout: xw [seq*batch, GH] | gates [batch, GH] | h [batch, H] | c [batch, H] |
    // tmp [batch, H] | bias [GH] | rbh [H] | xt [seq*batch*in when layout 1].
    const int64_t rows = seq * batch;
    const size_t need = static_cast<size_t>(rows * GH + batch * GH + 3 * batch * H + GH + H +
                                            (c.layout == 1 ? rows * in : 0));
    if (buf->size() < need) buf->resize(need);
    T* xw = buf->data();
    T* gates = xw + rows * GH;
    T* hs = gates + batch * GH;
    T* cs = hs + batch * H;
    T* tmp = cs + batch * H;
    T* bias = tmp + batch * H;
    T* rbh = bias + GH;
    if (c.layout == 1) {
      T* xt = rbh + H;
      for (int64_t t = 0; t < seq; ++t)
        for (int64_t bi = 0; bi < batch; ++bi)
          std::memcpy(xt + (t * batch + bi) * in, xs + (bi * seq + t) * in,
                      static_cast<size_t>(in) * sizeof(T));
      xs = xt;
    }
    const T clip = static_cast<T>(c.clip);

    for (int64_t d = 0; d < D; ++d) {
      const bool rev = c.reverse || d == 1;
      const T* wd = w.data<T>() + d * GH * in;
      const T* rd = r.data<T>() + d * GH * H;
      const rnn::Activation* act = &c.acts[static_cast<size_t>(d * c.acts_per_dir)];
      // Biases folded into the input projection. GRU with linear_before_reset keeps the
      // recurrent bias of the h gate apart: it is multiplied by r.
      std::fill(bias, bias + GH, T(0));
      std::fill(rbh, rbh + H, T(0));
      if (b.defined()) {
        const T* wb = b.data<T>() + d * 2 * GH;
        const T* rb = wb + GH;
#pragma omp simd
        for (int64_t k = 0; k < GH; ++k) bias[k] = wb[k] + rb[k];
        if (gru && c.linear_before_reset)
          for (int64_t k = 0; k < H; ++k) {
            bias[2 * H + k] = wb[2 * H + k];
            rbh[k] = rb[2 * H + k];
          }
      }
      if (rows > 0) rnn::GemmNT(rows, GH, in, xs, in, wd, in, xw, GH, false);
      for (int64_t row = 0; row < rows; ++row) {
        T* g = xw + row * GH;
#pragma omp simd
        for (int64_t k = 0; k < GH; ++k) g[k] += bias[k];
      }
      for (int64_t bi = 0; bi < batch; ++bi) {
        T* h = hs + bi * H;
        T* cc = cs + bi * H;
        if (h0.defined()) std::memcpy(h, h0.data<T>() + state_off(d, bi), H * sizeof(T));
        else std::fill(h, h + H, T(0));
        if (lstm) {
          if (c0.defined()) std::memcpy(cc, c0.data<T>() + state_off(d, bi), H * sizeof(T));
          else std::fill(cc, cc + H, T(0));
        }
      }
      const T* pi = p.defined() ? p.data<T>() + d * 3 * H : nullptr;
      const T* po = pi ? pi + H : nullptr;
      const T* pf = pi ? pi + 2 * H : nullptr;

      for (int64_t s = 0; s < seq; ++s) {
        // Recurrent projection for all batch rows (GRU without linear_before_reset: z and r
        // only; the h gate needs r first).
        const int64_t n_rec = gru && !c.linear_before_reset ? 2 * H : GH;
        rnn::GemmNT(batch, n_rec, H, hs, H, rd, H, gates, GH, false);
        if (gru && !c.linear_before_reset) {
          // z, r first, then (r ⊙ h) · Rh^T into the h-gate slot.
          for (int64_t bi = 0; bi < batch; ++bi) {
            const int64_t len = lens[static_cast<size_t>(bi)];
            T* g = gates + bi * GH;
            T* rh = tmp + bi * H;
            if (s >= len) {
              std::fill(rh, rh + H, T(0));
              continue;
            }
            const int64_t t = rev ? len - 1 - s : s;
            const T* xg = xw + (t * batch + bi) * GH;
#pragma omp simd
            for (int64_t k = 0; k < 2 * H; ++k) g[k] += xg[k];
            if (c.has_clip) ClipInPlace(g, 2 * H, clip);
            rnn::Apply(act[0], g, 2 * H);
            const T* h = hs + bi * H;
#pragma omp simd
            for (int64_t k = 0; k < H; ++k) rh[k] = g[H + k] * h[k];
          }
          rnn::GemmNT(batch, H, H, tmp, H, rd + 2 * H * H, H, gates + 2 * H, GH, false);
        }
        for (int64_t bi = 0; bi < batch; ++bi) {
          const int64_t len = lens[static_cast<size_t>(bi)];
          if (s >= len) continue;
          const int64_t t = rev ? len - 1 - s : s;
          const T* xg = xw + (t * batch + bi) * GH;
          T* g = gates + bi * GH;
          T* h = hs + bi * H;
          if (c.kind == CellKind::kRnn) {
#pragma omp simd
            for (int64_t k = 0; k < H; ++k) g[k] += xg[k];
            if (c.has_clip) ClipInPlace(g, H, clip);
            rnn::Apply(act[0], g, H);
            std::memcpy(h, g, H * sizeof(T));
          } else if (gru) {
            T* z = g;
            T* rr = g + H;
            T* hh = g + 2 * H;
            if (c.linear_before_reset) {
#pragma omp simd
              for (int64_t k = 0; k < 2 * H; ++k) g[k] += xg[k];
              if (c.has_clip) ClipInPlace(g, 2 * H, clip);
              rnn::Apply(act[0], g, 2 * H);
#pragma omp simd
              for (int64_t k = 0; k < H; ++k) hh[k] = xg[2 * H + k] + rr[k] * (hh[k] + rbh[k]);
            } else {
#pragma omp simd
              for (int64_t k = 0; k < H; ++k) hh[k] += xg[2 * H + k];
            }
            if (c.has_clip) ClipInPlace(hh, H, clip);
            rnn::Apply(act[1], hh, H);
#pragma omp simd
            for (int64_t k = 0; k < H; ++k) h[k] = (T(1) - z[k]) * hh[k] + z[k] * h[k];
          } else {
            T* gi = g;
            T* go = g + H;
            T* gf = g + 2 * H;
            T* gc = g + 3 * H;
            T* cc = cs + bi * H;
#pragma omp simd
            for (int64_t k = 0; k < GH; ++k) g[k] += xg[k];
            if (pi) {
#pragma omp simd
              for (int64_t k = 0; k < H; ++k) {
                gi[k] += pi[k] * cc[k];
                gf[k] += pf[k] * cc[k];
              }
            }
            if (c.has_clip) {
              ClipInPlace(gi, H, clip);
              ClipInPlace(gf, 2 * H, clip);  // f and c gates are adjacent
            }
            rnn::Apply(act[0], gi, H);
            if (c.input_forget) {
#pragma omp simd
              for (int64_t k = 0; k < H; ++k) gf[k] = T(1) - gi[k];
            } else {
              rnn::Apply(act[0], gf, H);
            }
            rnn::Apply(act[1], gc, H);
#pragma omp simd
            for (int64_t k = 0; k < H; ++k) cc[k] = gf[k] * cc[k] + gi[k] * gc[k];
            if (po) {
#pragma omp simd
              for (int64_t k = 0; k < H; ++k) go[k] += po[k] * cc[k];
            }
            if (c.has_clip) ClipInPlace(go, H, clip);
            rnn::Apply(act[0], go, H);
            T* th = tmp + bi * H;
            std::memcpy(th, cc, H * sizeof(T));
            rnn::Apply(act[2], th, H);
#pragma omp simd
            for (int64_t k = 0; k < H; ++k) h[k] = go[k] * th[k];
          }
          if (y.defined()) std::memcpy(y_at(t, d, bi), h, H * sizeof(T));
        }
      }
      for (int64_t bi = 0; bi < batch; ++bi) {
        if (yh.defined())
          std::memcpy(yh.mutable_data<T>() + state_off(d, bi), hs + bi * H, H * sizeof(T));
        if (yc.defined())
          std::memcpy(yc.mutable_data<T>() + state_off(d, bi), cs + bi * H, H * sizeof(T));
      }
    }
    return Status::Ok();
  }

  RnnConfig cfg_;

};

KernelFactory MakeFactory(CellKind kind) {
  return [kind](const KernelInit& init) -> Expected<std::unique_ptr<OpKernel>> {
    VT_ASSIGN_OR_RETURN(RnnConfig cfg, ReadConfig(init.node, kind));
    return std::unique_ptr<OpKernel>(new RecurrentKernel(std::move(cfg)));
  };
}

VT_REGISTER_OP("", "RNN", 1, kMaxOpset, MakeFactory(CellKind::kRnn));
VT_REGISTER_OP("", "GRU", 1, kMaxOpset, MakeFactory(CellKind::kGru));
VT_REGISTER_OP("", "LSTM", 1, kMaxOpset, MakeFactory(CellKind::kLstm));

}  // namespace
}  // namespace vt::ops
