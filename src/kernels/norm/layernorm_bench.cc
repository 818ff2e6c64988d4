// Row normalization kernels (layernorm_table.h), single-threaded: a SkipLayerNormalization of
// `--tokens` rows of hidden size H (input + skip + bias, gamma, beta, sum output) per
// iteration, every supported row next to the naive loop ONNX Runtime's CPU kernel runs (one
// pass accumulating sum and sum of squares, a second writing the output) compiled here for the
// baseline ISA, timed alternately in the same iteration. Counters: GB/s = bytes read and
// written per second by the row; x_naive = naive time over the row's time.
//
// usage: vt_layernorm_bench [--tokens=N] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "kernels/norm/layernorm_table.h"

namespace {

using vt::kernels::LayerNormKernel;
using vt::kernels::LayerNormRow;

size_t g_tokens = 64;

double Now() {  // thread CPU time: a preempted run is not charged for waiting
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The loop a straightforward kernel runs: sum and sum of squares in one pass (variance as
// E[s^2] - mean^2), then the output.
void NaiveRow(const LayerNormRow& r) {
  float mean = 0, mean_square = 0;
  for (size_t h = 0; h < r.n; ++h) {
    float v = r.x[h] + r.a[h];
    if (r.b != nullptr) v += r.b[h];
    if (r.sum != nullptr) r.sum[h] = v;
    r.y[h] = v;
    mean += v;
    mean_square += v * v;
  }
  mean /= float(r.n);
  const float d = r.rms ? std::sqrt(mean_square / float(r.n) + r.epsilon)
                        : std::sqrt(mean_square / float(r.n) - mean * mean + r.epsilon);
  for (size_t h = 0; h < r.n; ++h)
    r.y[h] = r.rms ? r.y[h] / d * r.gamma[h] : (r.y[h] - mean) / d * r.gamma[h] + r.beta[h];
}

struct Problem {
  size_t n, tokens;
  std::vector<float> x, skip, bias, gamma, beta, y, sum;
  Problem(size_t hidden, size_t t) : n(hidden), tokens(t) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    auto fill = [&](std::vector<float>& v, size_t count) {
      v.resize(count);
      for (auto& e : v) e = u(rng);
    };
    fill(x, n * tokens), fill(skip, n * tokens), fill(bias, n), fill(gamma, n), fill(beta, n);
    y.resize(n * tokens), sum.resize(n * tokens);
  }
  LayerNormRow Row(size_t t, bool rms) {
    LayerNormRow r;
    r.n = n, r.x = x.data() + t * n, r.a = skip.data() + t * n, r.b = bias.data();
    r.gamma = gamma.data(), r.beta = rms ? nullptr : beta.data();
    r.y = y.data() + t * n, r.sum = sum.data() + t * n, r.epsilon = 1e-5f, r.rms = rms;
    return r;
  }
};

void BM_SkipNorm(benchmark::State& st, const LayerNormKernel* k, size_t hidden, bool rms) {
  Problem p(hidden, g_tokens);
  double t_row = 0, t_naive = 0;
  float mean, inv;
  for (auto _ : st) {
    const double t0 = Now();
    for (size_t t = 0; t < p.tokens; ++t) k->ukernel(p.Row(t, rms), &mean, &inv);
    const double t1 = Now();
    for (size_t t = 0; t < p.tokens; ++t) NaiveRow(p.Row(t, rms));
    const double t2 = Now();
    benchmark::DoNotOptimize(p.y.data());
    t_row += t1 - t0;
    t_naive += t2 - t1;
  }
  const double bytes = double(p.tokens * hidden * 4 * sizeof(float));  // x, skip in; y, sum out
  st.counters["GB/s"] = bytes * double(st.iterations()) / t_row * 1e-9;
  st.counters["x_naive"] = t_naive / t_row;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--tokens=", 9) == 0) g_tokens = std::strtoul(argv[i] + 9, nullptr, 10);
    else rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  for (const LayerNormKernel& k : vt::kernels::LayerNormKernels()) {
    if (!k.supported()) continue;
    for (size_t hidden : {768, 1024, 2048, 3072, 4096})
      for (bool rms : {false, true})
        benchmark::RegisterBenchmark(
            (std::string(k.name) + (rms ? "/rms/" : "/layer/") + std::to_string(hidden)).c_str(),
            BM_SkipNorm, &k, hidden, rms);
  }
  benchmark::Initialize(&rc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
