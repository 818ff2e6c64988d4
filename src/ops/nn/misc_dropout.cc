// Dropout (ONNX Operators.md "Dropout"). Inference (the default, and every opset before 12)
// is the identity with an all-true mask. Training mode (opset 12+, `training_mode` input
// true and ratio > 0) drops elements with probability `ratio` and scales the rest by
// 1/(1-ratio). With a `seed` attribute the draw is reproducible and matches numpy's legacy
// generator: MT19937 seeded with `seed`, uniforms in [0,1) from 53 bits (two 32-bit draws),
// element kept when u >= ratio.
#include <random>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// numpy RandomState.random_sample(): (a >> 5, b >> 6) combined into a 53-bit double.
double NextUniform(std::mt19937& g) {
  const uint32_t a = g() >> 5, b = g() >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

Status DropoutCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  // Dropout-22 adds the float8 types; they scale through float (StoreDouble rounds back).
  if (!IsFloatDType(x.dtype()) && !IsFloat8DType(x.dtype()))
    return ctx.Error(std::string("input must be a float tensor, got ") + DTypeName(x.dtype()));
  double ratio = 0.5;
  bool training = false;
  if (ctx.opset() >= 12) {
    if (ctx.has_input(1) && ctx.input_value(1)->is_tensor()) {
      VT_ASSIGN_OR_RETURN(ratio, ReadDoubleScalar(ctx, 1, "ratio"));
    }
    if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
      VT_ASSIGN_OR_RETURN(int64_t t, ReadIntScalar(ctx, 2, "training_mode"));
      training = t != 0;
    }
  } else {
    ratio = ctx.node().GetFloat("ratio", 0.5f);
  }
  if (training && !(ratio >= 0 && ratio < 1))
    return ctx.Error("ratio must be in [0, 1), got " + std::to_string(ratio));
  const bool want_mask = ctx.output_requested(1);
  const DType mask_dt = ctx.opset() >= 10 ? DType::kBool : x.dtype();
  if (!training || ratio == 0) {
    ctx.SetOutput(0, x);
    if (want_mask) {
      Tensor m = ctx.AllocOutput(1, mask_dt, x.shape());
      uint8_t one[8];
      VT_RETURN_IF_ERROR(StoreDouble(mask_dt, one, 1.0));
      const size_t es = DTypeSize(mask_dt);
      for (int64_t i = 0; i < m.numel(); ++i)
        std::memcpy(ElemPtr(m.raw_mutable_data(), mask_dt, i), one, es);
    }
    return Status::Ok();
  }
  std::mt19937 gen;
  if (const Attribute* s = ctx.node().FindAttr("seed")) {
    gen.seed(static_cast<uint32_t>(s->i));
  } else {
    gen.seed(std::random_device{}());
  }
  const Tensor xc = x.Contiguous();
  const int64_t n = xc.numel();
  Tensor y = ctx.AllocOutput(0, x.dtype(), x.shape());
  Tensor mask = want_mask ? ctx.AllocOutput(1, DType::kBool, x.shape()) : Tensor();
  const double scale = 1.0 / (1.0 - ratio);
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = NextUniform(gen) >= ratio;
    const double v = keep ? xc.GetDouble(i) * scale : 0.0;
    VT_RETURN_IF_ERROR(StoreDouble(x.dtype(), ElemPtr(y.raw_mutable_data(), x.dtype(), i), v));
    if (want_mask) mask.mutable_data<uint8_t>()[i] = keep ? 1 : 0;
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "Dropout", 1, kMaxOpset, DropoutCompute);

}  // namespace
}  // namespace vt::ops
