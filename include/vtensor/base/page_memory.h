// Whole-page memory for load-time work: fresh zeroed buffers backed by huge pages, and
// prefaulting of file mappings that are about to be read front to back.
//
// Why (docs/benchmarks.md, "First run and page faults"): on the machines we measure a 4 KiB
// page fault costs 10-20 us, so a 1 GiB weight packed into a memset buffer spent most of its
// load time in the kernel. A fresh anonymous mapping is already zero, and advised
// MADV_HUGEPAGE it takes one fault per 2 MiB.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt {

inline constexpr size_t kZeroedPagesMinBytes = size_t{2} << 20;

// `bytes` of zeroed memory, 64-byte aligned, for a long-lived buffer written once (a packed
// weight). At least kZeroedPagesMinBytes: a fresh 2 MiB-aligned anonymous mapping advised
// MADV_HUGEPAGE (zeroed by the kernel at first touch, no memset pass); smaller: HostAlloc
// (base/host_memory.h: huge-page slabs), memset. Null when out of memory. Free with FreeZeroedPages(p, bytes). Thread-safe.
void* AllocZeroedPages(size_t bytes);
void FreeZeroedPages(void* p, size_t bytes);

// Maps the pages of [data, data + n) of a file mapping into this process in one call
// (madvise MADV_POPULATE_READ, Linux 5.14) before a pass reads them all: one system call
// instead of a fault per fault-around window. Best effort: a no-op where unsupported.
void PrefaultMappedPages(const void* data, size_t n);

// Minor page faults of the calling thread so far (getrusage RUSAGE_THREAD): each first touch
// of a fresh or mapped page, the count a load's phases are steered by (LoadPhase::faults).
int64_t ThreadMinorFaults();

}  // namespace vt
