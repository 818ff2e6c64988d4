// Decode GEMM with int4 weights: weight bytes read per second for every
// supported q4_0 / q4_k table row at M = 1, 4 and 8, next to a sequential read of the same
// bytes (the bandwidth floor) measured in the same run. Each iteration uses the next of
// kCopies distinct weight matrices (about 600 MiB in all, more than the L3 cache) so that the
// weights come from DRAM, as they do in LLM decode. Single-threaded.
//
// usage: vt_q4_gemm_bench [--n=N] [--k=K] [google-benchmark flags]
//   counters: GB/s (weight bytes / thread CPU second), x_read (GB/s / the read floor's GB/s)
#include <benchmark/benchmark.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <ctime>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/read_floor.h"
#include "kernels/q4/q4_gemm.h"
#include "vtensor/base/aligned_alloc.h"

namespace {

using vt::kernels::Q4GemmKernel;

size_t g_n = 4096, g_k = 4096;
constexpr size_t kCopies = 64;
double g_read_gbps = 0;   // the fastest read floor; the floors run first
double g_floor_gbps[3] = {};  // each floor's latest run (Google Benchmark's short trial runs
                              // come first and may find the last-filled copies still in L3)

// kCopies packed copies of one weight matrix, repacked when the format or panel height changes;
// 64-byte aligned like the runtime's weights (storage.cc, weight_form.cc).
struct Pool {
  std::vector<vt::AlignedArray<uint8_t>> slots;
  size_t bytes = 0;
  std::string key;
};
Pool& GetPool() {
  static Pool p;
  return p;
}

const std::vector<float>& SourceWeights() {
  static const std::vector<float> w = [] {
    std::mt19937 g(1);
    std::normal_distribution<float> d(0.0f, 0.02f);
    std::vector<float> v(g_n * g_k);
    for (auto& x : v) x = d(g);
    return v;
  }();
  return w;
}

void Fill(bool q4k, size_t rows) {
  Pool& p = GetPool();
  const std::string key = std::string(q4k ? "q4_k/" : "q4_0/") + std::to_string(rows);
  if (p.key == key) return;
  const size_t bytes = q4k ? vt::kernels::Q4_KPackedBytes(g_n, g_k, rows)
                           : vt::kernels::Q4_0PackedBytes(g_n, g_k, rows);
  std::vector<uint8_t> packed(bytes);
  if (q4k)
    vt::kernels::PackF32NkToQ4_KPanels(g_n, g_k, SourceWeights().data(), g_k, rows,
                                       packed.data(), 2);
  else
    vt::kernels::PackF32NkToQ4_0Panels(g_n, g_k, SourceWeights().data(), g_k, rows,
                                       vt::kernels::Q4ScaleSearch::kAmax, packed.data(), 2);
  if (p.bytes < bytes) p.slots.clear();
  while (p.slots.size() < kCopies)
    p.slots.push_back(vt::AllocateAlignedArray<uint8_t>(bytes));
  for (auto& s : p.slots) std::memcpy(s.get(), packed.data(), bytes);
  p.bytes = bytes;
  p.key = key;
}

// Thread CPU time: on a shared machine a preempted run is not charged for the time it waits
// (stalls on memory still count, so bandwidth figures stay honest).
double Now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

void Report(benchmark::State& state, size_t bytes, double seconds, size_t iters, bool ratio) {
  const double gbps = double(bytes) * double(iters) / seconds * 1e-9;
  state.SetBytesProcessed(static_cast<int64_t>(bytes * iters));
  state.counters["GB/s"] = gbps;
  if (ratio && g_read_gbps > 0) state.counters["x_read"] = gbps / g_read_gbps;
}


// Sequential read of the q4_0 copies' bytes with eight independent 64-bit XOR chains, with or
// without software prefetch 2 KiB ahead, or (`avx512`) kbench's vector sum. The gemm rows'
// x_read compares against the fastest of them.
void ReadFloor(benchmark::State& state, bool prefetch, bool avx512 = false) {
  Fill(false, 16);
  Pool& p = GetPool();
  size_t slot = 0, iters = 0;
  uint64_t sink = 0;
  const size_t bytes = p.bytes / 64 * 64;
  const double t0 = Now();
  for (auto _ : state) {
    const auto* q = reinterpret_cast<const uint64_t*>(p.slots[slot].get());
#if defined(__x86_64__)
    if (avx512) {
      sink ^= vt::kernels::ReadFloorSumAvx512(q, bytes / 8);
      benchmark::DoNotOptimize(sink);
      slot = (slot + 1) % kCopies;
      ++iters;
      continue;
    }
#endif
    uint64_t acc[8] = {};
    for (size_t i = 0; i < bytes / 8; i += 8) {
      if (prefetch) __builtin_prefetch(q + i + 288, 0, 3);
      for (size_t j = 0; j < 8; ++j) acc[j] ^= q[i + j];
    }
    for (uint64_t a : acc) sink ^= a;
    benchmark::DoNotOptimize(sink);
    slot = (slot + 1) % kCopies;
    ++iters;
  }
  const double secs = Now() - t0;
  g_floor_gbps[avx512 ? 2 : prefetch ? 1 : 0] = double(bytes) * double(iters) / secs * 1e-9;
  g_read_gbps = *std::max_element(std::begin(g_floor_gbps), std::end(g_floor_gbps));
  Report(state, bytes, secs, iters, false);
}

void BM_Gemm(benchmark::State& state, const Q4GemmKernel* kernel, bool q4k, size_t m) {
  Fill(q4k, kernel->rows);
  Pool& p = GetPool();
  std::mt19937 g(2);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(m * g_k), y(m * g_n);
  for (auto& v : x) v = d(g);
  size_t slot = 0, iters = 0;
  const double t0 = Now();
  for (auto _ : state) {
    if (q4k)
      vt::kernels::Q4_KGemm(*kernel, m, g_n, g_k, x.data(), g_k, p.slots[slot].get(), nullptr,
                            y.data(), g_n);
    else
      vt::kernels::Q4_0Gemm(*kernel, m, g_n, g_k, x.data(), g_k, p.slots[slot].get(), nullptr,
                            y.data(), g_n);
    benchmark::DoNotOptimize(y.data());
    slot = (slot + 1) % kCopies;
    ++iters;
  }
  const double secs = Now() - t0;
  Report(state, p.bytes, secs, iters, true);
  state.counters["GFLOP/s"] = 2.0 * m * g_n * g_k * iters / secs * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--n=", 4)) g_n = std::strtoul(argv[i] + 4, nullptr, 10);
    else if (!std::strncmp(argv[i], "--k=", 4)) g_k = std::strtoul(argv[i] + 4, nullptr, 10);
    else rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  benchmark::Initialize(&rc, rest.data());
  const std::string dims = std::to_string(g_n) + "x" + std::to_string(g_k);
  benchmark::RegisterBenchmark(("read_floor/" + dims).c_str(),
                               [](benchmark::State& s) { ReadFloor(s, false); });
  benchmark::RegisterBenchmark(("read_floor_prefetch/" + dims).c_str(),
                               [](benchmark::State& s) { ReadFloor(s, true); });
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    benchmark::RegisterBenchmark(("read_floor_avx512/" + dims).c_str(),
                                 [](benchmark::State& s) { ReadFloor(s, true, true); });
#endif
  for (bool q4k : {false, true})
    for (const auto& k : q4k ? vt::kernels::Q4_KGemmKernels() : vt::kernels::Q4_0GemmKernels()) {
      if (!k.supported()) continue;
      for (size_t m : {1, 4, 8})
        benchmark::RegisterBenchmark(
            (std::string(k.name) + "/M:" + std::to_string(m) + "/" + dims).c_str(),
            [&k, q4k, m](benchmark::State& s) { BM_Gemm(s, &k, q4k, m); });
    }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
