// Host memory for tensor buffers and kernel scratch: a process-wide cache of blocks that are
// already faulted in.
//
// Why (docs/benchmarks.md, "First run and page faults"): a fresh page costs a page fault and
// the kernel's zeroing on first touch. On some machines we measured, a 4 KiB fault cost 10-20 us,
// so the first run of a model that writes 90 MiB of fresh activations spent most of its time
// in the kernel, and buffers that the C library returned to the system between runs were
// faulted in again on every run. Blocks here are never returned between runs: a freed block
// stays backed and is handed out again, so steady-state runs touch no fresh page.
//
// Blocks are split off large 2 MiB-aligned mappings by address-ordered first fit with freed
// neighbours merged: a request takes the lowest freed range that holds it, split to its size,
// so the memory a run touches stays close to its peak of live bytes, and the first run's cost
// is the memory it touches beyond what earlier runs and session creation left.
//
// Page sizes: each mapping's first 4 MiB are advised MADV_HUGEPAGE, the rest MADV_NOHUGEPAGE
// (docs/benchmarks.md, "Page sizes of the arena"). On the VMs we measure, a fresh 4 KiB page
// costs about 0.3 ms per MiB whatever the host is doing, while a fresh 2 MiB page costs 0.1 ms
// per MiB when the host still backs the memory and 2 ms per MiB when it must supply it again
// (free memory the guest reported to it). Small models' whole working set, and the buffers every
// model takes first, stay in a few huge pages (no TLB misses, few faults); the tens of MiB of a
// large model's activations no longer gamble on the host (PP-OCRv4 det's first run: 2.1x its
// steady run -> 1.2x; steady runs about 2 % slower).
//
// Pages supplied ahead: when a block takes fresh pages beyond a region's 4 MiB head, a
// background thread (started then, at SCHED_IDLE, every signal blocked) supplies the region's
// next pages by MADV_POPULATE_WRITE (Linux 5.14) in 64 KiB calls, up to 8 MiB (at most the
// touched prefix's own length) past what blocks had touched when it was asked (pages of blocks
// handed out are not asked for; a block taken meanwhile may get the call under way), so that
// the blocks a first run takes next find their pages there. On two vCPUs it runs beside the
// run's thread (docs/benchmarks.md, "Pages supplied ahead of the first run"). Costs: up to
// min(8 MiB, touched bytes) per region backed and not used; each call holds the address space
// lock (read), which an mmap of another thread waits for, and at SCHED_IDLE the thread may be
// preempted inside one on a busy machine. A forked child starts without the thread.
// VTENSOR_HOST_ARENA_AHEAD=off in the environment (read once) turns it off.
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

// Faults in the arena's huge-page head, so that a first run does not (a compiled model's
// session creation may take almost no arena memory, leaving the head's huge page to the first
// run: Silero VAD v5's first run 0.6-0.9 ms -> 0.41-0.45 ms, steady 0.1 ms). Supplies the first
// 4 MiB of the first region (created when there is none) by MADV_POPULATE_WRITE (Linux 5.14),
// which changes no byte of blocks already handed out; one call per 2 MiB, so another thread's
// mmap waits at most for one page. Nothing under VTENSOR_HOST_ARENA=off; nothing supplied on a
// kernel that refuses the advice (prefaulted_bytes stays 0). Once per process; thread-safe.
// Called by the background thread that session creation starts (base/code_pages.h).
void PrefaultHostArenaHead();

// False under VTENSOR_HOST_ARENA=off: every request then goes to the C library.
bool HostArenaEnabled();

// The bytes HostAlloc takes for a request of `bytes`: rounded up to 64 (1 for 0).
size_t HostAllocBlockBytes(size_t bytes);

struct HostMemoryStats {
  uint64_t mapped_bytes = 0;   // address space reserved from the system (mostly never touched)
  // Of it, what blocks have used, in whole pages (2 MiB in a region's first 4 MiB, 4 KiB
  // beyond): backed memory.
  uint64_t touched_bytes = 0;
  uint64_t cached_bytes = 0;   // touched bytes outside live blocks, kept for reuse
  uint64_t fresh_blocks = 0;   // blocks that touched pages no block had used before
  uint64_t reused_blocks = 0;  // blocks entirely within touched pages
  uint64_t live_bytes = 0;     // bytes in blocks handed out and not yet freed
  // Highest live_bytes since the last ResetHostMemoryPeak (or since the start): against the
  // growth of touched_bytes over the same span it says how much of the fresh memory the
  // arena's placement cost beyond the buffers live at once.
  uint64_t peak_live_bytes = 0;
  uint64_t prefaulted_bytes = 0;  // supplied by PrefaultHostArenaHead (0 before, or refused)
  uint64_t ahead_bytes = 0;       // supplied by the write-ahead thread (header)
  bool enabled = true;        // false under VTENSOR_HOST_ARENA=off
};
HostMemoryStats GetHostMemoryStats();
// Restarts peak_live_bytes from the present live_bytes. Thread-safe.
void ResetHostMemoryPeak();

}  // namespace vt
