// Faulting in vtensor's own machine code ahead of the first run.
//
// Each 64 KiB of code executed for the first time costs a page fault (the kernel maps the
// file's cached pages around the faulting one). On the virtual machines we measure such a
// fault costs 50-100 us, and a model's first run meets one for almost every operator type: the
// first run of a 0.7 ms model spent 0.9 ms in them (docs/benchmarks.md, "First run").
#pragma once

namespace vt {

// Maps every page of the executable mapping that holds vtensor's code into this process
// (madvise MADV_POPULATE_READ; the pages come from the page cache, nothing is read twice).
// Runs once per process, later calls return its result at once; thread-safe. Costs about 0.6 ms
// for 7 MiB of code. Returns false when the pages were left to fault in as before (a kernel
// without MADV_POPULATE_READ, before Linux 5.14, or no /proc): not an error.
bool FaultInOwnCode();

}  // namespace vt
