#include "vtensor/base/host_memory.h"

#include "vtensor/base/huge_mapping.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace vt {

namespace {

// Blocks up to kSlabMaxBlock are carved from slabs of kSlabBytes; larger ones get their own
// mapping. A slab's unused tail is never touched, so it costs address space only (a huge page
// is faulted in by its first touch).
constexpr size_t kSlabBytes = size_t{4} << 20;
constexpr size_t kSlabMaxBlock = size_t{1} << 20;
// Freed blocks with their own mapping are kept up to this many bytes; beyond it they are
// unmapped (a process that once ran a much larger shape does not keep it all).
constexpr uint64_t kMaxCachedLarge = uint64_t{1} << 30;
constexpr int kClasses = 4 * 52;  // 4 KiB .. 2^63 bytes
// How many classes above its own a request may take a cached block from (8: up to 4x).
constexpr int kUpgradeClasses = 8;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Size class of bytes >= kHostArenaMinBytes: 2^e < bytes <= 2^(e+1), four classes of 2^(e-2)
// steps per octave.
struct Class {
  int index;
  size_t bytes;
};
Class ClassOf(size_t bytes) {
  const int e = std::bit_width(bytes - 1) - 1;  // >= 11 for bytes >= 4096
  const size_t base = size_t{1} << e, step = base >> 2;
  const size_t k = (bytes - base + step - 1) / step;  // 1..4
  return {(e - 11) * 4 + static_cast<int>(k) - 1, base + k * step};
}
size_t ClassBytesOf(int index) {
  const int e = index / 4 + 11;
  const size_t base = size_t{1} << e;
  return base + static_cast<size_t>(index % 4 + 1) * (base >> 2);
}

// A 2 MiB-aligned anonymous mapping of `bytes` (a multiple of 2 MiB) advised for huge pages,
// or null.
void* MapHuge(size_t bytes) {
  void* p = MapHugeAligned(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  return p == MAP_FAILED ? nullptr : p;
}

class Arena {
 public:
  void* Alloc(size_t bytes) {
    const Class want = ClassOf(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest cached block of this class or up to kUpgradeClasses above it: a block that
    // is already faulted in beats a fresh one even when it is up to 4x larger.
    for (int i = want.index; i < std::min(kClasses, want.index + 1 + kUpgradeClasses); ++i) {
      std::vector<void*>& list = free_[i];
      if (list.empty()) continue;
      void* p = list.back();
      list.pop_back();
      const size_t cb = ClassBytesOf(i);
      stats_.cached_bytes -= cb;
      if (cb > kSlabMaxBlock) cached_large_ -= cb;
      ++stats_.reused_blocks;
      class_of_[p] = static_cast<int16_t>(i);
      return p;
    }
    void* p = want.bytes > kSlabMaxBlock ? MapLarge(want.bytes) : Carve(want.bytes);
    if (p) {
      ++stats_.fresh_blocks;
      class_of_[p] = static_cast<int16_t>(want.index);
    }
    return p;
  }

  void Free(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    Class c = ClassOf(bytes);
    if (auto it = class_of_.find(p); it != class_of_.end()) {
      c = {it->second, ClassBytesOf(it->second)};
      class_of_.erase(it);
    }
    if (c.bytes > kSlabMaxBlock) {
      if (cached_large_ + c.bytes > kMaxCachedLarge) {
        const size_t len = RoundUp(c.bytes, kHugePageBytes);
        ::munmap(p, len);
        stats_.mapped_bytes -= len;
        return;
      }
      cached_large_ += c.bytes;
    }
    free_[c.index].push_back(p);
    stats_.cached_bytes += c.bytes;
  }

  HostMemoryStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  void* MapLarge(size_t class_bytes) {
    const size_t len = RoundUp(class_bytes, kHugePageBytes);
    void* p = MapHuge(len);
    if (p) stats_.mapped_bytes += len;
    return p;
  }

  void* Carve(size_t class_bytes) {
    if (slab_left_ < class_bytes) {
      void* s = MapHuge(kSlabBytes);
      if (!s) return nullptr;
      stats_.mapped_bytes += kSlabBytes;
      slab_next_ = static_cast<uint8_t*>(s);
      slab_left_ = kSlabBytes;
    }
    void* p = slab_next_;
    slab_next_ += class_bytes;
    slab_left_ -= class_bytes;
    return p;
  }

  std::mutex mu_;
  std::vector<void*> free_[kClasses];
  std::unordered_map<void*, int16_t> class_of_;  // live blocks: the class each was taken from
  uint8_t* slab_next_ = nullptr;
  size_t slab_left_ = 0;
  uint64_t cached_large_ = 0;
  HostMemoryStats stats_;
};

// Never destroyed: tensors may be freed by static destructors after main returns.
Arena& TheArena() {
  static Arena* a = new Arena();
  return *a;
}

}  // namespace

bool HostArenaEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("VTENSOR_HOST_ARENA");
    return !(v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0));
  }();
  return on;
}

size_t HostAllocClassBytes(size_t bytes) {
  if (bytes < kHostArenaMinBytes) return RoundUp(bytes == 0 ? 1 : bytes, 64);
  return ClassOf(bytes).bytes;
}

void* HostAlloc(size_t bytes) {
  if (bytes >= kHostArenaMinBytes && HostArenaEnabled()) return TheArena().Alloc(bytes);
  return std::aligned_alloc(64, RoundUp(bytes == 0 ? 1 : bytes, 64));
}

void HostFree(void* p, size_t bytes) {
  if (!p) return;
  if (bytes >= kHostArenaMinBytes && HostArenaEnabled()) return TheArena().Free(p, bytes);
  std::free(p);
}

HostMemoryStats GetHostMemoryStats() {
  if (!HostArenaEnabled()) {
    HostMemoryStats s;
    s.enabled = false;
    return s;
  }
  return TheArena().Stats();
}

}  // namespace vt
