// Phase-plane building (kernels/conv/f32_conv_pack.h) as the depthwise path runs it: band by
// band of output rows, channel by channel (C = 1 per call, the next channel's rows prefetched,
// as ops/nn/conv_dw_pw.cc), against a memcpy of the same rows of each band into one buffer in
// the same run (the floor). Shapes are PP-OCRv4 det's depthwise layers. Input GB/s, best of
// --reps (thread CPU time, the two alternating), and the ratio of their times, build / copy.
// The input is in the caches, or with --cold evicted before each timing (64 MiB written), as
// when the layer before wrote more than the caches hold.
//
// usage: vt_f32_phase_planes_bench [--reps R] [--cold]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "kernels/conv/f32_conv_pack.h"

namespace {

using namespace vt::kernels;

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

struct Shape {
  int64_t C, H, K, S;  // channels, square input side, square kernel, stride (pads K / 2)
  int64_t P() const { return K / 2; }
  int64_t OH() const { return (H + 2 * P() - K) / S + 1; }
};

// Depthwise output floats per band, all channels (ops/nn/conv_dw_pw.cc kBandFloats).
constexpr int64_t kBandFloats = int64_t{64} << 10;

int64_t BandRows(const Shape& s) {
  return std::clamp<int64_t>(kBandFloats / (s.C * s.OH()), 1, s.OH());
}

double BuildAll(const Shape& s, const float* x, std::vector<float>& planes) {
  const int64_t OH = s.OH(), rows = BandRows(s);
  F32ConvPhasePlanes g{nullptr, 1, s.K, s.K, s.S, s.S, 1, 1, 0, OH + (s.K - 1) / s.S};
  float sink = 0;
  const double t0 = CpuSeconds();
  for (int64_t oh0 = 0; oh0 < OH; oh0 += rows) {
    g.Hq = std::min(rows, OH - oh0) + (s.K - 1) / s.S;
    planes.resize(F32ConvPhasePlanesFloats(1, s.S, s.S, g.Hq, g.Wq));
    for (int64_t c = 0; c < s.C; ++c) {
      if (c + 1 < s.C)
        PrefetchF32ConvPhasePlanesInput(x + (c + 1) * s.H * s.H, s.H, s.H, s.P() - oh0 * s.S, g);
      BuildF32ConvPhasePlanes(x + c * s.H * s.H, 1, s.H, s.H, s.P() - oh0 * s.S, s.P(), g,
                              planes.data());
      sink += planes[planes.size() / 2];
    }
  }
  const double t = CpuSeconds() - t0;
  if (sink == 1234.5f) std::puts("");  // keeps the builds
  return t;
}

// The floor: the input rows each band reads, channel by channel, memcpy'd into one buffer.
double CopyAll(const Shape& s, const float* x, std::vector<float>& buf) {
  const int64_t OH = s.OH(), rows = BandRows(s);
  const double t0 = CpuSeconds();
  for (int64_t oh0 = 0; oh0 < OH; oh0 += rows) {
    const int64_t r0 = std::max<int64_t>(0, oh0 * s.S - s.P());
    const int64_t r1 = std::min<int64_t>(s.H, (std::min(OH, oh0 + rows) - 1) * s.S - s.P() + s.K);
    buf.resize(static_cast<size_t>((r1 - r0) * s.H));
    for (int64_t c = 0; c < s.C; ++c)
      std::memcpy(buf.data(), x + (c * s.H + r0) * s.H, buf.size() * sizeof(float));
  }
  const double t = CpuSeconds() - t0;
  if (buf[0] == 1234.5f) std::puts("");
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  bool cold = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--cold") == 0) cold = true;
  }
  std::vector<char> evict(cold ? size_t{64} << 20 : 0);
  const auto flush = [&] {
    for (size_t i = 0; i < evict.size(); i += 64) evict[i] = static_cast<char>(evict[i] + 1);
  };
  const Shape shapes[] = {{16, 320, 3, 1}, {32, 320, 3, 2}, {48, 160, 3, 1}, {48, 160, 3, 2},
                          {96, 80, 3, 1},  {96, 80, 3, 2},  {192, 40, 5, 1}, {192, 40, 5, 2},
                          {384, 20, 5, 1}};
  std::printf("%-24s %10s %10s %8s\n", "C x H x H, KxK / S", "build GB/s", "copy GB/s", "ratio");
  for (const Shape& s : shapes) {
    const size_t n = static_cast<size_t>(s.C * s.H * s.H);
    std::vector<float> x(n), planes, buf;
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.01f;
    double build = 1e30, copy = 1e30;
    for (int r = 0; r < reps; ++r) {
      flush();
      build = std::min(build, BuildAll(s, x.data(), planes));
      flush();
      copy = std::min(copy, CopyAll(s, x.data(), buf));
    }
    const double gb = static_cast<double>(n * sizeof(float)) * 1e-9;
    std::printf("%4lld x %3lld x %3lld, %lldx%lld / %lld %10.1f %10.1f %8.2f\n",
                static_cast<long long>(s.C), static_cast<long long>(s.H),
                static_cast<long long>(s.H), static_cast<long long>(s.K),
                static_cast<long long>(s.K), static_cast<long long>(s.S), gb / build, gb / copy,
                build / copy);
  }
}
