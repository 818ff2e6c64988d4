// GELU-family kernels (gelu_table.h), single-threaded: `--elements` values per iteration (an
// FFN activation of tokens x intermediate size), every supported row and kind next to the
// naive loop (libm erf / tanh / exp per element, as written from the formula) compiled here
// for the baseline ISA, timed alternately in the same iteration. Counters: Gelem/s for the row;
// x_naive = naive time over the row's time.
//
// usage: vt_gelu_bench [--elements=N] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "kernels/activation/gelu_table.h"

namespace {

using vt::kernels::GeluKernel;
using vt::kernels::GeluKind;
using vt::kernels::GeluRow;

size_t g_elements = size_t{64} * 3072;

double Now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

void Naive(GeluKind kind, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    switch (kind) {
      case GeluKind::kErf: y[i] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)); break;
      case GeluKind::kTanh:
        y[i] = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        break;
      case GeluKind::kSigmoid: y[i] = v / (1.0f + std::exp(-1.702f * v)); break;
    }
  }
}

void BM_Gelu(benchmark::State& st, const GeluKernel* k, GeluKind kind) {
  std::mt19937 rng(3);
  std::normal_distribution<float> u(0, 2);
  std::vector<float> x(g_elements), y(g_elements), z(g_elements);
  for (auto& e : x) e = u(rng);
  double t_row = 0, t_naive = 0;
  for (auto _ : st) {
    GeluRow r;
    r.n = x.size(), r.x = x.data(), r.y = y.data(), r.kind = kind, r.alpha = 1.702f;
    const double t0 = Now();
    k->ukernel(r);
    const double t1 = Now();
    Naive(kind, x.data(), z.data(), x.size());
    const double t2 = Now();
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(z.data());
    t_row += t1 - t0;
    t_naive += t2 - t1;
  }
  st.counters["Gelem/s"] = double(x.size()) * double(st.iterations()) / t_row * 1e-9;
  st.counters["x_naive"] = t_naive / t_row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--elements=", 11) == 0)
      g_elements = std::strtoul(argv[i] + 11, nullptr, 10);
    else rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  const std::pair<GeluKind, const char*> kinds[] = {
      {GeluKind::kErf, "erf"}, {GeluKind::kTanh, "tanh"}, {GeluKind::kSigmoid, "sigmoid"}};
  for (const GeluKernel& k : vt::kernels::GeluKernels()) {
    if (!k.supported()) continue;
    for (const auto& [kind, name] : kinds)
      benchmark::RegisterBenchmark((std::string(k.name) + "/" + name).c_str(), BM_Gelu, &k, kind);
  }
  benchmark::Initialize(&rc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
