#include "vtensor/base/code_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

namespace vt {

namespace {

// The executable mapping of /proc/self/maps that contains `addr`: [*lo, *hi). False if none.
bool FindExecMapping(uintptr_t addr, uintptr_t* lo, uintptr_t* hi) {
  FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return false;
  char line[4096];
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) {
    unsigned long a = 0, b = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &a, &b, perms) == 3 && perms[2] == 'x' && addr >= a &&
        addr < b) {
      *lo = a;
      *hi = b;
      found = true;
    }
  }
  std::fclose(f);
  return found;
}

bool Populate() {
  uintptr_t lo = 0, hi = 0;
  return FindExecMapping(reinterpret_cast<uintptr_t>(&Populate), &lo, &hi) &&
         ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ) == 0;
}

}  // namespace

bool FaultInOwnCode() {
  static const bool done = Populate();  // thread-safe one-time initialization
  return done;
}

}  // namespace vt
