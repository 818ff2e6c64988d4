// Load-time packing speed of every weight form's pack function against its scalar reference
// twin and a memcpy of the same bytes (the memory-speed floor), in the same run, into buffers
// that are already faulted in (fresh-page cost is bench-load's "fresh pages" row). Source
// GB/s; ratios to the memcpy floor. Single thread (thread CPU time, best of --reps) unless
// --threads T is given (then wall time).
//
// usage: vt_f32_pack_bench [--threads T] [--reps R]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"
#include "kernels/gemm/f32_gemm_pack.h"
#include "kernels/int8/s8_per_channel_pack.h"
#include "kernels/nbits/nbits_pack.h"

namespace {

using namespace vt::kernels;

bool g_wall = false;
double Seconds() {
  if (g_wall)
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double Best(int reps, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const double t0 = Seconds();
    f();
    best = std::min(best, Seconds() - t0);
  }
  return best;
}

void Row(const char* name, size_t src_bytes, size_t out_bytes, int reps,
         const std::function<void()>& pack, const std::function<void()>& ref, const void* src,
         void* dst) {
  const double floor = Best(reps, [&] { std::memcpy(dst, src, std::min(src_bytes, out_bytes)); });
  const double t = Best(reps, pack), r = Best(reps, ref);
  const double gb = src_bytes / 1e9;
  std::printf("%-34s %8.1f %9.2f %9.2f %9.2f %8.2f %8.2f\n", name, src_bytes / 1048576.0, gb / t,
              gb / r, gb / floor, t / floor, r / t);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: vt_f32_pack_bench [--threads T] [--reps R]\n");
      return 2;
    }
  }
  g_wall = threads > 1;
  omp_set_num_threads(threads);
  std::mt19937 g(1);
  std::uniform_real_distribution<float> d(-1, 1);
  const size_t K = 4096, N = 4096;
  std::vector<float> src(K * N);
  for (auto& x : src) x = d(g);
  std::vector<float> dst(F32PanelsSize(64, K, N) + 64, 1.0f);
  std::vector<float> sc(N + 64, 1.0f);
  std::printf("threads %d, best of %d; GB/s of source bytes; floor = memcpy of the same bytes\n",
              threads, reps);
  std::printf("%-34s %8s %9s %9s %9s %8s %8s\n", "form", "src MiB", "pack", "reference",
              "memcpy", "/floor", "ref/pack");
  const size_t bytes = K * N * sizeof(float);
  for (size_t nr : {size_t{32}, size_t{64}}) {
    const std::string n = "f32 gemm B [K,N] nr=" + std::to_string(nr);
    Row(n.c_str(), bytes, bytes, reps,
        [&] { PackF32GemmKnToPanelsNr(nr, K, N, src.data(), N, dst.data()); },
        [&] { PackF32PanelsReference(nr, K, N, src.data(), N, 1, dst.data(), K * nr); },
        src.data(), dst.data());
  }
  Row("f32 gemm B [N,K] nr=32", bytes, bytes, reps,
      [&] { PackF32GemmNkToPanelsNr(32, K, N, src.data(), K, dst.data()); },
      [&] { PackF32PanelsReference(32, K, N, src.data(), 1, K, dst.data(), K * 32); },
      src.data(), dst.data());
  // 3x3 conv filters, 512 -> 512 channels, 9 taps: [M = 512*8, C = 512, 9] is 72 MiB.
  const size_t M = 4096, C = 512, taps = 9;
  std::vector<float> cw(M * C * taps);
  for (auto& x : cw) x = d(g);
  std::vector<float> cdst(F32PanelsSize(8, C * taps, M), 1.0f);
  Row("f32 conv filters tap-major mr=8", cw.size() * 4, cdst.size() * 4, reps,
      [&] { PackF32ConvFiltersTapMajorToPanelsMr(8, M, C, taps, cw.data(), cdst.data()); },
      [&] { PackF32ConvFiltersTapMajorToPanelsMrReference(8, M, C, taps, cw.data(), cdst.data()); },
      cw.data(), cdst.data());
  auto* q = reinterpret_cast<int8_t*>(dst.data());
  for (bool t : {false, true})
    Row(t ? "s8 per-channel B [N,K] nr=32" : "s8 per-channel B [K,N] nr=32", bytes, bytes / 4,
        reps, [&] { QuantizeF32ToS8PerChannelPanels(32, K, N, src.data(), t, q, sc.data()); },
        [&] { QuantizeF32ToS8PerChannelPanelsReference(32, K, N, src.data(), t, q, sc.data()); },
        src.data(), dst.data());
  // MatMulNBits codes: N = 4096 rows of 128 blocks of 16 bytes (K = 4096, block 32, 4 bits).
  const auto* u8 = reinterpret_cast<const uint8_t*>(src.data());
  auto* o8 = reinterpret_cast<uint8_t*>(dst.data());
  const size_t rows = 4096 * 4, cols = 128, unit = 16;  // 32 MiB plane
  Row("nbits codes plane unit=16", rows * cols * unit, rows * cols * unit, reps,
      [&] { PackNBitsRowsToPanels(rows, cols, unit, u8, o8); },
      [&] { PackNBitsRowsToPanelsReference(rows, cols, unit, u8, o8); }, u8, o8);
  Row("nbits scales plane unit=4", rows * cols * 4, rows * cols * 4, reps,
      [&] { PackNBitsRowsToPanels(rows, cols, 4, u8, o8); },
      [&] { PackNBitsRowsToPanelsReference(rows, cols, 4, u8, o8); }, u8, o8);
  return 0;
}
