// vtensor-bench-fresh-pages: what the first touch of fresh anonymous memory costs, per MiB, in
// 4 KiB pages against 2 MiB-aligned mappings advised MADV_HUGEPAGE (the host arena's,
// base/host_memory.h), and a second touch of the same memory as the floor.
//
// Each repetition maps --mib MiB per mode, writes one byte per 4 KiB, unmaps it, and reports
// this thread's CPU time and its system share (getrusage RUSAGE_THREAD) and page faults, the
// modes alternating. --sleep S waits S seconds before each mapping: long enough for the guest
// to have reported the freed memory to its host (docs/benchmarks.md, "First run and page
// faults"), so every mapping is memory the host must supply again.
//
// usage: vtensor-bench-fresh-pages [--mib N] [--reps R] [--sleep S]
#include <fmt/core.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kSmallPage = 4096;
constexpr size_t kHugePage = size_t{2} << 20;

struct Cost {
  double cpu_ms = 0;
  double sys_ms = 0;
  long faults = 0;
};

double Ms(const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + t.tv_usec * 1e-3; }

Cost Now() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return {Ms(u.ru_utime) + Ms(u.ru_stime), Ms(u.ru_stime), u.ru_minflt + u.ru_majflt};
}

Cost Minus(const Cost& b, const Cost& a) {
  return {b.cpu_ms - a.cpu_ms, b.sys_ms - a.sys_ms, b.faults - a.faults};
}

// A mapping of `bytes` (a multiple of 2 MiB): 2 MiB-aligned and advised for huge pages when
// `huge`, else advised against them. Null on failure.
uint8_t* Map(size_t bytes, bool huge) {
  void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t at = (lo + kHugePage - 1) / kHugePage * kHugePage;
  if (at > lo) munmap(raw, at - lo);
  const uintptr_t end = lo + bytes + kHugePage;
  if (end > at + bytes) munmap(reinterpret_cast<void*>(at + bytes), end - at - bytes);
  madvise(reinterpret_cast<void*>(at), bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return reinterpret_cast<uint8_t*>(at);
}

void Touch(uint8_t* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += kSmallPage) *static_cast<volatile uint8_t*>(p + i) = 1;
}

struct Row {
  std::vector<Cost> first, second;
};

void Measure(size_t bytes, bool huge, Row* row) {
  uint8_t* p = Map(bytes, huge);
  if (p == nullptr) {
    fmt::print(stderr, "mmap of {} bytes failed\n", bytes);
    std::exit(1);
  }
  Cost a = Now();
  Touch(p, bytes);
  Cost b = Now();
  Touch(p, bytes);
  Cost c = Now();
  munmap(p, bytes);
  row->first.push_back(Minus(b, a));
  row->second.push_back(Minus(c, b));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void Print(const char* name, const std::vector<Cost>& costs, double mib) {
  std::vector<double> cpu, sys, faults;
  for (const Cost& c : costs) {
    cpu.push_back(c.cpu_ms);
    sys.push_back(c.sys_ms);
    faults.push_back(static_cast<double>(c.faults));
  }
  const auto [lo, hi] = std::minmax_element(cpu.begin(), cpu.end());
  fmt::print("{:<22} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>8.0f}\n", name,
             Median(cpu) / mib, *lo / mib, *hi / mib, Median(cpu), Median(sys), Median(faults));
}

}  // namespace

int main(int argc, char** argv) {
  size_t mib = 64;
  int reps = 5;
  double sleep_s = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mib" && i + 1 < argc) mib = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--sleep" && i + 1 < argc) sleep_s = std::atof(argv[++i]);
    else {
      fmt::print(stderr, "usage: vtensor-bench-fresh-pages [--mib N] [--reps R] [--sleep S]\n");
      return 2;
    }
  }
  const size_t bytes = (mib * (size_t{1} << 20) + kHugePage - 1) / kHugePage * kHugePage;
  Row small, huge;
  for (int r = 0; r < reps; ++r) {
    // Alternate which mode goes first: the host's state drifts within a run.
    for (int k = 0; k < 2; ++k) {
      if (sleep_s > 0) usleep(static_cast<useconds_t>(sleep_s * 1e6));
      const bool h = (r + k) % 2 == 1;
      Measure(bytes, h, h ? &huge : &small);
    }
  }
  const double m = static_cast<double>(bytes) / (1 << 20);
  fmt::print("{} MiB, {} repetitions, sleep {} s; CPU ms per MiB (median, min, max), then the "
             "median's CPU ms, system ms, faults\n", m, reps, sleep_s);
  fmt::print("{:<22} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "mode", "ms/MiB", "min", "max",
             "cpu_ms", "sys_ms", "faults");
  Print("4 KiB first touch", small.first, m);
  Print("2 MiB first touch", huge.first, m);
  Print("4 KiB second touch", small.second, m);
  Print("2 MiB second touch", huge.second, m);
  return 0;
}
