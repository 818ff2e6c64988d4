// GroupNormalization (ONNX Operators.md, opsets 18 and 21): X is [N, C, D1..Dk], the C
// channels are split into num_groups groups normalised together,
// Y = (X - mean_g) / sqrt(var_g + epsilon) * scale + bias. Opset 18 has one scale/bias per
// group ([num_groups]); opset 21 one per channel ([C]) and a stash_type (statistics are always
// accumulated in double here, which satisfies either stash type).
#include "ops/norm/norm_plane.h"

namespace vt::ops {
namespace {

Status GroupNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(PlaneNormInputs in, ReadPlaneNormInputs(ctx));
  const int64_t groups = ctx.node().GetInt("num_groups", 0);
  const int64_t channels = in.channels, spatial = in.spatial;
  if (groups <= 0 || channels % groups != 0)
    return ctx.Error("num_groups " + std::to_string(groups) + " must divide C = " +
                     std::to_string(channels));
  const bool per_channel = ctx.opset() >= 21;
  const int64_t want = per_channel ? channels : groups;
  if (in.scale.numel() != want || in.bias.numel() != want)
    return ctx.Error("scale and bias must have " + std::to_string(want) + " elements");
  const int64_t cpg = channels / groups;
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const std::vector<double> scale = ToDoubleVector(in.scale), bias = ToDoubleVector(in.bias);
  return RunPlaneNorm(ctx, in.x, in.batch * groups, [&](const auto* px, auto* py, int64_t ng) {
    const int64_t g = ng % groups;
    const int64_t len = cpg * spatial, off = ng * len;
    double mean, var;
    RowMoments(px + off, len, &mean, &var);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t k = 0; k < cpg; ++k) {
      const int64_t p = per_channel ? g * cpg + k : g;
      RowAffine(px + off + k * spatial, spatial, mean, scale[p] * inv, bias[p],
                py + off + k * spatial);
    }
  });
}

VT_REGISTER_OP("", "GroupNormalization", 18, kMaxOpset, GroupNormCompute);

}  // namespace
}  // namespace vt::ops
