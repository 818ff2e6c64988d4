// Starting the calling thread's OpenMP team before the first run.
//
// The first parallel region a thread enters initialises its team in the OpenMP runtime
// (libgomp: the team and thread-pool structures, the pool's threads when the team has more than
// one) and runs the runtime's code for the first time: 20-150 us for a one-thread team on the VM
// we measure, paid by the first run's first multi-threaded kernel when session creation entered
// no parallel region (docs/benchmarks.md, "Where the first run's time goes: code pages").
#pragma once

namespace vt {

// Enters and leaves one empty parallel region of `threads` threads (>= 1) on the calling thread,
// so that its team exists when a run on this thread needs it. The caller's default team size
// (omp_set_num_threads) is left as it was. Idle pool threads stay with the OpenMP runtime, as
// after any parallel region.
void StartThreadTeam(int threads);

}  // namespace vt
