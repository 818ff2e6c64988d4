// Time since this process started, for "time to first result" figures (`vtensor bench`), taken
// the same way by bench/ort/ort_bench_main.cc so that both sides of scripts/compare_ort.sh count
// exec, dynamic loading and static initialization.
#pragma once

#include <cstdint>

namespace vt::cli {

// Milliseconds from process start to now. The start is VT_SPAWN_REALTIME when set (CLOCK_REALTIME
// seconds as a decimal, e.g. bash's $EPOCHREALTIME, taken by the launching shell just before
// exec), else the kernel's start time of the process (/proc/self/stat, clock-tick resolution:
// 10 ms). *clock_name is set to "VT_SPAWN_REALTIME" or "proc-stat". NaN when neither is readable.
double MsSinceProcessStart(const char** clock_name);

// CPU time of the calling thread in milliseconds (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuMs();

// CPU time of the whole process so far in milliseconds, every thread, user and system
// (CLOCK_PROCESS_CPUTIME_ID): since exec, dynamic loading included. Unlike the time since
// start, it leaves out the time other processes held the cores.
double ProcessCpuMs();

// System (kernel) CPU time of the calling thread in milliseconds (getrusage RUSAGE_THREAD:
// page faults, zeroing of fresh pages, system calls). The kernel splits the thread's CPU time
// into user and system time by scheduler-tick samples, so a difference of two readings means
// something over tens of milliseconds, not below.
double ThreadSysMs();

// Page faults (minor + major) of this process so far (getrusage).
int64_t PageFaults();

}  // namespace vt::cli
