// Attention kernels (attention_table.h), single-threaded, each supported row next to a baseline
// measured in the same run:
//  * decode: one query row per head (GQA group g: g query heads share the KV head) against
//    `--keys` keys of a BNSH KV cache. Each iteration reads the next of several distinct caches
//    (more than the L3 cache in all) so K and V come from DRAM, as in LLM decode; "cached"
//    rows reuse one cache. Counter GB/s = K + V bytes per second; x_read = GB/s over the
//    sequential read floor (kernels/cpu/read_floor.h) of the same bytes.
//  * prefill: S query rows x S keys, plain and causal. GFLOP/s counts 2 (D + Dv) flops per
//    visible (query, key) pair; x_gemm = time of the materialised path an operator without
//    this family would run (vt's f32 GEMM for Q K^T, a scalar softmax, GEMM for P V) over the
//    row's time.
//
// usage: vt_attention_bench [--keys=N] [--prefill=S] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/attention/attention_table.h"
#include "kernels/cpu/flush_denormals.h"
#include "kernels/cpu/read_floor.h"
#include "kernels/gemm/f32_gemm.h"
#include "vtensor/base/aligned_alloc.h"
#include "vtensor/layout/dtype.h"

namespace {

using vt::kernels::AttentionCall;
using vt::kernels::AttentionKernel;
using vt::kernels::AttentionKv;

size_t g_keys = 2048, g_prefill = 128;
constexpr size_t kCacheBytes = size_t{192} << 20;  // all decode copies together
double g_read_gbps = 0;

double Now() {  // thread CPU time: a preempted run is not charged for waiting
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

using Bytes = vt::AlignedArray<uint8_t>;
Bytes Alloc(size_t n) { return vt::AllocateAlignedArray<uint8_t>(n); }

// Distinct K|V caches of one KV head ([keys, D] K then [keys, D] V), random values.
struct Caches {
  std::vector<Bytes> slots;
  size_t bytes = 0;
  std::string key;
};
Caches& GetCaches(size_t d, AttentionKv type, bool cached) {
  static Caches c;
  const std::string key = std::to_string(d) + (type == AttentionKv::kF16 ? "h" : "f") +
                          (cached ? "c" : "");
  if (c.key == key) return c;
  const size_t elem = type == AttentionKv::kF16 ? 2 : 4;
  c.bytes = 2 * g_keys * d * elem;
  const size_t copies = cached ? 1 : std::max<size_t>(8, kCacheBytes / c.bytes);
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint8_t> src(c.bytes);
  for (size_t i = 0; i < c.bytes / elem; ++i) {
    const float x = u(g);
    if (elem == 2) {
      const uint16_t h = vt::FloatToHalf(x);
      std::memcpy(src.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(src.data() + 4 * i, &x, 4);
    }
  }
  c.slots.clear();
  for (size_t s = 0; s < copies; ++s) {
    c.slots.push_back(Alloc(c.bytes));
    std::memcpy(c.slots.back().get(), src.data(), c.bytes);
  }
  c.key = key;
  return c;
}

void ReadFloor(benchmark::State& state) {
  Caches& c = GetCaches(128, AttentionKv::kF32, false);
  size_t slot = 0, iters = 0;
  uint64_t sink = 0;
  const double t0 = Now();
  for (auto _ : state) {
    sink ^= vt::kernels::ReadFloorSumAvx512(reinterpret_cast<const uint64_t*>(c.slots[slot].get()),
                                            c.bytes / 8);
    benchmark::DoNotOptimize(sink);
    slot = (slot + 1) % c.slots.size();
    ++iters;
  }
  const double gbps = double(c.bytes) * double(iters) / (Now() - t0) * 1e-9;
  g_read_gbps = std::max(g_read_gbps, gbps);
  state.counters["GB/s"] = gbps;
}

void Decode(benchmark::State& state, const AttentionKernel* k, size_t d, size_t group,
            AttentionKv type, bool cached) {
  Caches& c = GetCaches(d, type, cached);
  const size_t elem = type == AttentionKv::kF16 ? 2 : 4;
  std::vector<float> q(group * d, 0.05f), out(group * d);
  std::vector<float> scratch(vt::kernels::AttentionScratchFloats(group, d));
  AttentionCall call;
  call.heads = group, call.rows = 1, call.head_size = call.v_head_size = d;
  call.q = q.data(), call.q_head_stride = d, call.q_row_stride = d, call.kv_type = type;
  call.k_row_stride = call.v_row_stride = d, call.out = out.data();
  call.out_head_stride = call.out_row_stride = d, call.kv_end = g_keys;
  call.q_pos = static_cast<int64_t>(g_keys) - 1, call.causal = true;
  call.scale = 1.0f / std::sqrt(float(d));
  vt::kernels::ScopedFlushDenormals ftz;
  size_t slot = 0, iters = 0;
  const double t0 = Now();
  for (auto _ : state) {
    call.k = c.slots[slot].get();
    call.v = c.slots[slot].get() + g_keys * d * elem;
    k->ukernel(call, scratch.data());
    benchmark::DoNotOptimize(out.data());
    slot = (slot + 1) % c.slots.size();
    ++iters;
  }
  const double gbps = double(c.bytes) * double(iters) / (Now() - t0) * 1e-9;
  state.counters["GB/s"] = gbps;
  if (!cached && g_read_gbps > 0) state.counters["x_read"] = gbps / g_read_gbps;
}

// The materialised path: S = scale Q K^T (GEMM), row softmax with masks, O = P V (GEMM).
void MaterializedAttention(size_t s, size_t d, bool causal, const float* q, const float* k,
                           const float* v, float* scores, float* o) {
  vt::kernels::F32GemmA a;
  a.data = q, a.ld = d;
  vt::kernels::F32GemmB b;
  b.kind = vt::kernels::F32GemmB::Kind::kNk, b.data = k, b.ld = d;
  vt::kernels::F32GemmEpilogue ep;
  ep.alpha = 1.0f / std::sqrt(float(d));
  vt::kernels::F32Gemm(s, s, d, a, b, scores, s, ep);
  for (size_t i = 0; i < s; ++i) {
    float* r = scores + i * s;
    const size_t n = causal ? i + 1 : s;
    float m = r[0], sum = 0.0f;
    for (size_t j = 1; j < n; ++j) m = std::max(m, r[j]);
    for (size_t j = 0; j < n; ++j) sum += r[j] = std::exp(r[j] - m);
    for (size_t j = 0; j < n; ++j) r[j] /= sum;
    for (size_t j = n; j < s; ++j) r[j] = 0.0f;
  }
  a.data = scores, a.ld = s;
  b.kind = vt::kernels::F32GemmB::Kind::kKn, b.data = v, b.ld = d;
  vt::kernels::F32Gemm(s, d, s, a, b, o, d, vt::kernels::F32GemmEpilogue{});
}

void Prefill(benchmark::State& state, const AttentionKernel* k, size_t d, bool causal) {
  const size_t s = g_prefill;
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> q(s * d), kv(2 * s * d), out(s * d), scores(s * s);
  for (auto& x : q) x = u(g);
  for (auto& x : kv) x = u(g);
  std::vector<float> scratch(vt::kernels::AttentionScratchFloats(s, d));
  AttentionCall call;
  call.rows = s, call.head_size = call.v_head_size = d, call.q = q.data(), call.q_row_stride = d;
  call.k = kv.data(), call.v = kv.data() + s * d, call.k_row_stride = call.v_row_stride = d;
  call.out = out.data(), call.out_row_stride = d, call.kv_end = s, call.causal = causal;
  call.scale = 1.0f / std::sqrt(float(d));
  vt::kernels::ScopedFlushDenormals ftz;
  // Baseline and row alternate inside the loop so that both see the same machine state.
  double t_row = 0, t_base = 0;
  size_t iters = 0;
  for (auto _ : state) {
    const double t0 = Now();
    MaterializedAttention(s, d, causal, q.data(), kv.data(), kv.data() + s * d, scores.data(),
                          out.data());
    const double t1 = Now();
    k->ukernel(call, scratch.data());
    benchmark::DoNotOptimize(out.data());
    t_row += Now() - t1, t_base += t1 - t0;
    ++iters;
  }
  const double pairs = causal ? double(s) * (s + 1) / 2 : double(s) * s;
  state.counters["GFLOP/s"] = 4.0 * d * pairs * double(iters) / t_row * 1e-9;
  state.counters["x_gemm"] = t_base / t_row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--keys=", 7)) g_keys = std::strtoul(argv[i] + 7, nullptr, 10);
    else if (!std::strncmp(argv[i], "--prefill=", 10)) g_prefill = std::strtoul(argv[i] + 10, nullptr, 10);
    else rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  benchmark::Initialize(&rc, rest.data());
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) benchmark::RegisterBenchmark("read_floor", ReadFloor);
  const std::string keys = std::to_string(g_keys), pre = std::to_string(g_prefill);
  for (const AttentionKernel& k : vt::kernels::AttentionKernels()) {
    if (!k.supported()) continue;
    for (bool cached : {false, true})
      for (AttentionKv type : {AttentionKv::kF32, AttentionKv::kF16})
        for (size_t d : {64, 128})
          for (size_t group : {1, 4}) {
            const std::string name = std::string(k.name) + "/decode" + (cached ? "_cached" : "") +
                                     "/" + (type == AttentionKv::kF16 ? "f16" : "f32") + "/g" +
                                     std::to_string(group) + "/1x" + keys + "/D" +
                                     std::to_string(d);
            benchmark::RegisterBenchmark(name.c_str(), [&k, d, group, type, cached](benchmark::State& s) {
              Decode(s, &k, d, group, type, cached);
            });
          }
    for (bool causal : {false, true})
      for (size_t d : {64, 128}) {
        std::string name = k.name;
        name.append("/prefill").append(causal ? "_causal" : "").append("/").append(pre);
        name.append("x").append(pre).append("/D").append(std::to_string(d));
        benchmark::RegisterBenchmark(name.c_str(), [&k, d, causal](benchmark::State& s) {
          Prefill(s, &k, d, causal);
        });
      }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
