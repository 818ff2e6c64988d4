#include "process_stats.h"

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vt::ortbench {
namespace {

double Seconds(clockid_t id) {
  timespec ts;
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}
double RealtimeSeconds() { return Seconds(CLOCK_REALTIME); }

}  // namespace

double ThreadCpuMs() { return Seconds(CLOCK_THREAD_CPUTIME_ID) * 1e3; }

double ProcessCpuMs() { return Seconds(CLOCK_PROCESS_CPUTIME_ID) * 1e3; }

double SinceStart(const char** clock_name) {
  if (const char* e = std::getenv("VT_SPAWN_REALTIME"); e && *e) {
    char* end = nullptr;
    const double t0 = std::strtod(e, &end);
    if (end != e && *end == '\0') {
      *clock_name = "VT_SPAWN_REALTIME";
      return RealtimeSeconds() - t0;
    }
  }
  *clock_name = "proc-stat";
  FILE* f = std::fopen("/proc/self/stat", "r");
  if (!f) return NAN;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // Field 22 (starttime, clock ticks after boot); fields after the ')' of comm are plain.
  const char* p = std::strrchr(buf, ')');
  if (!p) return NAN;
  unsigned long long start_ticks = 0;
  int field = 2;
  for (const char* q = p + 1; *q && field < 22; ++q)
    if (*q == ' ' && ++field == 22) start_ticks = std::strtoull(q + 1, nullptr, 10);
  timespec boot;
  clock_gettime(CLOCK_BOOTTIME, &boot);
  return boot.tv_sec + boot.tv_nsec * 1e-9 - static_cast<double>(start_ticks) / sysconf(_SC_CLK_TCK);
}

long StatusKb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long v = -1;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      v = std::atol(line + n + 1);
      break;
    }
  std::fclose(f);
  return v;
}

}  // namespace vt::ortbench
