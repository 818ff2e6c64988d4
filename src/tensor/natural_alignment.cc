#include "vtensor/tensor/natural_alignment.h"

#include <cstdint>
#include <cstring>

namespace vt {

size_t NaturalAlignment(DType dt) {
  switch (dt) {
    case DType::kComplex64: return alignof(float);
    case DType::kComplex128: return alignof(double);
    case DType::kString: return alignof(std::string);
    case DType::kUndefined: return 1;
    default: return DTypeSize(dt);
  }
}

bool IsNaturallyAligned(const Tensor& t) {
  if (!t.defined()) return true;
  return reinterpret_cast<uintptr_t>(t.raw_data()) % NaturalAlignment(t.dtype()) == 0;
}

Tensor NaturallyAligned(const Tensor& t) {
  if (IsNaturallyAligned(t)) return t;
  if (!t.is_contiguous()) return t.Clone();
  // Bytes only: the elements are never read through a misaligned typed pointer.
  Tensor out = Tensor::Empty(t.dtype(), t.shape());
  if (t.nbytes() > 0) std::memcpy(out.raw_mutable_data(), t.raw_data(), t.nbytes());
  out.set_name(t.name());
  return out;
}

}  // namespace vt
