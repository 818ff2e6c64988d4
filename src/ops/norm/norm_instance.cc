// InstanceNormalization (ONNX Operators.md, opsets 1/6/22): X is [N, C, D1..Dk]; each (n, c)
// plane is normalised with its own mean and population variance,
// Y = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c].
#include "ops/norm/norm_plane.h"

namespace vt::ops {
namespace {

Status InstanceNormCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(PlaneNormInputs in, ReadPlaneNormInputs(ctx));
  const int64_t channels = in.channels, spatial = in.spatial;
  if (in.scale.numel() != channels || in.bias.numel() != channels)
    return ctx.Error("scale and B must have C = " + std::to_string(channels) + " elements");
  const double eps = ctx.node().GetFloat("epsilon", 1e-5f);
  const std::vector<double> scale = ToDoubleVector(in.scale), bias = ToDoubleVector(in.bias);
  return RunPlaneNorm(ctx, in.x, in.batch * channels, [&](const auto* px, auto* py, int64_t nc) {
    const int64_t c = nc % channels;
    double mean, var;
    RowMoments(px + nc * spatial, spatial, &mean, &var);
    RowAffine(px + nc * spatial, spatial, mean, scale[c] / std::sqrt(var + eps), bias[c],
              py + nc * spatial);
  });
}

VT_REGISTER_OP("", "InstanceNormalization", 1, kMaxOpset, InstanceNormCompute);

}  // namespace
}  // namespace vt::ops
