// Pooling operators against double references: MaxPool (+Indices, storage_order, ceil_mode,
// dilations), AveragePool (count_include_pad), LpPool, the global pools and MaxUnpool.
#include <gtest/gtest.h>

#include <limits>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel{}, strides{}, dilations{}, pads{};
  bool ceil = false;
  std::string auto_pad{};
};

struct Geo {
  std::vector<int64_t> st, dl, pb, pe, out;
};

Geo Geometry(const PoolCase& c) {
  const size_t r = c.x.size() - 2;
  Geo g;
  g.st = c.strides.empty() ? std::vector<int64_t>(r, 1) : c.strides;
  g.dl = c.dilations.empty() ? std::vector<int64_t>(r, 1) : c.dilations;
  g.pb.assign(r, 0);
  g.pe.assign(r, 0);
  g.out.resize(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t in = c.x[i + 2], dk = (c.kernel[i] - 1) * g.dl[i] + 1;
    if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
      g.out[i] = (in + g.st[i] - 1) / g.st[i];
      const int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * g.st[i] + dk - in);
      g.pb[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pe[i] = total - g.pb[i];
      continue;
    }
    if (!c.pads.empty()) {
      g.pb[i] = c.pads[i];
      g.pe[i] = c.pads[i + r];
    }
    const int64_t span = in + g.pb[i] + g.pe[i] - dk;
    g.out[i] = c.ceil ? (span + g.st[i] - 1) / g.st[i] + 1 : span / g.st[i] + 1;
    if (c.ceil && (g.out[i] - 1) * g.st[i] >= in + g.pb[i]) --g.out[i];
  }
  return g;
}

enum class Kind { kMax, kAvg, kAvgIncludePad, kLp3 };

// Reference pooling; `arg` receives the row-major flat index of each maximum.
std::vector<double> RefPool(const PoolCase& c, Kind kind, const std::vector<double>& x,
                            Shape* ys, std::vector<int64_t>* arg) {
  const Geo g = Geometry(c);
  const size_t r = g.out.size();
  *ys = {c.x[0], c.x[1]};
  ys->insert(ys->end(), g.out.begin(), g.out.end());
  std::vector<double> y;
  const Shape ks(c.kernel.begin(), c.kernel.end());
  ForEachIndex(*ys, [&](const std::vector<int64_t>& yi) {
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int64_t best_at = -1, valid = 0, padded = 0;
    ForEachIndex(ks, [&](const std::vector<int64_t>& ki) {
      std::vector<int64_t> xi = {yi[0], yi[1]};
      bool inside = true, in_padded = true;
      for (size_t i = 0; i < r; ++i) {
        const int64_t p = yi[i + 2] * g.st[i] - g.pb[i] + ki[i] * g.dl[i];
        if (p < 0 || p >= c.x[i + 2]) inside = false;
        if (p >= c.x[i + 2] + g.pe[i]) in_padded = false;
        xi.push_back(p);
      }
      padded += in_padded;
      if (!inside) return;
      const int64_t at = Flat(c.x, xi);
      const double v = x[static_cast<size_t>(at)];
      ++valid;
      if (v > best) {
        best = v;
        best_at = at;
      }
      sum += kind == Kind::kLp3 ? std::pow(std::fabs(v), 3.0) : v;
    });
    if (kind == Kind::kMax) {
      y.push_back(best);
      arg->push_back(best_at);
    } else if (kind == Kind::kLp3) {
      y.push_back(std::cbrt(sum));
    } else {
      y.push_back(sum / static_cast<double>(kind == Kind::kAvg ? valid : padded));
    }
  });
  return y;
}

std::vector<PoolCase> Cases() {
  return {
      {{1, 2, 9, 11}, {3, 3}, {2, 2}},
      {{2, 3, 8, 7}, {3, 2}, {2, 1}, {}, {1, 0, 1, 1}},
      {{1, 1, 10, 10}, {3, 3}, {3, 3}, {}, {1, 1, 1, 1}, true},
      {{1, 2, 11, 9}, {2, 3}, {2, 2}, {2, 2}, {1, 1, 0, 2}, true},
      {{1, 1, 7, 8}, {3, 3}, {2, 2}, {}, {}, false, "SAME_UPPER"},
      {{1, 1, 7, 8}, {2, 4}, {1, 3}, {}, {}, false, "SAME_LOWER"},
      {{1, 3, 17}, {4}, {3}, {2}, {1, 2}},
      {{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 3}, {1, 1, 2}, {0, 1, 1, 1, 0, 0}, true},
  };
}

NnCall PoolCall(const std::string& op, const PoolCase& c, const std::vector<double>& x) {
  NnCall call;
  call.op = op;
  call.opset = 18;
  call.inputs = {testing::F32(c.x, x)};
  call.attrs.push_back(AttrInts("kernel_shape", c.kernel));
  if (!c.strides.empty()) call.attrs.push_back(AttrInts("strides", c.strides));
  if (!c.dilations.empty()) call.attrs.push_back(AttrInts("dilations", c.dilations));
  if (!c.pads.empty()) call.attrs.push_back(AttrInts("pads", c.pads));
  if (c.ceil) call.attrs.push_back(AttrInt("ceil_mode", 1));
  if (!c.auto_pad.empty()) call.attrs.push_back(AttrString("auto_pad", c.auto_pad));
  return call;
}

TEST(MaxPool, ValuesAndIndicesBothStorageOrders) {
  for (const auto& c : Cases()) {
    const auto x = Random(static_cast<size_t>(NumElements(c.x)), 11);
    Shape ys;
    std::vector<int64_t> arg;
    const auto want = RefPool(c, Kind::kMax, x, &ys, &arg);
    for (int order = 0; order < 2; ++order) {
      NnCall call = PoolCall("MaxPool", c, x);
      call.num_outputs = 2;
      call.attrs.push_back(AttrInt("storage_order", order));
      auto r = call.Run();
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ExpectClose((*r)[0].tensor(), ys, want, 0, "MaxPool " + ShapeToString(c.x));
      const auto idx = testing::Values((*r)[1].tensor());
      const size_t rank = c.x.size() - 2;
      const int64_t plane = NumElements(Shape(c.x.begin() + 2, c.x.end()));
      for (size_t i = 0; i < arg.size(); ++i) {
        int64_t want_idx = arg[i];
        if (order == 1) {  // column-major within the plane
          int64_t rest = arg[i] % plane, cm = 0, scale = 1;
          std::vector<int64_t> pos(rank);
          for (int a = static_cast<int>(rank) - 1; a >= 0; --a) {
            pos[static_cast<size_t>(a)] = rest % c.x[static_cast<size_t>(a) + 2];
            rest /= c.x[static_cast<size_t>(a) + 2];
          }
          for (size_t a = 0; a < rank; ++a) {
            cm += pos[a] * scale;
            scale *= c.x[a + 2];
          }
          want_idx = arg[i] / plane * plane + cm;
        }
        ASSERT_EQ(static_cast<int64_t>(idx[i]), want_idx) << "order " << order << " at " << i;
      }
    }
  }
}

// Without the Indices output, 1-D / 2-D MaxPool takes the row path (interior columns a tap at a
// time across the row, border columns one by one): exact against the reference, padded,
// strided, dilated and ceil_mode windows included.
TEST(MaxPool, WithoutIndicesMatchesReference) {
  std::vector<PoolCase> cases = Cases();
  cases.push_back({{1, 4, 2, 96}, {2, 2}, {2, 2}});
  cases.push_back({{1, 3, 5, 40}, {3, 5}, {1, 3}, {1, 2}, {1, 2, 1, 4}});
  cases.push_back({{1, 2, 3}, {5}, {1}, {}, {2, 2}});  // no window inside the row
  for (const auto& c : cases) {
    const auto x = Random(static_cast<size_t>(NumElements(c.x)), 14);
    Shape ys;
    std::vector<int64_t> arg;
    const auto want = RefPool(c, Kind::kMax, x, &ys, &arg);
    auto r = PoolCall("MaxPool", c, x).Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectClose((*r)[0].tensor(), ys, want, 0, "MaxPool " + ShapeToString(c.x));
  }
}

TEST(AveragePoolAndLpPool, MatchReference) {
  for (const auto& c : Cases()) {
    const auto x = Random(static_cast<size_t>(NumElements(c.x)), 12);
    for (Kind k : {Kind::kAvg, Kind::kAvgIncludePad, Kind::kLp3}) {
      Shape ys;
      std::vector<int64_t> arg;
      const auto want = RefPool(c, k, x, &ys, &arg);
      NnCall call = PoolCall(k == Kind::kLp3 ? "LpPool" : "AveragePool", c, x);
      if (k == Kind::kAvgIncludePad) call.attrs.push_back(AttrInt("count_include_pad", 1));
      if (k == Kind::kLp3) call.attrs.push_back(AttrInt("p", 3));
      auto r = call.Run();
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ExpectClose((*r)[0].tensor(), ys, want, 1e-5,
                  "pool kind " + std::to_string(int(k)) + " " + ShapeToString(c.x));
    }
  }
}

TEST(GlobalPools, MatchReference) {
  const Shape s = {2, 3, 5, 7};
  const auto x = Random(static_cast<size_t>(NumElements(s)), 13);
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    std::vector<double> want;
    for (int64_t p = 0; p < 6; ++p) {
      double sum = 0, mx = -1e30, sq = 0;
      for (int64_t i = 0; i < 35; ++i) {
        const double v = x[static_cast<size_t>(p * 35 + i)];
        sum += v;
        mx = std::max(mx, v);
        sq += v * v;
      }
      want.push_back(op[6] == 'A' ? sum / 35 : op[6] == 'M' ? mx : std::sqrt(sq));
    }
    NnCall call;
    call.op = op;
    call.inputs = {testing::F32(s, x)};
    auto r = call.Run();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectClose((*r)[0].tensor(), {2, 3, 1, 1}, want, 1e-5, op);
  }
}

TEST(MaxPool, Uint8AndMaxUnpoolRoundTrip) {
  NnCall call;
  call.op = "MaxPool";
  call.opset = 12;
  call.inputs = {testing::MakeTensor(DType::kUInt8, {1, 1, 2, 4}, {1, 9, 3, 4, 250, 6, 7, 8})};
  call.attrs = {AttrInts("kernel_shape", {2, 2}), AttrInts("strides", {2, 2})};
  call.num_outputs = 2;
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Values((*r)[0].tensor()), (std::vector<double>{250, 8}));
  EXPECT_EQ(testing::Values((*r)[1].tensor()), (std::vector<double>{4, 7}));

  NnCall un;
  un.op = "MaxUnpool";
  un.opset = 11;
  un.inputs = {testing::F32({1, 1, 1, 2}, {5, 6}), (*r)[1].tensor()};
  un.attrs = {AttrInts("kernel_shape", {2, 2}), AttrInts("strides", {2, 2})};
  auto u = un.Run();
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(testing::Values((*u)[0].tensor()), (std::vector<double>{0, 0, 0, 0, 5, 0, 0, 6}));
  un.inputs[1] = testing::I64({1, 1, 1, 2}, {4, 99});
  EXPECT_FALSE(un.Run().ok());  // index outside the output: error, not a wild write
}

TEST(Pool, BadAttributesAreErrors) {
  NnCall call;
  call.op = "MaxPool";
  call.inputs = {testing::Iota({1, 1, 4, 4})};
  EXPECT_FALSE(call.Run().ok());  // no kernel_shape
  call.attrs = {AttrInts("kernel_shape", {5, 5})};
  EXPECT_FALSE(call.Run().ok());  // window larger than the input
  call.attrs = {AttrInts("kernel_shape", {2, 2}), AttrInts("strides", {0, 1})};
  EXPECT_FALSE(call.Run().ok());
}

}  // namespace
}  // namespace vt::ops
