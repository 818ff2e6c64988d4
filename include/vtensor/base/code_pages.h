// Bringing vtensor's own machine code in ahead of the first run.
//
// Code executed for the first time costs twice on the virtual machines we measure (a PVM guest,
// docs/benchmarks.md "Where the first run's time goes: code pages"): a guest page fault per 64 KiB
// (the kernel maps the file's cached pages around the faulting one, 50-100 us), and, even once
// the guest maps the page, about 2.2 us per 4 KiB page on its first access, when the hypervisor
// fills its shadow of the process's page table. MADV_POPULATE_READ removes the first cost only;
// only an access by the CPU removes the second. A model's first run meets both on every page of
// code no earlier work in the process executed: about 0.35 ms of Silero VAD v5's 0.73 ms first
// run (0.085 ms steady).
#pragma once

#include <cstddef>

namespace vt {

// How FaultInOwnCode treats the code mapping, from the environment variable VTENSOR_CODE_PAGES.
enum class CodePageMode {
  kOff,       // "off" or "0": pages fault in as the code first runs
  kPopulate,  // "populate": mapped (MADV_POPULATE_READ) on the calling thread, about 0.6 ms
  kTouch,     // unset or anything else: read by a background thread (below)
};
// The mode that `value` (VTENSOR_CODE_PAGES's value, null when unset) names.
CodePageMode CodePageModeFrom(const char* value);

// Once per process, by the mode VTENSOR_CODE_PAGES names (read at the first call): kTouch starts
// a detached background thread that reads one byte of each 4 KiB page of the executable mapping
// holding vtensor's code (the pages come from the page cache, nothing is read twice; each read
// maps the page into the process and makes the hypervisor's shadow of it), so that both costs
// are paid before a run executes the page. About 6 ms of that thread's CPU time for vtensor's 9.7 MiB of code,
// overlapping session creation on another core when one is idle (where none is, it shares the
// creating thread's: a few ms more of creation); the caller pays the thread's start (tens of
// us). Before the code, the thread supplies the host arena's first 4 MiB
// (base/host_memory.h PrefaultHostArenaHead), which a compiled model's first run would otherwise
// fault in. If the thread cannot be started the pages are populated on the calling thread, as
// kPopulate does (the arena's head is then left to the runs, as under kOff and kPopulate).
// Later calls return the first call's result at once; thread-safe. Returns false when nothing was
// done: kOff, or a kernel without MADV_POPULATE_READ (before Linux 5.14) or without /proc.
bool FaultInOwnCode();

// Progress of kTouch's background thread: pages of the code mapping, pages read so far, and
// whether it has finished. All zero / false before FaultInOwnCode starts it, or in another mode.
struct OwnCodeProgress {
  size_t pages = 0;
  size_t touched = 0;
  bool done = false;
};
OwnCodeProgress GetOwnCodeProgress();

}  // namespace vt
