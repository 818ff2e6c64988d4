#include "tools/process_clock.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vt::cli {

namespace {

double Seconds(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Field 22 of /proc/self/stat (starttime, clock ticks after boot) in seconds, or NaN. The
// fields after the ')' that closes comm are space-separated numbers and states.
double ProcStartSeconds() {
  FILE* f = std::fopen("/proc/self/stat", "r");
  if (!f) return NAN;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (!p) return NAN;
  int field = 2;
  for (const char* q = p + 1; *q; ++q)
    if (*q == ' ' && ++field == 22)
      return static_cast<double>(std::strtoull(q + 1, nullptr, 10)) / sysconf(_SC_CLK_TCK);
  return NAN;
}

}  // namespace

double MsSinceProcessStart(const char** clock_name) {
  if (const char* e = std::getenv("VT_SPAWN_REALTIME"); e && *e) {
    char* end = nullptr;
    const double t0 = std::strtod(e, &end);
    if (end != e && *end == '\0') {
      *clock_name = "VT_SPAWN_REALTIME";
      return (Seconds(CLOCK_REALTIME) - t0) * 1e3;
    }
  }
  *clock_name = "proc-stat";
  return (Seconds(CLOCK_BOOTTIME) - ProcStartSeconds()) * 1e3;
}

int64_t PageFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_minflt) + u.ru_majflt;
}

double ThreadSysMs() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_stime.tv_sec) * 1e3 + static_cast<double>(u.ru_stime.tv_usec) * 1e-3;
}

double ThreadCpuMs() { return Seconds(CLOCK_THREAD_CPUTIME_ID) * 1e3; }

double ProcessCpuMs() { return Seconds(CLOCK_PROCESS_CPUTIME_ID) * 1e3; }

}  // namespace vt::cli
