#include "ops/common/reduce_dtype.h"

#include "ops/common/op_util.h"

namespace vt::ops {

Tensor WidenForCompute(const Tensor& t) {
  if (!IsHalfDType(t.dtype())) return t.Contiguous();
  Tensor c = t.Contiguous();
  Tensor out = Tensor::Empty(DType::kFloat32, c.shape());
  const uint16_t* s = c.data<uint16_t>();
  float* d = out.mutable_data<float>();
  const int64_t n = c.numel();
  if (t.dtype() == DType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) d[i] = HalfToFloat(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = BFloat16ToFloat(s[i]);
  }
  return out;
}

Tensor AllocComputeOutput(KernelContext& ctx, size_t i, DType dt, const Shape& shape) {
  if (IsHalfDType(dt)) return Tensor::Empty(DType::kFloat32, shape);
  return ctx.AllocOutput(i, dt, shape);
}

void FinishOutput(KernelContext& ctx, size_t i, DType dt, const Tensor& buffer) {
  if (!IsHalfDType(dt)) return;
  Tensor out = ctx.AllocOutput(i, dt, buffer.shape());
  const float* s = buffer.data<float>();
  uint16_t* d = out.mutable_data<uint16_t>();
  const int64_t n = buffer.numel();
  if (dt == DType::kFloat16) {
    for (int64_t k = 0; k < n; ++k) d[k] = FloatToHalf(s[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) d[k] = FloatToBFloat16(s[k]);
  }
}

std::vector<double> ToDoubleVector(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kFloat32 && t.is_contiguous()) {
    const float* p = t.data<float>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
    return v;
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.GetDouble(static_cast<int64_t>(i));
  return v;
}

void StoreDoubles(Tensor& t, const std::vector<double>& v) {
  const size_t n = std::min(v.size(), static_cast<size_t>(t.numel()));
  switch (t.dtype()) {
    case DType::kFloat32:
      for (size_t i = 0; i < n; ++i) t.mutable_data<float>()[i] = static_cast<float>(v[i]);
      break;
    case DType::kFloat64:
      for (size_t i = 0; i < n; ++i) t.mutable_data<double>()[i] = v[i];
      break;
    case DType::kFloat16:
      for (size_t i = 0; i < n; ++i)
        t.mutable_data<uint16_t>()[i] = FloatToHalf(static_cast<float>(v[i]));
      break;
    case DType::kBFloat16:
      for (size_t i = 0; i < n; ++i)
        t.mutable_data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(v[i]));
      break;
    default:
      (void)DispatchElem<kSetFloatInt>(t.dtype(), [&](auto tag) -> Status {
        using T = decltype(tag);
        for (size_t i = 0; i < n; ++i) t.mutable_data<T>()[i] = static_cast<T>(v[i]);
        return Status::Ok();
      });
  }
}

}  // namespace vt::ops
