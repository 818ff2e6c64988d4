#include "ops/common/f32_compute.h"

#include <cstring>

#include "ops/common/op_util.h"

namespace vt::ops {

bool IsF32Computable(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 ||
         t == DType::kFloat64;
}

Tensor AsF32(const Tensor& t) {
  if (t.dtype() == DType::kFloat32) return t.Contiguous();
  return CastTensor(t, DType::kFloat32);
}

void StoreF32As(const Tensor& src, Tensor& dst) {
  const float* s = src.data<float>();
  const int64_t n = dst.numel();
  switch (dst.dtype()) {
    case DType::kFloat32:
      if (dst.data<float>() != s) std::memcpy(dst.mutable_data<float>(), s, n * sizeof(float));
      break;
    case DType::kFloat64: {
      double* d = dst.mutable_data<double>();
      for (int64_t i = 0; i < n; ++i) d[i] = s[i];
      break;
    }
    case DType::kFloat16: {
      uint16_t* d = dst.mutable_data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = FloatToHalf(s[i]);
      break;
    }
    case DType::kBFloat16: {
      uint16_t* d = dst.mutable_data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) d[i] = FloatToBFloat16(s[i]);
      break;
    }
    default:
      break;
  }
}

}  // namespace vt::ops
