// A decode loop of one GroupQueryAttention layer (32 query heads, 8 KV heads, head size 64:
// a 2048-wide decoder) through a Session, each step's present_key / present_value fed back as
// the next step's past: the present grows in place in its spare capacity (kv_cache.h). The
// baseline in the same run feeds a contiguous copy of the present instead (the caller's copy is
// not timed), so the operator copies the past into a new present every step, as ONNX Runtime
// does without a shared past / present buffer. Prints the median step time of both and their
// ratio; rounds alternate the two.
//
// usage: vtensor-gqa-decode-bench [PAST [STEPS [ROUNDS]]]   (defaults 511, 64, 7; 1 thread)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "vtensor/runtime/session.h"

namespace {

using vt::DType;
using vt::Tensor;
using vt::Value;
constexpr int64_t kHeads = 32, kKvHeads = 8, kHead = 64;

vt::GraphIO Io(const std::string& name, DType t) {
  return vt::GraphIO{name, vt::TensorSpec(vt::TypeInfo::Tensor(t, std::nullopt))};
}

std::unique_ptr<vt::Session> GqaSession() {
  vt::Model m;
  m.opsets[""] = 17;
  m.opsets["com.microsoft"] = 1;
  m.graph = std::make_shared<vt::Graph>();
  vt::Graph& g = *m.graph;
  for (const char* n : {"query", "key", "value", "past_key", "past_value"})
    g.inputs.push_back(Io(n, DType::kFloat32));
  g.inputs.push_back(Io("seqlens_k", DType::kInt32));
  g.inputs.push_back(Io("total_sequence_length", DType::kInt32));
  vt::Node n;
  n.name = "gqa", n.op_type = "GroupQueryAttention", n.domain = "com.microsoft", n.opset = 1;
  n.inputs = {"query", "key", "value", "past_key", "past_value", "seqlens_k",
              "total_sequence_length"};
  n.outputs = {"output", "present_key", "present_value"};
  for (auto [name, v] : {std::pair<const char*, int64_t>{"num_heads", kHeads},
                         {"kv_num_heads", kKvHeads}}) {
    vt::Attribute a;
    a.name = name, a.type = vt::Attribute::Type::kInt, a.i = v;
    n.attrs[name] = a;
  }
  g.nodes.push_back(n);
  for (const char* o : {"output", "present_key", "present_value"})
    g.outputs.push_back(Io(o, DType::kFloat32));
  auto s = vt::Session::Create(std::move(m));
  if (!s.ok()) {
    std::fprintf(stderr, "gqa-decode-bench: %s\n", s.status().ToString().c_str());
    std::exit(2);
  }
  return std::move(*s);
}

Tensor Random(const vt::Shape& shape, uint32_t seed) {
  Tensor t = Tensor::Empty(DType::kFloat32, shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> d;
  float* p = t.mutable_data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(g);
  return t;
}

Tensor Int32(int32_t v, bool scalar) {
  Tensor t = Tensor::Empty(DType::kInt32, scalar ? vt::Shape{} : vt::Shape{1});
  *t.mutable_data<int32_t>() = v;
  return t;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One decode loop of `steps` steps from `past` cached rows; returns each step's Run time (ms).
std::vector<double> Loop(vt::Session& s, int64_t past, int steps, bool grow) {
  const Tensor q = Random({1, 1, kHeads * kHead}, 1), k = Random({1, 1, kKvHeads * kHead}, 2),
               v = Random({1, 1, kKvHeads * kHead}, 3);
  Tensor pk = Random({1, kKvHeads, past, kHead}, 4), pv = Random({1, kKvHeads, past, kHead}, 5);
  std::vector<double> ms;
  for (int i = 0; i < steps; ++i) {
    const int64_t total = past + i + 1;
    std::vector<Value> in = {q, k, v, pk, pv, Int32(static_cast<int32_t>(total - 1), false),
                             Int32(static_cast<int32_t>(total), true)};
    const auto t0 = std::chrono::steady_clock::now();
    auto out = s.Run(in);
    const auto t1 = std::chrono::steady_clock::now();
    if (!out.ok()) {
      std::fprintf(stderr, "gqa-decode-bench: %s\n", out.status().ToString().c_str());
      std::exit(2);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    in.clear();
    pk = grow ? (*out)[1].tensor() : (*out)[1].tensor().Contiguous().Clone();
    pv = grow ? (*out)[2].tensor() : (*out)[2].tensor().Contiguous().Clone();
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t past = argc > 1 ? std::atoll(argv[1]) : 511;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 64;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  auto s = GqaSession();
  std::vector<double> grow, copy;
  Loop(*s, past, 4, true);  // warm-up
  for (int r = 0; r < rounds; ++r) {
    for (double t : Loop(*s, past, steps, true)) grow.push_back(t);
    for (double t : Loop(*s, past, steps, false)) copy.push_back(t);
  }
  const double g = Median(grow), c = Median(copy);
  std::printf("gqa decode step, past %lld..%lld, 32/8 heads x 64, 1 thread: in place %.4f ms, "
              "copy %.4f ms, copy/in place %.2fx\n",
              static_cast<long long>(past), static_cast<long long>(past + steps - 1), g, c, c / g);
  return 0;
}
