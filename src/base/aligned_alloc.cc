#include "vtensor/base/aligned_alloc.h"

#include <new>

namespace vt {

void* AllocateAlignedBytes(size_t bytes) {
  void* p = std::aligned_alloc(kAlignBytes, AlignedSize(bytes));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace vt
