#include "vtensor/base/code_pages.h"
#include "vtensor/base/detached_thread.h"
#include "vtensor/base/host_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

namespace vt {

namespace {

constexpr uintptr_t kPage = 4096;

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

// The background thread's range and progress (OwnCodeProgress).
struct Touch {
  uintptr_t lo = 0, hi = 0;           // written before the thread starts
  std::atomic<size_t> pages{0};        // published once the thread runs
  std::atomic<size_t> touched{0};
  std::atomic<bool> done{false};
};
Touch& TheTouch() {
  static Touch t;
  return t;
}

bool Populate(uintptr_t lo, uintptr_t hi) {
  return ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ) == 0;
}

void* TouchPages(void* arg) {
  auto* t = static_cast<Touch*>(arg);
  PrefaultHostArenaHead();
  // No MADV_POPULATE_READ here: it holds the address-space lock for its whole range, and this
  // thread preempted inside it stalls the creating thread's mmap calls (session creation took 4
  // ms longer on a loaded VM). A read faults the guest page (and its neighbours) in under a
  // per-VMA lock, briefly. Normal priority: at nice 19 on a loaded machine it was still reading
  // during the first runs, whose own page accesses then waited on it (Silero v5 steady runs 4%
  // slower, first run 0.4 against 0.3 ms).
  unsigned sum = 0;
  for (uintptr_t p = t->lo; p < t->hi; p += kPage) {
    sum += *reinterpret_cast<const volatile unsigned char*>(p);
    t->touched.fetch_add(1, std::memory_order_relaxed);
  }
  asm volatile("" : : "r"(sum));  // the reads are the point; keep them
  t->done.store(true, std::memory_order_release);
  return nullptr;
}

// Starts TouchPages on a detached thread (base/detached_thread.h). False if the thread could
// not be created.
bool StartTouchThread(Touch* t) { return StartDetachedThread(TouchPages, t); }

bool Start() {
  const CodePageMode mode = CodePageModeFrom(std::getenv("VTENSOR_CODE_PAGES"));
  if (mode == CodePageMode::kOff) return false;
  uintptr_t lo = 0, hi = 0;
  if (!FindExecMapping(reinterpret_cast<uintptr_t>(&Start), &lo, &hi)) return false;
  if (mode == CodePageMode::kTouch) {
    Touch& t = TheTouch();
    t.lo = lo;
    t.hi = hi;
    if (StartTouchThread(&t)) {
      t.pages.store(static_cast<size_t>((hi - lo) / kPage), std::memory_order_relaxed);
      return true;
    }
  }
  return Populate(lo, hi);
}

}  // namespace

CodePageMode CodePageModeFrom(const char* value) {
  if (value == nullptr) return CodePageMode::kTouch;
  if (std::strcmp(value, "off") == 0 || std::strcmp(value, "0") == 0) return CodePageMode::kOff;
  if (std::strcmp(value, "populate") == 0) return CodePageMode::kPopulate;
  return CodePageMode::kTouch;
}

bool FaultInOwnCode() {
  static const bool done = Start();  // thread-safe one-time initialization
  return done;
}

OwnCodeProgress GetOwnCodeProgress() {
  const Touch& t = TheTouch();
  OwnCodeProgress p;
  p.pages = t.pages.load(std::memory_order_relaxed);
  p.touched = t.touched.load(std::memory_order_relaxed);
  p.done = t.done.load(std::memory_order_acquire);
  return p;
}

}  // namespace vt
