// Host memory for tensor buffers and kernel scratch: a process-wide cache of blocks that are
// already faulted in, backed by transparent huge pages where the kernel allows them.
//
// Why (docs/benchmarks.md, "First run and page faults"): a fresh page costs a page fault and
// the kernel's zeroing on first touch. On the machines we measure, a 4 KiB fault costs 10-20 us,
// so the first run of a model that writes 90 MiB of fresh activations spent most of its time
// in the kernel, and buffers that the C library returned to the system between runs were
// faulted in again on every run. Blocks here are never returned between runs: a freed block
// is kept in the free list of its size class and handed out again, so steady-state runs touch
// no fresh page, and fresh blocks come from 2 MiB-aligned mappings advised MADV_HUGEPAGE (one
// fault per 2 MiB instead of 512).
//
// Requests below kHostArenaMinBytes go to the C library (its small-object heap is reused
// well). Setting VTENSOR_HOST_ARENA=off in the environment (read once) sends every request to
// the C library: the baseline for measurements.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt {

inline constexpr size_t kHostArenaMinBytes = 4096;

// `bytes` of uninitialised memory, 64-byte aligned (at least 1 byte is allocated for 0). Null
// when the system is out of memory. Thread-safe.
void* HostAlloc(size_t bytes);

// Frees `p` from HostAlloc(bytes) with the same `bytes`; null is ignored. Thread-safe.
void HostFree(void* p, size_t bytes);

// False under VTENSOR_HOST_ARENA=off: every request then goes to the C library.
bool HostArenaEnabled();

// The size class HostAlloc rounds `bytes` up to (bytes below kHostArenaMinBytes: rounded to
// 64). Classes are 4 per power of two: at most 25% above the request.
size_t HostAllocClassBytes(size_t bytes);

struct HostMemoryStats {
  uint64_t mapped_bytes = 0;  // address space taken from the system (slabs and large blocks)
  uint64_t cached_bytes = 0;  // freed blocks kept for reuse
  uint64_t fresh_blocks = 0;  // blocks carved from fresh memory
  uint64_t reused_blocks = 0; // blocks handed out again from a free list
  bool enabled = true;        // false under VTENSOR_HOST_ARENA=off
};
HostMemoryStats GetHostMemoryStats();

}  // namespace vt
