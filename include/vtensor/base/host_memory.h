// Host memory for tensor buffers and kernel scratch: a process-wide cache of blocks that are
// already faulted in, backed by transparent huge pages where the kernel allows them.
//
// Why (docs/benchmarks.md, "First run and page faults"): a fresh page costs a page fault and
// the kernel's zeroing on first touch. On the machines we measure, a 4 KiB fault costs 10-20 us,
// so the first run of a model that writes 90 MiB of fresh activations spent most of its time
// in the kernel, and buffers that the C library returned to the system between runs were
// faulted in again on every run. Blocks here are never returned between runs: a freed block
// stays backed and is handed out again, so steady-state runs touch no fresh page.
//
// Blocks are split off large 2 MiB-aligned mappings advised MADV_HUGEPAGE (one fault per 2 MiB
// instead of 512), by address-ordered first fit with freed neighbours merged: a request takes
// the lowest freed range that holds it, split to its size, so the memory a run touches stays
// close to its peak of live bytes. A fresh page costs about 4 ms per MiB on the VM we measure
// whichever page size (docs/benchmarks.md, "Fresh memory per MiB"), so the first run's cost is
// the memory it touches beyond what earlier runs and session creation left.
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

// The bytes HostAlloc takes for a request of `bytes`: rounded up to 64 (1 for 0).
size_t HostAllocBlockBytes(size_t bytes);

struct HostMemoryStats {
  uint64_t mapped_bytes = 0;   // address space reserved from the system (mostly never touched)
  uint64_t touched_bytes = 0;  // of it, what blocks have used, in 2 MiB pages: backed memory
  uint64_t cached_bytes = 0;   // touched bytes outside live blocks, kept for reuse
  uint64_t fresh_blocks = 0;   // blocks that touched pages no block had used before
  uint64_t reused_blocks = 0;  // blocks entirely within touched pages
  uint64_t live_bytes = 0;     // bytes in blocks handed out and not yet freed
  // Highest live_bytes since the last ResetHostMemoryPeak (or since the start): against the
  // growth of touched_bytes over the same span it says how much of the fresh memory the
  // arena's placement cost beyond the buffers live at once.
  uint64_t peak_live_bytes = 0;
  bool enabled = true;        // false under VTENSOR_HOST_ARENA=off
};
HostMemoryStats GetHostMemoryStats();
// Restarts peak_live_bytes from the present live_bytes. Thread-safe.
void ResetHostMemoryPeak();

}  // namespace vt
