// Conv against a double-precision reference over the geometries that select each execution
// mode (pointwise, tap-major, packed, depthwise, N-d, Winograd), with W fed, stored as an initializer or
// produced by a Constant node (prepacked), one and two threads, plus error handling; and positions
// summed alike (a constant input gives equal outputs).
#include <gtest/gtest.h>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;

struct ConvCase {
  Shape x, w;  // X [N, C, ...], W [M, C/g, k...]
  int64_t group = 1;
  std::vector<int64_t> strides{}, dilations{}, pads{};  // empty = default
  std::string auto_pad{};
  bool bias = true;
};

std::vector<double> RefConv(const ConvCase& c, const std::vector<double>& x,
                            const std::vector<double>& w, const std::vector<double>& b,
                            Shape* out_shape) {
  const size_t r = c.x.size() - 2;
  std::vector<int64_t> st = c.strides.empty() ? std::vector<int64_t>(r, 1) : c.strides;
  std::vector<int64_t> dl = c.dilations.empty() ? std::vector<int64_t>(r, 1) : c.dilations;
  std::vector<int64_t> pb(r, 0), pe(r, 0), out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t in = c.x[i + 2], dk = (c.w[i + 2] - 1) * dl[i] + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = (in + st[i] - 1) / st[i];
      const int64_t total = std::max<int64_t>(0, (out[i] - 1) * st[i] + dk - in);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    } else {
      if (!c.pads.empty()) {
        pb[i] = c.pads[i];
        pe[i] = c.pads[i + r];
      }
      out[i] = (in + pb[i] + pe[i] - dk) / st[i] + 1;
    }
  }
  const int64_t N = c.x[0], C = c.x[1], M = c.w[0], Cg = c.w[1], Mg = M / c.group;
  *out_shape = {N, M};
  out_shape->insert(out_shape->end(), out.begin(), out.end());
  std::vector<double> y(static_cast<size_t>(NumElements(*out_shape)));
  const Shape kshape(c.w.begin() + 2, c.w.end()), oshape(out.begin(), out.end());
  const int64_t kvol = NumElements(kshape), ovol = NumElements(oshape);
  const int64_t ivol = NumElements(Shape(c.x.begin() + 2, c.x.end()));
  // Input offset (within a channel) of every (output position, tap), -1 in the padding.
  std::vector<int64_t> src(static_cast<size_t>(ovol * kvol));
  for (int64_t o = 0; o < ovol; ++o)
    for (int64_t k = 0; k < kvol; ++k) {
      int64_t orest = o, krest = k, off = 0, scale = 1;
      bool ok = true;
      for (int i = static_cast<int>(r) - 1; i >= 0; --i) {
        const size_t a = static_cast<size_t>(i);
        const int64_t oi = orest % out[a], ki = krest % c.w[a + 2];
        orest /= out[a];
        krest /= c.w[a + 2];
        const int64_t p = oi * st[a] - pb[a] + ki * dl[a];
        if (p < 0 || p >= c.x[a + 2]) ok = false;
        off += p * scale;
        scale *= c.x[a + 2];
      }
      src[static_cast<size_t>(o * kvol + k)] = ok ? off : -1;
    }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / Mg;
      for (int64_t o = 0; o < ovol; ++o) {
        double acc = b.empty() ? 0.0 : b[static_cast<size_t>(m)];
        for (int64_t cg = 0; cg < Cg; ++cg) {
          const double* xc = x.data() + (n * C + g * Cg + cg) * ivol;
          const double* wk = w.data() + (m * Cg + cg) * kvol;
          const int64_t* so = src.data() + o * kvol;
          for (int64_t k = 0; k < kvol; ++k)
            if (so[k] >= 0) acc += xc[so[k]] * wk[k];
        }
        y[static_cast<size_t>((n * M + m) * ovol + o)] = acc;
      }
    }
  return y;
}

void Check(const ConvCase& c, Source wsrc, int threads, DType dt = DType::kFloat32) {
  const auto x = Random(static_cast<size_t>(NumElements(c.x)), 1);
  const auto w = Random(static_cast<size_t>(NumElements(c.w)), 2);
  const auto b = c.bias ? Random(static_cast<size_t>(c.w[0]), 3) : std::vector<double>{};
  Shape ys;
  const auto want = RefConv(c, x, w, b, &ys);
  NnCall call;
  call.op = "Conv";
  call.opset = 11;
  call.inputs = {testing::MakeTensor(dt, c.x, x), testing::MakeTensor(dt, c.w, w),
                 c.bias ? testing::MakeTensor(dt, {c.w[0]}, b) : Tensor()};
  call.sources = {Source::kFeed, wsrc, wsrc};
  call.threads = threads;
  call.attrs.push_back(AttrInt("group", c.group));
  if (!c.strides.empty()) call.attrs.push_back(AttrInts("strides", c.strides));
  if (!c.dilations.empty()) call.attrs.push_back(AttrInts("dilations", c.dilations));
  if (!c.pads.empty()) call.attrs.push_back(AttrInts("pads", c.pads));
  if (!c.auto_pad.empty()) call.attrs.push_back(AttrString("auto_pad", c.auto_pad));
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // float64 runs in double (ops/nn/conv_f64.h): it must match the double reference closely.
  const double tol = dt == DType::kFloat16 ? 2e-2 : dt == DType::kFloat64 ? 1e-12 : 1e-4;
  ExpectClose((*r)[0].tensor(), ys, want, tol,
              "Conv x" + ShapeToString(c.x) + " w" + ShapeToString(c.w) + " g" +
                  std::to_string(c.group) + " src" + std::to_string(int(wsrc)) + " t" +
                  std::to_string(threads));
}

std::vector<ConvCase> Cases() {
  return {
      // pointwise (1x1, stride 1, no pads), grouped pointwise
      {{2, 5, 7, 9}, {11, 5, 1, 1}},
      {{1, 6, 4, 5}, {4, 3, 1, 1}, 2},
      // tap-major (>= 16 channels per group): pads, strides, dilations, asymmetric pads
      {{1, 16, 9, 11}, {7, 16, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {{1, 32, 13, 12}, {24, 32, 3, 3}, 1, {2, 2}, {}, {1, 0, 2, 1}},
      {{2, 16, 10, 10}, {5, 16, 3, 2}, 1, {1, 3}, {2, 1}, {2, 1, 0, 3}},
      {{1, 16, 12, 12}, {8, 16, 5, 5}, 1, {}, {}, {}, "SAME_UPPER"},
      // more output rows than one slice of phase planes (exercises slicing and threads)
      {{1, 128, 50, 40}, {5, 128, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      // Winograd F(4x4, 3x3) (constant 3x3 filter, >= 16 channels in and out, unit strides):
      // partial tiles, asymmetric and SAME pads, two images, a fed W takes tap-major
      {{1, 16, 9, 11}, {16, 16, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
      {{2, 24, 13, 37}, {20, 24, 3, 3}, 1, {1, 1}, {1, 1}, {0, 2, 1, 0}},
      {{1, 16, 12, 70}, {17, 16, 3, 3}, 1, {}, {}, {}, "SAME_LOWER"},
      // packed (few channels), strided first-layer style, SAME_LOWER
      {{1, 3, 17, 19}, {16, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {{1, 4, 9, 8}, {6, 4, 2, 3}, 1, {3, 1}, {1, 2}, {}, "SAME_LOWER"},
      {{1, 4, 6, 6}, {8, 2, 3, 3}, 2, {1, 1}, {}, {0, 0, 0, 0}, "", false},
      // packed mode's direct path (a prepacked filter, <= 4 channels, output rows >= 16): an
      // RGB stem with a partial tile, 5x5 with asymmetric pads, dilation, 1-D
      {{2, 3, 20, 70}, {16, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {{1, 4, 11, 50}, {24, 4, 5, 5}, 1, {2, 2}, {}, {2, 1, 2, 2}, "", false},
      {{1, 2, 9, 40}, {5, 2, 3, 3}, 1, {1, 1}, {2, 2}, {2, 2, 2, 2}},
      {{1, 2, 70}, {5, 2, 7}, 1, {2}, {}, {3, 3}},
      // 1-D
      {{2, 3, 20}, {4, 3, 5}, 1, {2}, {}, {2, 1}},
      {{1, 20, 31}, {3, 20, 4}, 1, {1}, {2}, {3, 3}},
      // depthwise 2-D / 1-D, depthwise with multiplier (grouped GEMM)
      {{1, 8, 33, 70}, {8, 1, 3, 3}, 8, {1, 1}, {}, {1, 1, 1, 1}},
      {{2, 5, 21, 22}, {5, 1, 5, 5}, 5, {2, 2}, {}, {2, 2, 2, 2}},
      {{1, 4, 9, 10}, {4, 1, 3, 3}, 4, {2, 3}, {2, 1}, {0, 1, 2, 0}},
      {{1, 6, 25}, {6, 1, 7}, 6, {1}, {}, {3, 3}},
      {{1, 3, 8, 8}, {6, 1, 3, 3}, 3, {}, {}, {1, 1, 1, 1}},
      // 3-D
      {{1, 3, 5, 6, 7}, {4, 3, 3, 2, 3}, 1, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 1, 1, 0}},
      {{1, 4, 4, 4, 4}, {4, 2, 1, 1, 1}, 2},
  };
}

TEST(Conv, MatchesReferenceEveryModeAndWeightSource) {
  for (const auto& c : Cases())
    for (Source s : {Source::kFeed, Source::kInitializer, Source::kConstantNode})
      Check(c, s, 1);
}

TEST(Conv, ThreadsMatchReference) {
  for (const auto& c : Cases()) Check(c, Source::kInitializer, 2);
}

// Every output position of a channel is summed in the same order whichever tile, tail, slice or
// thread computes it (kernels/gemm/f32_gemm_ukernel.h, f32_dwconv_avx512.cc): a constant input
// with distinct weights and no padding gives bit-identical positions, in every execution mode
// but Winograd (whose transforms treat the 16 positions of a tile differently; its filters
// here have fewer than 16 output channels), with output channels and positions past the tile
// sizes.
TEST(Conv, ConstantInputGivesIdenticalPositions) {
  const ConvCase cases[] = {
      {{1, 40, 19, 23}, {13, 40, 1, 1}},                   // pointwise
      {{1, 32, 19, 23}, {13, 32, 3, 3}},                   // tap-major
      {{1, 3, 19, 40}, {13, 3, 3, 3}},                     // packed, direct path
      {{1, 128, 50, 40}, {7, 128, 3, 3}},                  // tap-major, several slices
      {{1, 3, 33, 35}, {16, 3, 3, 3}, 1, {2, 2}},          // packed
      {{1, 8, 33, 70}, {8, 1, 3, 3}, 8},                   // depthwise
      {{1, 5, 21, 22}, {5, 1, 5, 5}, 5, {2, 2}},           // depthwise, strided
      {{1, 4, 19, 27}, {4, 1, 3, 3}, 4, {2, 1}},           // depthwise, phased rows
      {{1, 20, 300}, {9, 20, 4}, 1, {1}, {2}},             // 1-D
  };
  for (const ConvCase& c : cases)
    for (int threads : {1, 2}) {
      const std::vector<double> x(static_cast<size_t>(NumElements(c.x)), 0.37);
      const auto w = Random(static_cast<size_t>(NumElements(c.w)), 2);
      const auto b = Random(static_cast<size_t>(c.w[0]), 3);
      NnCall call;
      call.op = "Conv";
      call.opset = 11;
      call.inputs = {testing::MakeTensor(DType::kFloat32, c.x, x),
                     testing::MakeTensor(DType::kFloat32, c.w, w),
                     testing::MakeTensor(DType::kFloat32, {c.w[0]}, b)};
      call.sources = {Source::kFeed, Source::kInitializer, Source::kInitializer};
      call.threads = threads;
      call.attrs.push_back(AttrInt("group", c.group));
      if (!c.strides.empty()) call.attrs.push_back(AttrInts("strides", c.strides));
      if (!c.dilations.empty()) call.attrs.push_back(AttrInts("dilations", c.dilations));
      auto r = call.Run();
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      const Tensor& y = (*r)[0].tensor();
      const auto v = testing::Values(y);
      const int64_t planes = y.dim(0) * y.dim(1), area = y.numel() / planes;
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t i = 1; i < area; ++i)
          ASSERT_EQ(v[static_cast<size_t>(p * area + i)], v[static_cast<size_t>(p * area)])
              << "Conv x" << ShapeToString(c.x) << " w" << ShapeToString(c.w) << " g" << c.group
              << " threads " << threads << ": plane " << p << " position " << i;
    }
}

TEST(Conv, Float16ComputesInF32) {
  Check({{1, 16, 6, 7}, {5, 16, 3, 3}, 1, {}, {}, {1, 1, 1, 1}}, Source::kInitializer, 1,
        DType::kFloat16);
}

TEST(Conv, Float64KeepsDoublePrecisionEveryCase) {
  for (const auto& c : Cases())
    for (Source s : {Source::kFeed, Source::kInitializer}) Check(c, s, 1, DType::kFloat64);
}

TEST(Conv, BadShapesAreErrorsNotCrashes) {
  NnCall call;
  call.op = "Conv";
  call.opset = 11;
  call.inputs = {testing::Iota({1, 3, 5, 5}), testing::Iota({2, 4, 3, 3})};
  auto r = call.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("do not match group"), std::string::npos)
      << r.status().message();
  call.inputs = {testing::Iota({1, 3, 2, 2}), testing::Iota({2, 3, 3, 3})};
  r = call.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("exceeds padded input"), std::string::npos)
      << r.status().message();
  call.inputs = {testing::Iota({3, 5}), testing::Iota({2, 3, 3})};
  EXPECT_FALSE(call.Run().ok());
}

}  // namespace
}  // namespace vt::ops
