#include "vtensor/tensor/sub_byte_values.h"

#include <cstdint>
#include <string>

namespace vt {

Status CheckSubByteValues(const Tensor& t) {
  if (!IsSubByteDType(t.dtype())) return Status::Ok();
  const Tensor c = t.Contiguous();
  const auto* p = static_cast<const uint8_t*>(c.raw_data());
  const bool is_signed = t.dtype() == DType::kInt4;
  const int lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
  for (int64_t i = 0; i < c.numel(); ++i) {
    const int v = is_signed ? static_cast<int8_t>(p[i]) : p[i];
    if (v < lo || v > hi)
      return InvalidArgument("element " + std::to_string(i) + " = " + std::to_string(v) +
                             " is outside " + DTypeName(t.dtype()) + "'s range " +
                             std::to_string(lo) + ".." + std::to_string(hi));
  }
  return Status::Ok();
}

}  // namespace vt
