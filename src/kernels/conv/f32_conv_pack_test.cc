// Convolution-as-GEMM operands against a naive im2col matrix: the phase-plane packer and the
// tap-major in-place rows (on the wide grid), and the generic N-d packer.
#include "kernels/conv/f32_conv_pack.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/gemm/f32_gemm_pack.h"

namespace vt::kernels {
namespace {

struct Geometry {
  int64_t C, H, W, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW;
};

// Naive im2col: rows (c, r, s), columns (oh, ow).
std::vector<float> Im2col(const Geometry& p, const std::vector<float>& x) {
  const int64_t K = p.C * p.KH * p.KW, N = p.OH * p.OW;
  std::vector<float> col(static_cast<size_t>(K * N));
  for (int64_t k = 0; k < K; ++k) {
    const int64_t c = k / (p.KH * p.KW), r = (k / p.KW) % p.KH, s = k % p.KW;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t oh = n / p.OW, ow = n % p.OW;
      const int64_t ih = oh * p.SH - p.PH + r * p.DH, iw = ow * p.SW - p.PW + s * p.DW;
      col[static_cast<size_t>(k * N + n)] =
          ih >= 0 && ih < p.H && iw >= 0 && iw < p.W ? x[static_cast<size_t>((c * p.H + ih) * p.W + iw)]
                                                     : 0.0f;
    }
  }
  return col;
}

std::vector<Geometry> Geometries() {
  std::vector<Geometry> gs;
  for (int64_t S : {1, 2, 3})
    for (int64_t D : {1, 2})
      for (int64_t P : {0, 1, 3}) {
        Geometry p{3, 7, 9, 3, 2, S, S + 1, D, 1, P, P + 1, 0, 0};
        p.OH = (p.H + 2 * p.PH - ((p.KH - 1) * p.DH + 1)) / p.SH + 1;
        p.OW = (p.W + 2 * p.PW - ((p.KW - 1) * p.DW + 1)) / p.SW + 1;
        gs.push_back(p);
      }
  // Rows wider than a vector, stride 2 with 3x3 taps: both column phases, odd and even pads.
  for (int64_t P : {0, 1, 2}) {
    Geometry p{4, 11, 37, 3, 3, 2, 2, 1, 1, P, P, 0, 0};
    p.OH = (p.H + 2 * p.PH - p.KH) / p.SH + 1;
    p.OW = (p.W + 2 * p.PW - p.KW) / p.SW + 1;
    gs.push_back(p);
  }
  return gs;
}

TEST(F32ConvPack, PhasePlanesMatchIm2col) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> d(-1, 1);
  for (const Geometry& p : Geometries()) {
    std::vector<float> x(static_cast<size_t>(p.C * p.H * p.W));
    for (auto& v : x) v = d(gen);
    const auto col = Im2col(p, x);
    F32ConvPhasePlanes g{nullptr, p.C, p.KH, p.KW, p.SH, p.SW, p.DH, p.DW, 0, 0};
    g.Hq = p.OH + (p.KH - 1) * p.DH / p.SH;
    g.Wq = p.OW + (p.KW - 1) * p.DW / p.SW;
    std::vector<float> planes(F32ConvPhasePlanesFloats(p.C, p.SH, p.SW, g.Hq, g.Wq), -9.0f);
    BuildF32ConvPhasePlanes(x.data(), p.C, p.H, p.W, p.PH, p.PW, g, planes.data());
    g.planes = planes.data();
    // Every float of the buffer is written, junk columns and unread phases included.
    for (size_t i = 0; i < planes.size(); ++i) ASSERT_NE(planes[i], -9.0f) << "unwritten float " << i;
    const size_t K = static_cast<size_t>(p.C * p.KH * p.KW);
    const size_t Nw = static_cast<size_t>(p.OH * g.Wq), N = static_cast<size_t>(p.OH * p.OW);
    // Packed block: rows [1, K-1), wide columns [2, Nw).
    const size_t nr = 16, k0 = 1, kc = K - 2, n0 = 2, nc = Nw - n0;
    std::vector<float> packed(F32PanelsSize(nr, kc, nc), -7.0f);
    PackF32ConvPhasePlanesToPanelsNr(&g, k0, kc, n0, nc, nr, packed.data());
    const size_t taps = static_cast<size_t>(p.KH * p.KW);
    const size_t cstride = F32ConvPhasePlanesChannelStride(g);
    for (size_t k = 0; k < K; ++k) {
      const size_t c = k / taps, t = k % taps;
      const float* tap_rows = F32ConvPhasePlanesTapRows(&g, t);
      for (size_t n = 0; n < Nw; ++n) {
        const int64_t oh = n / g.Wq, ow = n % g.Wq;
        if (ow >= p.OW) continue;  // junk column
        const float want = col[k * N + static_cast<size_t>(oh * p.OW + ow)];
        ASSERT_EQ(tap_rows[c * cstride + n], want) << "tap rows k=" << k << " n=" << n;
        if (k >= k0 && k < k0 + kc && n >= n0) {
          const size_t j = n - n0;
          ASSERT_EQ(packed[(j / nr) * kc * nr + (k - k0) * nr + j % nr], want)
              << "packed k=" << k << " n=" << n;
        }
      }
    }
  }
}

TEST(F32ConvPack, NdMatchesIm2col) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> d(-1, 1);
  for (const Geometry& p : Geometries()) {
    std::vector<float> x(static_cast<size_t>(p.C * p.H * p.W));
    for (auto& v : x) v = d(gen);
    const auto col = Im2col(p, x);
    F32ConvChwNd q{};
    q.x = x.data();
    q.C = p.C;
    q.rank = 2;
    const int64_t in[2] = {p.H, p.W}, ker[2] = {p.KH, p.KW}, st[2] = {p.SH, p.SW},
                  dl[2] = {p.DH, p.DW}, pd[2] = {p.PH, p.PW}, out[2] = {p.OH, p.OW};
    for (int i = 0; i < 2; ++i) {
      q.in[i] = in[i];
      q.kernel[i] = ker[i];
      q.stride[i] = st[i];
      q.dilation[i] = dl[i];
      q.pad[i] = pd[i];
      q.out[i] = out[i];
    }
    const size_t K = static_cast<size_t>(p.C * p.KH * p.KW), N = static_cast<size_t>(p.OH * p.OW);
    const size_t nr = 16, k0 = 2, kc = K - 3, n0 = std::min<size_t>(5, N - 1), nc = N - n0;
    const size_t sz = F32PanelsSize(nr, kc, nc);
    std::vector<float> want(sz), got(sz, -7.0f);
    PackF32Panels(nr, kc, nc, col.data() + k0 * N + n0, N, 1, want.data(), kc * nr);
    PackF32ConvChwNdToPanelsNr(&q, k0, kc, n0, nc, nr, got.data());
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace vt::kernels
