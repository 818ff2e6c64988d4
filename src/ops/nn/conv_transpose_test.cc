// ConvTranspose against a double-precision scatter reference: strides, dilations, groups,
// pads, output_padding, output_shape, auto_pad, 1-D/2-D/3-D, sliced col2im, prepacked W.
#include <gtest/gtest.h>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;

struct CtCase {
  Shape x, w;  // X [N, C, ...], W [C, M/g, k...]
  int64_t group = 1;
  std::vector<int64_t> strides{}, dilations{}, pads{}, output_padding{}, output_shape{};
  std::string auto_pad{};
  bool bias = true;
};

std::vector<double> RefConvTranspose(const CtCase& c, const std::vector<double>& x,
                                     const std::vector<double>& w, const std::vector<double>& b,
                                     Shape* ys) {
  const size_t r = c.x.size() - 2;
  auto get = [&](const std::vector<int64_t>& v, int64_t def) {
    return v.empty() ? std::vector<int64_t>(r, def) : v;
  };
  const auto st = get(c.strides, 1), dl = get(c.dilations, 1), op = get(c.output_padding, 0);
  std::vector<int64_t> pb(r), out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t full = st[i] * (c.x[i + 2] - 1) + op[i] + (c.w[i + 2] - 1) * dl[i] + 1;
    if (!c.output_shape.empty() || c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      out[i] = !c.output_shape.empty() ? c.output_shape[i] : c.x[i + 2] * st[i];
      const int64_t total = std::max<int64_t>(0, full - out[i]);
      pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else {
      pb[i] = c.pads.empty() ? 0 : c.pads[i];
      out[i] = full - pb[i] - (c.pads.empty() ? 0 : c.pads[i + r]);
    }
  }
  const int64_t N = c.x[0], C = c.x[1], Cg = C / c.group, Mg = c.w[1], M = Mg * c.group;
  *ys = {N, M};
  ys->insert(ys->end(), out.begin(), out.end());
  std::vector<double> y(static_cast<size_t>(NumElements(*ys)));
  ForEachIndex(*ys, [&](const std::vector<int64_t>& yi) {
    y[static_cast<size_t>(Flat(*ys, yi))] = b.empty() ? 0.0 : b[static_cast<size_t>(yi[1])];
  });
  const Shape kshape(c.w.begin() + 2, c.w.end());
  ForEachIndex(c.x, [&](const std::vector<int64_t>& xi) {
    const int64_t n = xi[0], ci = xi[1], g = ci / Cg;
    const double xv = x[static_cast<size_t>(Flat(c.x, xi))];
    for (int64_t mg = 0; mg < Mg; ++mg)
      ForEachIndex(kshape, [&](const std::vector<int64_t>& ki) {
        std::vector<int64_t> yi = {n, g * Mg + mg};
        for (size_t i = 0; i < r; ++i) {
          const int64_t o = xi[i + 2] * st[i] - pb[i] + ki[i] * dl[i];
          if (o < 0 || o >= out[i]) return;
          yi.push_back(o);
        }
        std::vector<int64_t> wi = {ci, mg};
        wi.insert(wi.end(), ki.begin(), ki.end());
        y[static_cast<size_t>(Flat(*ys, yi))] += xv * w[static_cast<size_t>(Flat(c.w, wi))];
      });
  });
  return y;
}

void Check(const CtCase& c, Source wsrc, int threads, DType dt = DType::kFloat32) {
  const auto x = Random(static_cast<size_t>(NumElements(c.x)), 4);
  const auto w = Random(static_cast<size_t>(NumElements(c.w)), 5);
  const int64_t M = c.w[1] * c.group;
  const auto b = c.bias ? Random(static_cast<size_t>(M), 6) : std::vector<double>{};
  Shape ys;
  const auto want = RefConvTranspose(c, x, w, b, &ys);
  NnCall call;
  call.op = "ConvTranspose";
  call.opset = 11;
  call.inputs = {testing::MakeTensor(dt, c.x, x), testing::MakeTensor(dt, c.w, w),
                 c.bias ? testing::MakeTensor(dt, {M}, b) : Tensor()};
  call.sources = {Source::kFeed, wsrc, wsrc};
  call.threads = threads;
  call.attrs.push_back(AttrInt("group", c.group));
  if (!c.strides.empty()) call.attrs.push_back(AttrInts("strides", c.strides));
  if (!c.dilations.empty()) call.attrs.push_back(AttrInts("dilations", c.dilations));
  if (!c.pads.empty()) call.attrs.push_back(AttrInts("pads", c.pads));
  if (!c.output_padding.empty())
    call.attrs.push_back(AttrInts("output_padding", c.output_padding));
  if (!c.output_shape.empty()) call.attrs.push_back(AttrInts("output_shape", c.output_shape));
  if (!c.auto_pad.empty()) call.attrs.push_back(AttrString("auto_pad", c.auto_pad));
  auto res = call.Run();
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  // float64 runs in double (ops/nn/conv_f64.h): it must match the double reference closely.
  ExpectClose((*res)[0].tensor(), ys, want, dt == DType::kFloat64 ? 1e-12 : 1e-4,
              "ConvTranspose x" + ShapeToString(c.x) + " w" + ShapeToString(c.w));
}

std::vector<CtCase> Cases() {
  return {
      // PaddleOCR DB head: 2x2 stride 2 (non-overlapping, bias in the GEMM epilogue)
      {{1, 6, 5, 7}, {6, 4, 2, 2}, 1, {2, 2}},
      {{2, 4, 130, 9}, {4, 8, 2, 2}, 1, {2, 2}},  // several col slices
      // the 2x2 stride-2 kernel (a constant W, rows of 8 or more): a block of 8 output channels
      // and a rest, a width tail, no bias; with pads it is not taken
      {{1, 24, 6, 40}, {24, 13, 2, 2}, 1, {2, 2}},
      {{2, 3, 5, 21}, {3, 2, 2, 2}, 1, {2, 2}, {}, {}, {}, {}, "", false},
      {{1, 4, 6, 12}, {4, 3, 2, 2}, 1, {2, 2}, {}, {1, 0, 1, 0}},
      {{1, 4, 130, 9}, {4, 8, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
      {{1, 3, 4, 5}, {3, 2, 3, 3}, 1, {3, 2}, {1, 2}, {0, 1, 2, 1}, {1, 0}},
      {{1, 4, 3, 3}, {4, 1, 3, 2}, 2, {2, 1}, {}, {}, {}, {}, "SAME_UPPER"},
      {{1, 4, 3, 3}, {4, 3, 3, 3}, 1, {2, 2}, {}, {}, {}, {}, "SAME_LOWER", false},
      {{1, 2, 3, 3}, {2, 2, 3, 3}, 1, {3, 2}, {}, {}, {}, {10, 8}},
      {{1, 3, 6}, {3, 2, 3}, 1, {2}, {2}, {1, 0}, {1}},  // 1-D
      {{1, 2, 3, 4, 2}, {2, 2, 2, 3, 2}, 1, {2, 1, 2}, {1, 1, 1}, {0, 1, 0, 1, 0, 0}},  // 3-D
  };
}

TEST(ConvTranspose, MatchesReference) {
  for (const auto& c : Cases())
    for (Source s : {Source::kFeed, Source::kInitializer, Source::kConstantNode}) Check(c, s, 1);
  for (const auto& c : Cases()) Check(c, Source::kInitializer, 2);
}

TEST(ConvTranspose, Float64KeepsDoublePrecisionEveryCase) {
  for (const auto& c : Cases())
    for (Source s : {Source::kFeed, Source::kInitializer}) Check(c, s, 1, DType::kFloat64);
}

TEST(ConvTranspose, BadShapesAreErrors) {
  NnCall call;
  call.op = "ConvTranspose";
  call.opset = 11;
  call.inputs = {testing::Iota({1, 3, 5, 5}), testing::Iota({2, 4, 3, 3})};
  EXPECT_FALSE(call.Run().ok());
  call.inputs = {testing::Iota({1, 2, 5, 5}), testing::Iota({2, 4, 3, 3})};
  call.attrs = {AttrString("auto_pad", "BOGUS")};
  EXPECT_FALSE(call.Run().ok());
}

}  // namespace
}  // namespace vt::ops
