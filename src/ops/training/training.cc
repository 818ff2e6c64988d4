// Optimizer update rules of the ai.onnx.preview.training domain (opset 1): Adagrad, Momentum,
// Adam. Inputs are R (learning rate, scalar), T (update count, int64 scalar) and then n groups
// of n tensors each: X (weights), G (gradients) and the optimizer state(s). Outputs are the
// new X tensors followed by the new states, group by group. Arithmetic runs in double and is
// stored in the tensors' floating type. (Gradient needs automatic differentiation and is not
// implemented.)
#include <cmath>

#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

struct Groups {
  double r = 0;
  int64_t t = 0;
  size_t n = 0;  // tensors per group
  std::vector<Tensor> in;  // all tensors after R and T, contiguous
};

// Reads R, T and `groups` equal groups of tensors that must pairwise match X's shape/dtype.
Expected<Groups> ReadGroups(KernelContext& ctx, size_t groups) {
  Groups g;
  if (ctx.num_inputs() < 2 + groups || (ctx.num_inputs() - 2) % groups != 0)
    return ctx.Error("expected R, T and " + std::to_string(groups) + " equal groups of tensors");
  VT_ASSIGN_OR_RETURN(Tensor r, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(1));
  if (r.numel() != 1 || !IsFloatDType(r.dtype())) return ctx.Error("R must be a floating scalar");
  if (t.numel() != 1 || !IsIntegerDType(t.dtype())) return ctx.Error("T must be an integer scalar");
  g.r = r.GetDouble(0);
  g.t = t.GetInt64(0);
  g.n = (ctx.num_inputs() - 2) / groups;
  if (ctx.num_outputs() > g.n * groups)
    return ctx.Error("node has more outputs than updated tensors");
  for (size_t i = 2; i < ctx.num_inputs(); ++i) {
    VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(i));
    if (x.dtype() != DType::kFloat32 && x.dtype() != DType::kFloat64)
      return ctx.Error("input " + std::to_string(i) + " must be float32 or float64");
    const Tensor& ref = i - 2 < g.n ? x : g.in[(i - 2) % g.n];
    if (x.shape() != ref.shape() || x.dtype() != ref.dtype())
      return ctx.Error("input " + std::to_string(i) + " (" + DTypeName(x.dtype()) +
                       ShapeToString(x.shape()) + ") does not match its weight tensor (" +
                       DTypeName(ref.dtype()) + ShapeToString(ref.shape()) + ")");
    g.in.push_back(x.Contiguous());
  }
  return g;
}

// Runs `update(k, elem, in_values, out_values)` for every element of every group member k,
// where in_values holds that element of each group (X, G, states...) and out_values receives
// the new X then the new states.
template <typename F>
Status Update(KernelContext& ctx, const Groups& g, size_t groups, size_t outs_per_member,
              F update) {
  std::vector<Tensor> outs(g.n * outs_per_member);
  for (size_t o = 0; o < outs.size(); ++o) {
    const Tensor& like = g.in[o % g.n];
    outs[o] = ctx.output_requested(o) ? ctx.AllocOutput(o, like.dtype(), like.shape())
                                      : Tensor::Empty(like.dtype(), like.shape());
  }
  std::vector<double> in(groups), out(outs_per_member);
  for (size_t k = 0; k < g.n; ++k) {
    const int64_t count = g.in[k].numel();
    const bool f32 = g.in[k].dtype() == DType::kFloat32;
    for (int64_t e = 0; e < count; ++e) {
      for (size_t q = 0; q < groups; ++q) {
        const Tensor& t = g.in[q * g.n + k];
        in[q] = f32 ? t.data<float>()[e] : t.data<double>()[e];
      }
      update(in.data(), out.data());
      for (size_t q = 0; q < outs_per_member; ++q) {
        Tensor& t = outs[q * g.n + k];
        if (f32) t.mutable_data<float>()[e] = static_cast<float>(out[q]);
        else t.mutable_data<double>()[e] = out[q];
      }
    }
  }
  return Status::Ok();
}

// Adagrad: r = R / (1 + T * decay_factor); g = G + norm_coefficient * X; H' = H + g^2;
// X' = X - r * g / (sqrt(H') + epsilon). Inputs X..., G..., H...; outputs X'..., H'....
Status AdagradCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Groups g, ReadGroups(ctx, 3));
  const Node& n = ctx.node();
  const double decay = n.GetFloat("decay_factor", 0.0f), eps = n.GetFloat("epsilon", 1e-6f);
  const double norm = n.GetFloat("norm_coefficient", 0.0f);
  const double r = g.r / (1.0 + static_cast<double>(g.t) * decay);
  return Update(ctx, g, 3, 2, [&](const double* in, double* out) {
    const double x = in[0], gr = in[1] + norm * x, h = in[2] + gr * gr;
    out[0] = x - r * gr / (std::sqrt(h) + eps);
    out[1] = h;
  });
}

// Momentum: g = G + norm_coefficient * X; V' = alpha * V + beta' * g with beta' = beta when
// T > 0, else 1. standard: X' = X - R * V'; nesterov: X' = X - R * (g + alpha * V').
Status MomentumCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Groups g, ReadGroups(ctx, 3));
  const Node& n = ctx.node();
  const double alpha = n.GetFloat("alpha", 0.0f), norm = n.GetFloat("norm_coefficient", 0.0f);
  const double beta = g.t > 0 ? n.GetFloat("beta", 0.0f) : 1.0;
  const std::string mode = n.GetString("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return ctx.Error("mode must be standard or nesterov, got '" + mode + "'");
  const bool nesterov = mode == "nesterov";
  const double r = g.r;
  return Update(ctx, g, 3, 2, [&](const double* in, double* out) {
    const double x = in[0], gr = in[1] + norm * x;
    const double v = alpha * in[2] + beta * gr;
    out[0] = nesterov ? x - r * (gr + alpha * v) : x - r * v;
    out[1] = v;
  });
}

// Adam: g = G + norm_coefficient * X; V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g^2;
// R' = R * sqrt(1 - beta^T) / (1 - alpha^T) when T > 0, else R;
// X' = (1 - norm_coefficient_post) * (X - R' * V' / (sqrt(H') + epsilon)).
// Inputs X..., G..., V..., H...; outputs X'..., V'..., H'....
Status AdamCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Groups g, ReadGroups(ctx, 4));
  const Node& n = ctx.node();
  const double alpha = n.GetFloat("alpha", 0.9f), beta = n.GetFloat("beta", 0.999f);
  const double eps = n.GetFloat("epsilon", 1e-6f), norm = n.GetFloat("norm_coefficient", 0.0f);
  const double post = n.GetFloat("norm_coefficient_post", 0.0f);
  const double td = static_cast<double>(g.t);
  const double r = g.t > 0 ? g.r * std::sqrt(1.0 - std::pow(beta, td)) / (1.0 - std::pow(alpha, td))
                           : g.r;
  return Update(ctx, g, 4, 3, [&](const double* in, double* out) {
    const double x = in[0], gr = in[1] + norm * x;
    const double v = alpha * in[2] + (1 - alpha) * gr;
    const double h = beta * in[3] + (1 - beta) * gr * gr;
    out[0] = (1 - post) * (x - r * v / (std::sqrt(h) + eps));
    out[1] = v;
    out[2] = h;
  });
}

VT_REGISTER_OP("ai.onnx.preview.training", "Adagrad", 1, kMaxOpset, AdagradCompute);
VT_REGISTER_OP("ai.onnx.preview.training", "Momentum", 1, kMaxOpset, MomentumCompute);
VT_REGISTER_OP("ai.onnx.preview.training", "Adam", 1, kMaxOpset, AdamCompute);

}  // namespace
}  // namespace vt::ops
