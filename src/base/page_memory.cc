#include "vtensor/base/page_memory.h"

#include "vtensor/base/host_memory.h"
#include "vtensor/base/huge_mapping.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace vt {
namespace {

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* AllocZeroedPages(size_t bytes) {
  if (bytes < kZeroedPagesMinBytes) {
    // Host memory's huge-page slabs (or a block it already faulted in), zeroed: a C-library
    // block this size would be a fresh 4 KiB-page mapping.
    void* p = HostAlloc(bytes);
    if (p != nullptr) std::memset(p, 0, bytes);
    return p;
  }
  void* p = MapHugeAligned(RoundUp(bytes, kZeroedPagesMinBytes), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1);
  return p == MAP_FAILED ? nullptr : p;
}

void FreeZeroedPages(void* p, size_t bytes) {
  if (p == nullptr) return;
  if (bytes < kZeroedPagesMinBytes) HostFree(p, bytes);
  else ::munmap(p, RoundUp(bytes, kZeroedPagesMinBytes));
}

void PrefaultMappedPages(const void* data, size_t n) {
#ifdef MADV_POPULATE_READ
  constexpr int kPopulateRead = MADV_POPULATE_READ;
#else
  constexpr int kPopulateRead = 22;  // the Linux value; older headers lack the name
#endif
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t b = reinterpret_cast<uintptr_t>(data) / page * page;
  const uintptr_t e = (reinterpret_cast<uintptr_t>(data) + n + page - 1) / page * page;
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, kPopulateRead);
}

int64_t ThreadMinorFaults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

}  // namespace vt
