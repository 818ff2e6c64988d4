// 64-byte aligned heap memory: one cache line, one AVX-512 vector. Tensor storage, packed
// weights, kernel scratch and benchmark buffers allocate through here, so no row a kernel
// streams starts mid-line (malloc only guarantees 16 bytes).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

namespace vt {

inline constexpr size_t kAlignBytes = 64;

// `bytes` rounded up to a multiple of 64 and at least 64 (std::aligned_alloc takes multiples
// of the alignment only; a zero-byte request still gets a distinct pointer).
constexpr size_t AlignedSize(size_t bytes) {
  return bytes == 0 ? kAlignBytes : (bytes + kAlignBytes - 1) / kAlignBytes * kAlignBytes;
}

// AlignedSize(bytes) uninitialised bytes aligned to 64. Throws std::bad_alloc when out of
// memory, as operator new does. Release with FreeAligned (or an AlignedDeleter).
void* AllocateAlignedBytes(size_t bytes);
inline void FreeAligned(const void* p) noexcept { std::free(const_cast<void*>(p)); }

struct AlignedDeleter {
  void operator()(const void* p) const noexcept { FreeAligned(p); }
};

// An owned, uninitialised, 64-byte aligned array of trivially copyable T.
template <typename T>
using AlignedArray = std::unique_ptr<T[], AlignedDeleter>;

template <typename T>
AlignedArray<T> AllocateAlignedArray(size_t count) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  return AlignedArray<T>(static_cast<T*>(AllocateAlignedBytes(count * sizeof(T))));
}

// std::vector storage aligned to 64 bytes (benchmarks, tests).
template <typename T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(size_t n) { return static_cast<T*>(AllocateAlignedBytes(n * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { FreeAligned(p); }
  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const {
    return true;
  }
};
template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace vt
