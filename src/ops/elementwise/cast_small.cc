#include "ops/elementwise/cast_small.h"

#include <cstring>

#include "ops/elementwise/cast.h"
#include "vtensor/layout/minifloat.h"

namespace vt::ops {

namespace {

bool IsSmall(DType t) { return IsMiniFloatDType(t) || t == DType::kInt4 || t == DType::kUInt4; }

// A small-typed tensor as the standard type holding its values exactly: small floats decoded to
// float32, int4 / uint4 (one per byte in memory) viewed as int8 / uint8.
Tensor Widen(const Tensor& in) {
  Tensor c = in.Contiguous();
  const auto* src = static_cast<const uint8_t*>(c.raw_data());
  const int64_t n = c.numel();
  if (IsMiniFloatDType(in.dtype())) {
    Tensor w = Tensor::Empty(DType::kFloat32, in.shape());
    float* o = w.mutable_data<float>();
    for (int64_t i = 0; i < n; ++i) o[i] = MiniFloatToFloat(in.dtype(), src[i]);
    return w;
  }
  Tensor w = Tensor::Empty(in.dtype() == DType::kInt4 ? DType::kInt8 : DType::kUInt8, in.shape());
  if (n) std::memcpy(w.raw_mutable_data(), src, static_cast<size_t>(n));
  return w;
}

}  // namespace

bool IsSmallCast(DType from, DType to) { return IsSmall(from) || IsSmall(to); }

Status CastSmallInto(const Tensor& in, Tensor& out, bool saturate) {
  const DType to = out.dtype();
  Tensor src = IsSmall(in.dtype()) ? Widen(in) : in;
  if (!IsSmall(to)) return CastInto(src, out);
  auto* o = static_cast<uint8_t*>(out.raw_mutable_data());
  const int64_t n = src.numel();
  if (IsMiniFloatDType(to)) {
    VT_ASSIGN_OR_RETURN(Tensor d, CastTo(src, DType::kFloat64));
    Tensor dc = d.Contiguous();
    const double* pd = dc.data<double>();
    for (int64_t i = 0; i < n; ++i) o[i] = FloatToMiniFloat(to, pd[i], saturate);
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(Tensor w, CastTo(src, DType::kInt64));
  Tensor wc = w.Contiguous();
  const int64_t* pw = wc.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    uint8_t v = static_cast<uint8_t>(pw[i] & 0x0F);
    if (to == DType::kInt4 && (v & 0x08)) v |= 0xF0;  // sign-extended in memory
    o[i] = v;
  }
  return Status::Ok();
}

}  // namespace vt::ops
