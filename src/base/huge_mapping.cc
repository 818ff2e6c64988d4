#include "vtensor/base/huge_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace vt {

void* MapHugeAligned(size_t bytes, int prot, int flags, int fd) {
  const size_t reserve = bytes + kHugePageBytes;
  void* raw = ::mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return MAP_FAILED;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t at = (lo + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = ::mmap(reinterpret_cast<void*>(at), bytes, prot, flags | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    ::munmap(raw, reserve);
    errno = e;
    return MAP_FAILED;
  }
  if (at > lo) ::munmap(raw, at - lo);
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t end = (at + bytes + page - 1) / page * page;  // the mapping's last page
  if (lo + reserve > end) ::munmap(reinterpret_cast<void*>(end), lo + reserve - end);
  ::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

}  // namespace vt
