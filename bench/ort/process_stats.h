// Process clocks and memory figures of the ONNX Runtime harnesses (vtensor-ort-bench,
// vtensor-ort-generate), taken the way src/tools/process_clock.h takes them for vtensor so that
// both sides of a comparison count the same things (docs/benchmarks.md).
#pragma once

namespace vt::ortbench {

// CPU time of the calling thread in milliseconds (CLOCK_THREAD_CPUTIME_ID).
double ThreadCpuMs();

// CPU time of the whole process so far in milliseconds, every thread, user and system
// (CLOCK_PROCESS_CPUTIME_ID), as src/tools/process_clock.h's ProcessCpuMs.
double ProcessCpuMs();

// Seconds elapsed since the process started, and how the start was taken: VT_SPAWN_REALTIME
// (CLOCK_REALTIME seconds set by the launching shell just before exec, as bash's
// $EPOCHREALTIME) when present, else the kernel's start time in /proc/self/stat (clock-tick
// resolution, 10 ms). NaN when neither is readable.
double SinceStart(const char** clock_name);

// A "Key:  N kB" field of /proc/self/status (VmHWM, VmRSS) in kB; -1 when absent.
long StatusKb(const char* key);

}  // namespace vt::ortbench
