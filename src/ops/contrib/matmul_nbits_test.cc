// com.microsoft MatMulNBits against a double-precision reference of the operator's definition:
// bits 2/4/8, block sizes 16..128, every zero-point form, g_idx, bias, A of rank 1..3, weights
// fed at run time or stored as initializers (the prepacked fast path), and the input errors.
#include <gtest/gtest.h>

#include "ops/nn/nn_test_util.h"

namespace vt::ops {
namespace {

using namespace nntest;
using testing::F32;
using testing::MakeTensor;

enum class Zp { kNone, kU8, kFloat };

struct NBitsCase {
  int64_t K, N, bits, bs;
  Zp zp;
  bool g_idx = false;     // a permuted (non-trivial) g_idx
  bool bias = false;
  Shape a_lead = {3};     // A = lead + [K]
  bool f16 = false;       // A, scales (and float zero points) float16
};

struct Built {
  std::vector<Tensor> inputs;
  std::vector<double> w;  // dequantized W[N, K]
  std::vector<double> a, bias;
};

Built Build(const NBitsCase& c, uint32_t seed) {
  std::mt19937 g(seed);
  const int64_t kb = (c.K + c.bs - 1) / c.bs, blob = c.bs * c.bits / 8;
  const int64_t zpr = (kb * c.bits + 7) / 8, mask = (1 << c.bits) - 1;
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<double> codes(static_cast<size_t>(c.N * kb * blob));
  for (auto& v : codes) v = byte(g);
  const auto scales = Random(static_cast<size_t>(c.N * kb), seed + 1, 0.01, 0.2);
  std::vector<double> zpu8(static_cast<size_t>(c.N * zpr));
  for (auto& v : zpu8) v = byte(g);
  const auto zpf = Random(static_cast<size_t>(c.N * kb), seed + 2, 0.0, static_cast<double>(mask));
  std::vector<double> gidx(static_cast<size_t>(c.K));
  for (int64_t k = 0; k < c.K; ++k) {
    const int64_t group = k / c.bs;  // g_idx: the block of row k
    gidx[static_cast<size_t>(k)] = static_cast<double>(group);
  }
  if (c.g_idx) std::shuffle(gidx.begin(), gidx.end(), g);
  Built b;
  Shape as = c.a_lead;
  as.push_back(c.K);
  b.a = Random(static_cast<size_t>(NumElements(as)), seed + 3);
  b.bias = Random(static_cast<size_t>(c.N), seed + 4);
  const DType ft = c.f16 ? DType::kFloat16 : DType::kFloat32;
  auto round_ft = [&](double v) {  // the value the float tensor holds
    return c.f16 ? static_cast<double>(HalfToFloat(FloatToHalf(static_cast<float>(v)))) : v;
  };
  for (auto& v : b.a) v = round_ft(v);
  b.w.resize(static_cast<size_t>(c.N * c.K));
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t k = 0; k < c.K; ++k) {
      const int64_t grp = static_cast<int64_t>(gidx[static_cast<size_t>(k)]);
      const int64_t bit = (k % c.bs) * c.bits;
      const int u = (static_cast<int>(codes[static_cast<size_t>((n * kb + k / c.bs) * blob + bit / 8)]) >>
                     (bit % 8)) & static_cast<int>(mask);
      double z = static_cast<double>(1 << (c.bits - 1));
      if (c.zp == Zp::kU8) {
        const int64_t zb = grp * c.bits;
        z = (static_cast<int>(zpu8[static_cast<size_t>(n * zpr + zb / 8)]) >> (zb % 8)) & mask;
      } else if (c.zp == Zp::kFloat) {
        z = round_ft(zpf[static_cast<size_t>(n * kb + grp)]);
      }
      const double s = round_ft(scales[static_cast<size_t>(n * kb + grp)]);
      // The operator's f32 decode: f32(u - zp) then one rounding of the product.
      const float d = (static_cast<float>(u) - static_cast<float>(z)) * static_cast<float>(s);
      b.w[static_cast<size_t>(n * c.K + k)] = d;
    }
  b.inputs.push_back(MakeTensor(ft, as, b.a));
  b.inputs.push_back(MakeTensor(DType::kUInt8, {c.N, kb, blob}, codes));
  b.inputs.push_back(MakeTensor(ft, (seed & 1) != 0 ? Shape{c.N * kb} : Shape{c.N, kb}, scales));
  if (c.zp == Zp::kU8) b.inputs.push_back(MakeTensor(DType::kUInt8, {c.N * zpr}, zpu8));
  else if (c.zp == Zp::kFloat) b.inputs.push_back(MakeTensor(ft, {c.N, kb}, zpf));
  else b.inputs.emplace_back();
  if (c.g_idx) b.inputs.push_back(MakeTensor(DType::kInt32, {c.K}, gidx));
  else b.inputs.emplace_back();
  if (c.bias) b.inputs.push_back(MakeTensor(ft, {c.N}, b.bias));
  return b;
}

NnCall Call(const NBitsCase& c, const Built& b, Source weights, int64_t accuracy_level = 0) {
  NnCall call;
  call.op = "MatMulNBits";
  call.domain = "com.microsoft";
  call.opset = 1;
  call.attrs = {AttrInt("K", c.K), AttrInt("N", c.N), AttrInt("bits", c.bits),
                AttrInt("block_size", c.bs), AttrInt("accuracy_level", accuracy_level)};
  call.inputs = b.inputs;
  call.sources = {Source::kFeed, weights, weights, weights, weights, Source::kFeed};
  return call;
}

void Check(const NBitsCase& c, uint32_t seed) {
  const Built b = Build(c, seed);
  Shape ys = c.a_lead;
  ys.push_back(c.N);
  const int64_t M = NumElements(c.a_lead);
  std::vector<double> want(static_cast<size_t>(M * c.N)), qerr(want.size());
  double mag = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double acc = c.bias ? b.bias[static_cast<size_t>(n)] : 0, am = 0, qe = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double p = b.a[static_cast<size_t>(m * c.K + k)] * b.w[static_cast<size_t>(n * c.K + k)];
        acc += p;
        am += std::fabs(p);
        // accuracy_level 4: activations quantized per weight block, |a - d q| <= 0.5001 d.
        double amax = 0;
        for (int64_t j = k / c.bs * c.bs; j < std::min(c.K, k / c.bs * c.bs + c.bs); ++j)
          amax = std::max(amax, std::fabs(b.a[static_cast<size_t>(m * c.K + j)]));
        qe += std::fabs(b.w[static_cast<size_t>(n * c.K + k)]) * 0.5001 * amax / 127;
      }
      want[static_cast<size_t>(m * c.N + n)] = acc;
      qerr[static_cast<size_t>(m * c.N + n)] = qe;
      mag = std::max(mag, am);
    }
  std::vector<double> y_level[5];
  for (const auto& [s, level] : {std::pair{Source::kFeed, 0}, std::pair{Source::kInitializer, 0},
                                 std::pair{Source::kInitializer, 4}}) {
    const std::string what = "K=" + std::to_string(c.K) + " N=" + std::to_string(c.N) +
                             " bits=" + std::to_string(c.bits) + " bs=" + std::to_string(c.bs) +
                             " zp=" + std::to_string(static_cast<int>(c.zp)) +
                             (c.g_idx ? " g_idx" : "") + (c.f16 ? " f16" : "") +
                             (s == Source::kInitializer ? " (initializers)" : " (fed)") +
                             " accuracy_level=" + std::to_string(level);
    auto out = Call(c, b, s, level).Run();
    ASSERT_TRUE(out.ok()) << what << ": " << out.status().message();
    const Tensor& y = (*out)[0].tensor();
    ASSERT_EQ(y.shape(), ys) << what;
    const auto v = testing::Values(y);
    // f32 sums in another order (f16 outputs: one f16 rounding).
    const double tol = c.f16 ? 1e-3 * (mag + 1) : 4e-6 * (mag + 1);
    // accuracy_level 4 on the fast path: int8 activations (the general path stays f32, so the
    // bound holds there too).
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_NEAR(v[i], want[i], tol + (level == 4 ? qerr[i] : 0.0)) << what << " at " << i;
    y_level[level] = v;
  }
  // Level 4 really quantizes the activations of 4-bit weights (fast and general path alike).
  EXPECT_EQ(c.bits == 4, y_level[0] != y_level[4]) << "K=" << c.K << " N=" << c.N << " bs=" << c.bs;
}

TEST(MatMulNBits, FourBitFastPathEveryZeroPointForm) {
  uint32_t seed = 10;
  for (Zp zp : {Zp::kNone, Zp::kU8, Zp::kFloat})
    for (const NBitsCase& c : {NBitsCase{32, 16, 4, 32, zp}, NBitsCase{100, 33, 4, 32, zp, false, true},
                               NBitsCase{256, 20, 4, 64, zp, false, false, {2, 5}},
                               NBitsCase{300, 7, 4, 128, zp, false, true, {}},
                               NBitsCase{64, 40, 4, 32, zp, false, false, {17}}})
      Check(c, seed++);
}

TEST(MatMulNBits, GeneralPathBitsBlockSizesGIdxFloat16) {
  uint32_t seed = 50;
  const NBitsCase cases[] = {
      {40, 9, 4, 16, Zp::kU8},           {70, 12, 2, 16, Zp::kNone, false, true},
      {64, 10, 2, 32, Zp::kU8},          {50, 11, 8, 16, Zp::kU8, false, true},
      {96, 5, 8, 32, Zp::kFloat},        {128, 8, 4, 32, Zp::kU8, true},
      {100, 6, 4, 32, Zp::kNone, false, true, {3}, true},
      {64, 16, 4, 64, Zp::kFloat, false, false, {2}, true},
  };
  for (const auto& c : cases) Check(c, seed++);
}

TEST(MatMulNBits, InputErrorsNameTheInput) {
  const NBitsCase c{64, 8, 4, 32, Zp::kU8};
  const Built b = Build(c, 3);
  auto expect_error = [&](const NnCall& call, const std::string& needle) {
    auto out = call.Run();
    ASSERT_FALSE(out.ok()) << needle;
    EXPECT_NE(out.status().message().find(needle), std::string::npos) << out.status().message();
  };
  NnCall call = Call(c, b, Source::kInitializer);
  call.attrs = {AttrInt("K", 64), AttrInt("N", 8)};
  expect_error(call, "block_size");
  call = Call(c, b, Source::kFeed);
  call.attrs[3] = AttrInt("block_size", 48);
  expect_error(call, "power of two");
  call = Call(c, b, Source::kFeed);
  call.attrs[2] = AttrInt("bits", 3);
  expect_error(call, "bits");
  call = Call(c, b, Source::kFeed);
  call.inputs[0] = F32({2, 63}, std::vector<double>(126, 0.5));
  expect_error(call, "must end in K = 64");
  for (Source s : {Source::kFeed, Source::kInitializer}) {
    call = Call(c, b, s);
    call.inputs[1] = MakeTensor(DType::kUInt8, {8, 2, 8}, std::vector<double>(128, 1));
    expect_error(call, "input B");
    call = Call(c, b, s);
    call.inputs[2] = F32({8, 3}, std::vector<double>(24, 0.1));
    expect_error(call, "input scales");
    call = Call(c, b, s);
    call.inputs[3] = MakeTensor(DType::kUInt8, {9}, std::vector<double>(9, 0));
    expect_error(call, "input zero_points");
  }
}

}  // namespace
}  // namespace vt::ops
