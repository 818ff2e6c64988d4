// f32 GEMM benchmark driven by the kernel table: GFLOP/s of every supported kernel on a set of
// shapes, single-threaded unless --threads is given, with the ratio to the portable kernel
// measured in the same run; multi-panel rows (F32GemmKernel::a_panels > 1) also against the
// same row given one A panel per call, as the driver did before. Times are the best of --reps runs (thread CPU time when
// single-threaded, so that other processes on a shared machine distort less).
//
// usage: vt_f32_gemm_bench [--threads T] [--reps R] [M N K [bmode]]...
//   bmode: panels (prepacked B, default), kn (B read in place), knp (B rows packed per
//   call), nk (transposed B), apkn (B read in place, A prepacked in the kernel's MR panels: a
//   convolution against its packed filter)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "kernels/gemm/f32_gemm.h"

namespace {

using vt::kernels::F32Gemm;
using vt::kernels::F32GemmA;
using vt::kernels::F32GemmB;
using vt::kernels::F32GemmEpilogue;
using vt::kernels::F32GemmKernel;
using vt::kernels::F32Panels;

// Process CPU time when single-threaded (robust on a shared machine), wall time otherwise.
bool g_wall = false;
double Seconds() {
  if (g_wall)
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

struct Shape {
  size_t m, n, k;
  std::string bmode;
};

double Run(const F32GemmKernel& kr, const Shape& s, int threads, int reps) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
  for (auto& x : a) x = d(g);
  for (auto& x : b) x = d(g);
  F32Panels bp = vt::kernels::MakeF32PanelsFromKn(kr.nr, s.k, s.n, b.data(), s.n);
  F32GemmA A{F32GemmA::Kind::kMk, a.data(), s.k, nullptr};
  F32Panels ap;
  if (s.bmode == "apkn") {
    ap = vt::kernels::MakeF32PanelsFromMk(kr.mr, s.m, s.k, a.data(), s.k);
    A = {F32GemmA::Kind::kPanels, nullptr, 0, &ap};
  }
  F32GemmB B;
  if (s.bmode == "kn" || s.bmode == "knp" || s.bmode == "apkn") {
    B = {F32GemmB::Kind::kKn, b.data(), s.n};
    B.pack_rows = s.bmode == "knp";
  } else if (s.bmode == "nk") {
    B = {F32GemmB::Kind::kNk, b.data(), s.k};
  } else {
    B = {F32GemmB::Kind::kPanels, nullptr, 0, &bp};
  }
  F32GemmEpilogue ep;
  // Small GEMMs are timed over several calls: one call of a few microseconds would be
  // dominated by reading the clock (a system call for the thread CPU time).
  const double flops = 2.0 * s.m * s.n * s.k;
  const int calls = static_cast<int>(std::clamp(4e6 / std::max(flops, 1.0), 1.0, 1000.0));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = Seconds();
    for (int i = 0; i < calls; ++i) F32Gemm(kr, s.m, s.n, s.k, A, B, c.data(), s.n, ep, threads);
    best = std::min(best, (Seconds() - t0) / calls);
  }
  return flops / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 10;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (i + 2 < argc) {
      Shape s{std::strtoul(argv[i], nullptr, 10), std::strtoul(argv[i + 1], nullptr, 10),
              std::strtoul(argv[i + 2], nullptr, 10), "panels"};
      i += 2;
      if (i + 1 < argc && (!std::strcmp(argv[i + 1], "kn") || !std::strcmp(argv[i + 1], "nk") ||
                           !std::strcmp(argv[i + 1], "knp") || !std::strcmp(argv[i + 1], "apkn") ||
                           !std::strcmp(argv[i + 1], "panels")))
        s.bmode = argv[++i];
      shapes.push_back(s);
    }
  }
  g_wall = threads > 1;
  if (shapes.empty())
    shapes = {{1024, 1024, 1024, "panels"}, {1024, 1024, 1024, "kn"}, {64, 6400, 64, "kn"},
              {40, 6625, 120, "panels"}, {1, 4096, 1024, "panels"},
              // Convolutions down to a few output positions (Silero VAD's encoder): the narrow
              // rows.
              {128, 3, 387, "apkn"}, {64, 2, 384, "apkn"}, {128, 1, 192, "apkn"},
              {258, 3, 256, "apkn"}};
  const F32GemmKernel& base = vt::kernels::PortableF32GemmKernel();
  std::printf("%-24s %-22s %10s %8s\n", "kernel", "M x N x K (B)", "GFLOP/s", "vs base");
  for (const auto& s : shapes) {
    const double g0 = Run(base, s, threads, std::max(1, reps / 3));
    char dims[64];
    std::snprintf(dims, sizeof dims, "%zux%zux%zu (%s)", s.m, s.n, s.k, s.bmode.c_str());
    for (const auto& kr : vt::kernels::F32GemmKernels()) {
      if (!kr.supported()) continue;
      const double gf = &kr == &base ? g0 : Run(kr, s, threads, reps);
      std::printf("%-24s %-22s %10.1f %7.2fx\n", kr.name, dims, gf, gf / g0);
      if (kr.a_panels > 1) {
        F32GemmKernel one = kr;
        one.a_panels = 1;
        const double g1 = Run(one, s, threads, reps);
        std::printf("%-24s %-22s %10.1f %7.2fx  (%.2fx of one panel per call)\n", "  one panel/call",
                    dims, g1, g1 / g0, gf / g1);
      }
    }
  }
  return 0;
}
