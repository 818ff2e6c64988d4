#include "ops/contrib/contrib_inputs.h"

namespace vt::ops {

std::string InputLabel(size_t i, const char* name) {
  return std::string("input '") + name + "' (" + std::to_string(i) + ")";
}

Expected<Tensor> RequiredInput(const KernelContext& ctx, size_t i, const char* name) {
  const Value* v = ctx.input_value(i);
  if (v == nullptr) return ctx.Error(InputLabel(i, name) + " is required but missing");
  if (!v->is_tensor()) return ctx.Error(InputLabel(i, name) + " must be a tensor");
  return v->tensor();
}

Expected<std::optional<Tensor>> OptionalInput(const KernelContext& ctx, size_t i, const char* name) {
  const Value* v = ctx.input_value(i);
  if (v == nullptr || v->is_none()) return std::optional<Tensor>();
  if (!v->is_tensor()) return ctx.Error(InputLabel(i, name) + " must be a tensor");
  return std::optional<Tensor>(v->tensor());
}

Status ExpectSameDType(const KernelContext& ctx, const Tensor& t, DType dt, size_t i,
                       const char* name) {
  if (t.dtype() == dt) return Status::Ok();
  return ctx.Error(InputLabel(i, name) + " has element type " + DTypeName(t.dtype()) +
                   ", expected " + DTypeName(dt) + " (the type of input 0)");
}

Status ExpectVector(const KernelContext& ctx, const Tensor& t, int64_t n, size_t i,
                    const char* name) {
  if (t.rank() == 1 && t.dim(0) == n) return Status::Ok();
  return ctx.Error(InputLabel(i, name) + ": expected shape [" + std::to_string(n) + "], got " +
                   ShapeToString(t.shape()));
}

Status ExpectFloat(const KernelContext& ctx, const Tensor& t, size_t i, const char* name) {
  const DType d = t.dtype();
  if (d == DType::kFloat32 || d == DType::kFloat16 || d == DType::kBFloat16 ||
      d == DType::kFloat64)
    return Status::Ok();
  return ctx.Unsupported(InputLabel(i, name) + " has element type " + DTypeName(d) +
                         "; the operator takes float32, float16, bfloat16 or float64");
}

}  // namespace vt::ops
