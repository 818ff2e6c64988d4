// RNN / GRU / LSTM kernels against a direct double-precision reference of the ONNX equations,
// on odd sizes, both directions, layouts 0 and 1, sequence_lens, initial states, peepholes,
// clip, linear_before_reset, non-default activations; plus bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/rnn/rnn_kernels.h"
#include "ops/common/op_test_util.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

using testing::AttrFloat;
using testing::AttrFloats;
using testing::AttrInt;
using testing::F32;
using testing::I64;
using testing::OpCall;
using testing::Values;

struct Case {
  std::string op = "LSTM";
  int64_t seq = 3, batch = 2, in = 5, hidden = 7;
  std::string direction = "forward";
  int64_t layout = 0;
  bool bias = true, lens = false, init = false, peep = false, lbr = false;
  float clip = 0;
  std::vector<std::string> acts;  // empty: defaults
  std::vector<float> alphas, betas;
};

double Act(const std::string& n, double x, double al, double be) {
  if (n == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (n == "Tanh") return std::tanh(x);
  if (n == "Relu") return std::max(x, 0.0);
  if (n == "HardSigmoid") return std::min(1.0, std::max(0.0, al * x + be));
  if (n == "LeakyRelu") return x >= 0 ? x : al * x;
  if (n == "ScaledTanh") return al * std::tanh(be * x);
  ADD_FAILURE() << "unknown activation " << n;
  return 0;
}

struct Data {
  std::vector<double> x, w, r, b, h0, c0, p;
  std::vector<int64_t> lens;
};

// Outputs in layout 0: Y [seq, D, batch, H], Y_h / Y_c [D, batch, H].
void Reference(const Case& c, const Data& d, std::vector<double>* y, std::vector<double>* yh,
               std::vector<double>* yc) {
  const int64_t G = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, H = c.hidden;
  const int nacts = c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1;
  std::vector<std::string> acts = c.acts;
  if (acts.empty())
    for (int64_t k = 0; k < D; ++k) {
      if (c.op == "LSTM") acts.insert(acts.end(), {"Sigmoid", "Tanh", "Tanh"});
      if (c.op == "GRU") acts.insert(acts.end(), {"Sigmoid", "Tanh"});
      if (c.op == "RNN") acts.insert(acts.end(), {"Tanh"});
    }
  y->assign(static_cast<size_t>(c.seq * D * c.batch * H), 0.0);
  yh->assign(static_cast<size_t>(D * c.batch * H), 0.0);
  yc->assign(static_cast<size_t>(D * c.batch * H), 0.0);
  for (int64_t dir = 0; dir < D; ++dir) {
    const bool rev = c.direction == "reverse" || dir == 1;
    auto f = [&](int k, double v) {
      size_t ai = static_cast<size_t>(dir * nacts + k);
      double al = ai < c.alphas.size() ? c.alphas[ai] : 0.0;
      double be = ai < c.betas.size() ? c.betas[ai] : 0.0;
      if (c.clip > 0) v = std::min<double>(c.clip, std::max<double>(-c.clip, v));
      return Act(acts[ai], v, al, be);
    };
    for (int64_t b = 0; b < c.batch; ++b) {
      std::vector<double> h(static_cast<size_t>(H), 0.0), cs(static_cast<size_t>(H), 0.0);
      if (c.init)
        for (int64_t k = 0; k < H; ++k) {
          h[k] = d.h0[(dir * c.batch + b) * H + k];
          if (c.op == "LSTM") cs[k] = d.c0[(dir * c.batch + b) * H + k];
        }
      const int64_t len = c.lens ? d.lens[b] : c.seq;
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = rev ? len - 1 - s : s;
        auto xw = [&](int64_t row) {
          double v = 0;
          for (int64_t k = 0; k < c.in; ++k)
            v += d.w[(dir * G * H + row) * c.in + k] * d.x[(t * c.batch + b) * c.in + k];
          if (c.bias) v += d.b[dir * 2 * G * H + row];
          return v;
        };
        auto rh = [&](int64_t row, const std::vector<double>& hv) {
          double v = 0;
          for (int64_t k = 0; k < H; ++k) v += d.r[(dir * G * H + row) * H + k] * hv[k];
          if (c.bias) v += d.b[dir * 2 * G * H + G * H + row];
          return v;
        };
        std::vector<double> nh(static_cast<size_t>(H)), nc(static_cast<size_t>(H));
        if (c.op == "RNN") {
          for (int64_t k = 0; k < H; ++k) nh[k] = f(0, xw(k) + rh(k, h));
        } else if (c.op == "GRU") {
          std::vector<double> z(H), r(H), rhv(H);
          for (int64_t k = 0; k < H; ++k) {
            z[k] = f(0, xw(k) + rh(k, h));
            r[k] = f(0, xw(H + k) + rh(H + k, h));
            rhv[k] = r[k] * h[k];
          }
          for (int64_t k = 0; k < H; ++k) {
            double pre = c.lbr ? xw(2 * H + k) + r[k] * rh(2 * H + k, h)
                               : xw(2 * H + k) + rh(2 * H + k, rhv);
            double hh = f(1, pre);
            nh[k] = (1 - z[k]) * hh + z[k] * h[k];
          }
        } else {
          for (int64_t k = 0; k < H; ++k) {
            const double* p = c.peep ? &d.p[dir * 3 * H] : nullptr;
            double gi = xw(k) + rh(k, h) + (p ? p[k] * cs[k] : 0);
            double gf = xw(2 * H + k) + rh(2 * H + k, h) + (p ? p[2 * H + k] * cs[k] : 0);
            double i = f(0, gi), fg = f(0, gf), g = f(1, xw(3 * H + k) + rh(3 * H + k, h));
            nc[k] = fg * cs[k] + i * g;
            double o = f(0, xw(H + k) + rh(H + k, h) + (p ? p[H + k] * nc[k] : 0));
            nh[k] = o * Act(acts[dir * nacts + 2], nc[k], 0, 0);
          }
          cs = nc;
        }
        h = nh;
        for (int64_t k = 0; k < H; ++k) (*y)[((t * D + dir) * c.batch + b) * H + k] = h[k];
      }
      for (int64_t k = 0; k < H; ++k) {
        (*yh)[(dir * c.batch + b) * H + k] = h[k];
        (*yc)[(dir * c.batch + b) * H + k] = cs[k];
      }
    }
  }
}

std::vector<double> Random(size_t n, std::mt19937& rng, double scale = 0.5) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// Reorders a row-major tensor of `shape` by `perm` (output dim i = input dim perm[i]).
std::vector<double> Permute(const std::vector<double>& v, const Shape& shape,
                            const std::vector<int>& perm) {
  Tensor t = F32(shape, v);
  auto l = t.layout().Transpose({perm.begin(), perm.end()});
  return Values(t.WithLayout(*l).Contiguous());
}

void Check(const Case& c) {
  SCOPED_TRACE(c.op + " " + c.direction + " layout=" + std::to_string(c.layout) +
               " H=" + std::to_string(c.hidden));
  std::mt19937 rng(42);
  const int64_t G = c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1;
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, H = c.hidden;
  Data d;
  d.x = Random(static_cast<size_t>(c.seq * c.batch * c.in), rng, 1.0);
  d.w = Random(static_cast<size_t>(D * G * H * c.in), rng);
  d.r = Random(static_cast<size_t>(D * G * H * H), rng);
  d.b = Random(static_cast<size_t>(D * 2 * G * H), rng);
  d.h0 = Random(static_cast<size_t>(D * c.batch * H), rng);
  d.c0 = Random(static_cast<size_t>(D * c.batch * H), rng);
  d.p = Random(static_cast<size_t>(D * 3 * H), rng);
  for (int64_t b = 0; b < c.batch; ++b) d.lens.push_back(std::max<int64_t>(0, c.seq - b));
  std::vector<double> y, yh, yc;
  Reference(c, d, &y, &yh, &yc);

  OpCall call;
  call.op = c.op;
  call.opset = 14;
  call.attrs = {AttrInt("hidden_size", H), testing::AttrString("direction", c.direction),
                AttrInt("layout", c.layout)};
  if (c.lbr) call.attrs.push_back(AttrInt("linear_before_reset", 1));
  if (c.clip > 0) call.attrs.push_back(AttrFloat("clip", c.clip));
  if (!c.acts.empty()) {
    Attribute a;
    a.name = "activations";
    a.type = Attribute::Type::kStrings;
    a.strings = c.acts;
    call.attrs.push_back(a);
    // Only the activations that take alpha/beta consume entries, in order.
    std::vector<float> al, be;
    for (size_t i = 0; i < c.acts.size(); ++i) {
      if (c.acts[i] == "HardSigmoid" || c.acts[i] == "LeakyRelu" || c.acts[i] == "ScaledTanh")
        al.push_back(c.alphas[i]);
      if (c.acts[i] == "HardSigmoid" || c.acts[i] == "ScaledTanh") be.push_back(c.betas[i]);
    }
    if (!al.empty()) call.attrs.push_back(AttrFloats("activation_alpha", al));
    if (!be.empty()) call.attrs.push_back(AttrFloats("activation_beta", be));
  }
  const bool l1 = c.layout == 1;
  Shape xs = l1 ? Shape{c.batch, c.seq, c.in} : Shape{c.seq, c.batch, c.in};
  Shape ss = l1 ? Shape{c.batch, D, H} : Shape{D, c.batch, H};
  auto state = [&](const std::vector<double>& v) {
    return l1 ? Permute(v, {D, c.batch, H}, {1, 0, 2}) : v;
  };
  call.inputs = {F32(xs, l1 ? Permute(d.x, {c.seq, c.batch, c.in}, {1, 0, 2}) : d.x),
                 F32({D, G * H, c.in}, d.w), F32({D, G * H, H}, d.r),
                 F32({D, 2 * G * H}, d.b), I64({c.batch}, {d.lens.begin(), d.lens.end()}),
                 F32(ss, state(d.h0))};
  call.absent = {false, false, false, !c.bias, !c.lens, !c.init};
  if (c.op == "LSTM") {
    call.inputs.push_back(F32(ss, state(d.c0)));
    call.inputs.push_back(F32({D, 3 * H}, d.p));
    call.absent.push_back(!c.init);
    call.absent.push_back(!c.peep);
  }
  call.num_outputs = c.op == "LSTM" ? 3 : 2;
  auto r = call.Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<double> want_y = l1 ? Permute(y, {c.seq, D, c.batch, H}, {2, 0, 1, 3}) : y;
  auto expect_near = [](const std::vector<double>& got, const std::vector<double>& want,
                        const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 2e-5 + 1e-4 * std::fabs(want[i])) << what << " at " << i;
  };
  expect_near(Values((*r)[0].tensor()), want_y, "Y");
  expect_near(Values((*r)[1].tensor()), state(yh), "Y_h");
  if (c.op == "LSTM") expect_near(Values((*r)[2].tensor()), state(yc), "Y_c");
}

TEST(RnnTest, LstmVariants) {
  Case c;
  Check(c);
  c.direction = "bidirectional";
  c.init = c.peep = c.lens = true;
  Check(c);
  c.layout = 1;
  Check(c);
  c.direction = "reverse";
  c.clip = 0.3f;
  c.hidden = 33;
  c.in = 17;
  Check(c);
}

TEST(RnnTest, LstmCustomActivations) {
  Case c;
  c.direction = "bidirectional";
  c.acts = {"HardSigmoid", "LeakyRelu", "Tanh", "Sigmoid", "ScaledTanh", "Tanh"};
  c.alphas = {0.3f, 0.05f, 0, 0, 1.5f, 0};
  c.betas = {0.4f, 0, 0, 0, 0.7f, 0};
  Check(c);
}

TEST(RnnTest, GruVariants) {
  Case c;
  c.op = "GRU";
  Check(c);
  c.lbr = true;
  Check(c);
  c.direction = "bidirectional";
  c.init = c.lens = true;
  c.hidden = 9;
  Check(c);
  c.lbr = false;
  c.layout = 1;
  c.bias = false;
  Check(c);
}

TEST(RnnTest, RnnVariants) {
  Case c;
  c.op = "RNN";
  Check(c);
  c.direction = "reverse";
  c.init = c.lens = true;
  c.acts = {"Relu"};
  Check(c);
}

TEST(RnnTest, BadInputs) {
  OpCall call;
  call.op = "LSTM";
  call.opset = 14;
  call.attrs = {AttrInt("hidden_size", 3)};
  call.inputs = {F32({1, 1, 2}, {1, 2}), F32({1, 12, 2}, std::vector<double>(24, 0.1)),
                 F32({1, 12, 4}, std::vector<double>(48, 0.1))};
  EXPECT_FALSE(call.Run().ok());  // R has hidden 4, attribute says 3
  call.inputs[2] = F32({1, 12, 3}, std::vector<double>(36, 0.1));
  call.num_outputs = 3;
  EXPECT_TRUE(call.Run().ok());
  call.inputs.push_back(F32({1, 24}, std::vector<double>(24, 0)));
  call.inputs.push_back(I64({1}, {5}));  // longer than the sequence
  EXPECT_FALSE(call.Run().ok());
  call.inputs[4] = I64({1}, {1});
  call.inputs[0] = I64({1, 1, 2}, {1, 2});  // integer X
  EXPECT_FALSE(call.Run().ok());
  call.attrs.push_back(testing::AttrString("direction", "sideways"));
  call.inputs[0] = F32({1, 1, 2}, {1, 2});
  EXPECT_FALSE(call.Run().ok());
}

}  // namespace
}  // namespace vt::ops

namespace vt::ops {
namespace {

// float16 / bfloat16 run the float32 recurrence on the widened inputs and round each output
// once, so they equal the float32 run on the same (exactly representable) values, rounded.
TEST(RnnTest, Float16AndBFloat16EqualRoundedFloat32) {
  const int64_t seq = 3, batch = 7, in = 17, H = 5;
  auto vals = [](int64_t n, double a) {
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::round(std::sin(a * i) * 64) / 128;
    return v;
  };
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    const int64_t G = std::string(op) == "LSTM" ? 4 : std::string(op) == "GRU" ? 3 : 1;
    for (DType dt : {DType::kFloat16, DType::kBFloat16}) {
      const std::vector<std::vector<double>> data = {vals(seq * batch * in, 0.3), vals(2 * G * H * in, 0.7),
                                                     vals(2 * G * H * H, 1.1), vals(2 * 2 * G * H, 0.2),
                                                     vals(2 * batch * H, 0.9)};
      const std::vector<Shape> shapes = {{seq, batch, in}, {2, G * H, in}, {2, G * H, H}, {2, 2 * G * H},
                                         {2, batch, H}};
      auto call = [&](DType t) {
        OpCall c;
        c.op = op;
        c.opset = 22;
        c.attrs = {AttrInt("hidden_size", H), testing::AttrString("direction", "bidirectional")};
        for (size_t i = 0; i < 4; ++i)
          c.inputs.push_back(CastTensor(testing::MakeTensor(DType::kFloat32, shapes[i], data[i]), t));
        c.inputs.push_back(I64({batch}, {3, 1, 2, 3, 0, 3, 2}));
        c.inputs.push_back(CastTensor(testing::MakeTensor(DType::kFloat32, shapes[4], data[4]), t));
        c.num_outputs = 2;
        return c;
      };
      auto ref = call(DType::kFloat32).Run();
      auto got = call(dt).Run();
      ASSERT_TRUE(ref.ok() && got.ok()) << op << ": " << (got.ok() ? ref.status() : got.status()).ToString();
      for (size_t o = 0; o < 2; ++o) {
        ASSERT_EQ((*got)[o].tensor().dtype(), dt) << op;
        EXPECT_EQ(Values((*got)[o].tensor()), Values(CastTensor((*ref)[o].tensor(), dt))) << op << " output " << o;
      }
      OpCall mixed = call(dt);
      mixed.inputs[1] = CastTensor(mixed.inputs[1].tensor(), DType::kFloat32);
      auto r = mixed.Run();
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find("W has dtype float32"), std::string::npos) << r.status().ToString();
    }
  }
}

}  // namespace
}  // namespace vt::ops
