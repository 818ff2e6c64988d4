// Throughput of the float32 elementwise kernels the real models lean on (PaddleOCR, Silero VAD),
// each run as a chain of 8 identical nodes through a Session (so buffers come from the pool, as
// in production), with the ratio to a plain scalar loop measured in the same run. Not a test:
// run build/bench/vtensor-elementwise-bench (VT_BENCH_THREADS=N for N threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "ops/common/op_test_util.h"
#include "vtensor/runtime/session.h"

namespace vt::ops {
namespace {

constexpr int kChain = 8;

// Minimum over repeated calls: the build machine is shared, and the minimum is the least
// disturbed sample.
double SecondsPerCall(const std::function<void()>& f) {
  f();  // warm-up (pool, page faults)
  double best = 1e30, total = 0;
  for (int i = 0; i < 200 && total < 0.5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    total += s;
  }
  return best;
}

// x -> op -> op -> ... (kChain nodes); `operand` (if defined) is an initializer fed as input 1.
std::unique_ptr<Session> Chain(const std::string& op, std::vector<Attribute> attrs,
                               const Tensor& operand, int threads) {
  Model m;
  m.opsets[""] = 17;
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  g.inputs.push_back(GraphIO{"x", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  if (operand.defined()) g.initializers["w"] = operand;
  std::string prev = "x";
  for (int i = 0; i < kChain; ++i) {
    Node n;
    n.name = op + std::to_string(i);
    n.op_type = op;
    n.opset = 17;
    n.inputs = {prev};
    if (operand.defined()) n.inputs.push_back("w");
    n.outputs = {"v" + std::to_string(i)};
    for (const auto& a : attrs) n.attrs[a.name] = a;
    prev = n.outputs[0];
    g.nodes.push_back(std::move(n));
  }
  g.outputs.push_back(GraphIO{prev, TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  SessionOptions so;
  so.threads = threads;
  auto s = Session::Create(std::move(m), so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

void RunBench(const Shape& shape) {
  const int threads =
      std::getenv("VT_BENCH_THREADS") ? std::atoi(std::getenv("VT_BENCH_THREADS")) : 1;
  std::printf("shape %s, %d thread(s)\n", ShapeToString(shape).c_str(), threads);
  const int64_t n = NumElements(shape);
  Tensor x = Tensor::Empty(DType::kFloat32, shape);
  for (int64_t i = 0; i < n; ++i) x.mutable_data<float>()[i] = std::sin(static_cast<float>(i)) * 4;
  const int64_t c = shape[1];
  Shape cshape(shape.size() - 1, 1);
  cshape[0] = c;
  Tensor chan = Tensor::Empty(DType::kFloat32, cshape);
  for (int64_t i = 0; i < c; ++i)
    chan.mutable_data<float>()[i] = 0.5f + 0.01f * static_cast<float>(i);
  Tensor same = x.Clone();
  Tensor scalar = testing::F32({}, {1.0001});
  Tensor two = testing::F32({}, {2});

  // Baseline: the naive scalar loop the kernels must beat (out = a * b + per-element call).
  std::vector<float> bo(static_cast<size_t>(n));
  volatile float sink = 0;
  const float* px = x.data<float>();
  const double base_add = SecondsPerCall([&] {
    for (int64_t i = 0; i < n; ++i) bo[static_cast<size_t>(i)] = px[i] + static_cast<float>(i & 7);
    sink = bo[static_cast<size_t>(n / 2)];
  });
  const double base_exp = SecondsPerCall([&] {
    for (int64_t i = 0; i < n; ++i) bo[static_cast<size_t>(i)] = 1.0f / (1.0f + std::exp(-px[i]));
    sink = bo[static_cast<size_t>(n / 2)];
  });
  std::printf("%-26s %10s %8s %8s %s\n", "op", "ns/elem", "ns/op", "GB/s", "vs scalar baseline");
  std::printf("%-26s %10.3f %8.0f %8.2f\n", "baseline add loop", base_add / n * 1e9, base_add * 1e9,
              8.0 * n / base_add / 1e9);
  std::printf("%-26s %10.3f %8.0f %8.2f\n", "baseline sigmoid (libm)", base_exp / n * 1e9,
              base_exp * 1e9, 8.0 * n / base_exp / 1e9);

  struct Case {
    const char* label;
    std::string op;
    std::vector<Attribute> attrs;
    Tensor operand;
    bool transcendental;
  };
  const std::vector<Case> cases = {
      {"Identity (runtime floor)", "Identity", {}, Tensor(), false},
      {"Add same shape", "Add", {}, same, false},
      {"Add [C,1..] over NC..", "Add", {}, chan, false},
      {"Mul [C,1..] over NC..", "Mul", {}, chan, false},
      {"Mul scalar", "Mul", {}, scalar, false},
      {"Div [C,1..]", "Div", {}, chan, false},
      {"Sub same shape", "Sub", {}, same, false},
      {"Pow scalar 2", "Pow", {}, two, false},
      {"Relu", "Relu", {}, Tensor(), false},
      {"Clip(attr) opset17 none", "Clip", {}, Tensor(), false},
      {"HardSigmoid", "HardSigmoid", {}, Tensor(), false},
      {"HardSwish", "HardSwish", {}, Tensor(), false},
      {"LeakyRelu", "LeakyRelu", {}, Tensor(), false},
      {"Sqrt", "Sqrt", {}, Tensor(), false},
      {"Sigmoid", "Sigmoid", {}, Tensor(), true},
      {"Tanh", "Tanh", {}, Tensor(), true},
  };
  for (const Case& c : cases) {
    auto s = Chain(c.op, c.attrs, c.operand, threads);
    ASSERT_NE(s, nullptr);
    std::vector<Value> in = {Value(x)};
    const double t = SecondsPerCall([&] {
                       auto r = s->Run(in);
                       ASSERT_TRUE(r.ok()) << r.status().ToString();
                     }) /
                     kChain;
    const double base = c.transcendental ? base_exp : base_add;
    std::printf("%-26s %10.3f %8.0f %8.2f %6.2fx\n", c.label, t / n * 1e9, t * 1e9,
                8.0 * n / t / 1e9, base / t);
  }
}

// A typical mid-network activation (2 MiB) and a Silero-VAD-sized one (per-op overhead).
TEST(ElementwiseBench, Float32HotOps) {
  RunBench({1, 32, 128, 128});
  RunBench({1, 64, 2});
}

}  // namespace
}  // namespace vt::ops
