// One Session run from many threads at once (runtime/session.h, "Thread safety"): every
// output of every concurrent run must be byte-identical to a serial run of the same inputs.
// Models: the five real models (model cache, inputs from tests/data/refcases; skipped when not
// fetched) and a model with If and Loop subgraphs (nested, with outer-scope references) built
// here. Each model gets two input sets (the second scales every float input), threads
// alternate between them, so a run that read another run's buffers would differ.
//
// Sizes come from the environment, so that the ThreadSanitizer build (scripts/tsan.sh) runs
// fewer: VTENSOR_CONCURRENCY_THREADS (default 8), VTENSOR_CONCURRENCY_RUNS (runs per thread,
// default 200), VTENSOR_CONCURRENCY_INTRA_THREADS (SessionOptions::threads, default 1).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : def;
}

std::string ModelCache() {
  const char* env = std::getenv("VTENSOR_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  return env ? env : std::string(home ? home : "") + "/.cache/vtensor/models";
}

// The bytes of every output (tensors, and each tensor of a sequence), for exact comparison.
std::vector<std::string> OutputBytes(const std::vector<Value>& outs) {
  std::vector<std::string> r;
  auto add = [&](const Tensor& t) {
    const Tensor c = t.Contiguous();
    std::string s = ShapeToString(c.shape()) + DTypeName(c.dtype()) + ":";
    if (c.dtype() == DType::kString) {
      for (int64_t i = 0; i < c.numel(); ++i) s += c.data<std::string>()[i] + '\0';
    } else {
      s.append(static_cast<const char*>(c.raw_data()), c.nbytes());
    }
    r.push_back(std::move(s));
  };
  for (const Value& v : outs) {
    if (v.is_tensor()) add(v.tensor());
    if (v.is_sequence())
      for (const Tensor& t : v.sequence()) add(t);
    if (v.is_none()) r.push_back("none");
  }
  return r;
}

// `inputs` with every float32 tensor multiplied by `k` (a second, different input set).
std::vector<Value> Scaled(const std::vector<Value>& inputs, float k) {
  std::vector<Value> r;
  for (const Value& v : inputs) {
    if (!v.is_tensor() || v.tensor().dtype() != DType::kFloat32) {
      r.push_back(v);
      continue;
    }
    Tensor t = v.tensor().Clone();
    float* p = t.mutable_data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] *= k;
    r.push_back(Value(std::move(t)));
  }
  return r;
}

// Runs `session` from `threads` threads, `runs` times each, thread t on input set t % 2, and
// checks each run against the serial run of its input set.
void RunConcurrently(const Session& session, const std::vector<std::vector<Value>>& sets) {
  const int threads = EnvInt("VTENSOR_CONCURRENCY_THREADS", 8);
  const int runs = EnvInt("VTENSOR_CONCURRENCY_RUNS", 200);
  std::vector<std::vector<std::string>> want;
  for (const auto& in : sets) {
    auto r = session.Run(in);
    ASSERT_TRUE(r.ok()) << r.status().message();
    want.push_back(OutputBytes(*r));
  }
  ASSERT_NE(want[0], want[1]) << "the two input sets must give different outputs";

  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::string> first_error(static_cast<size_t>(threads));
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const size_t set = static_cast<size_t>(t) % sets.size();
      for (int i = 0; i < runs; ++i) {
        auto r = session.Run(sets[set]);
        if (!r.ok()) {
          if (errors++ == 0) first_error[static_cast<size_t>(t)] = r.status().message();
          continue;
        }
        if (OutputBytes(*r) != want[set]) ++mismatches;
      }
    });
  }
  for (auto& th : pool) th.join();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string err;
  for (const auto& e : first_error) err += e;
  EXPECT_EQ(errors.load(), 0) << err;
  EXPECT_EQ(mismatches.load(), 0) << "runs whose outputs differ from the serial run";
  std::printf("%d threads x %d runs: %.2f s\n", threads, runs, secs);
}

SessionOptions Options() {
  SessionOptions o;
  o.threads = EnvInt("VTENSOR_CONCURRENCY_INTRA_THREADS", 1);
  return o;
}

void CheckRealModel(const std::string& name) {
  const std::string path = ModelCache() + "/" + name + "/model.onnx";
  if (::access(path.c_str(), R_OK) != 0) GTEST_SKIP() << path << " not in the model cache";
  auto s = Session::Load(path, Options());
  ASSERT_TRUE(s.ok()) << s.status().message();
  const std::string data =
      std::string(VTENSOR_SOURCE_DIR) + "/tests/data/refcases/" + name + "/test_data_set_0";
  std::vector<Value> inputs;
  const auto ios = (*s)->inputs();
  for (size_t i = 0; i < ios.size(); ++i) {
    auto v = LoadValueFile(data + "/input_" + std::to_string(i) + ".pb", ios[i]->spec.type());
    ASSERT_TRUE(v.ok()) << v.status().message();
    inputs.push_back(*v);
  }
  RunConcurrently(**s, {inputs, Scaled(inputs, 0.5f)});
}

TEST(SessionConcurrencyTest, PaddleOcrDetector) { CheckRealModel("ch_PP-OCRv4_det_infer"); }
TEST(SessionConcurrencyTest, PaddleOcrRecognizer) { CheckRealModel("ch_PP-OCRv4_rec_infer"); }
TEST(SessionConcurrencyTest, PaddleOcrClassifier) {
  CheckRealModel("ch_ppocr_mobile_v2.0_cls_infer");
}
TEST(SessionConcurrencyTest, SileroVad16kOp15) { CheckRealModel("silero_vad_16k_op15"); }
TEST(SessionConcurrencyTest, SileroVadV5) { CheckRealModel("silero_vad_v5"); }

// ---- If / Loop model ----------------------------------------------------------------------

void FloatIO(onnx::ValueInfoProto* vi, const std::string& name,
             const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void TypedIO(onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

onnx::NodeProto* Node(onnx::GraphProto* g, const std::string& op,
                      const std::vector<std::string>& in, const std::vector<std::string>& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + out[0]);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void FloatConst(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                float base) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(base * static_cast<float>((i * 7) % 11 - 5));
}

// x float[4, 8]. If(sum(x) > 0) picks x * x or -x; a Loop of 6 iterations carries
// v <- If(iter < 3, tanh(v W) + x, (tanh(v W) + x) * 0.5) (an If nested in the Loop body, both
// reading the outer x and W) and scans each v. Outputs: the final v [4, 8] and the scan
// [6, 4, 8].
std::string SubgraphModelBytes() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("if_loop");
  FloatIO(g->add_input(), "x", {4, 8});
  FloatConst(g, "W", {8, 8}, 0.05f);
  FloatConst(g, "half", {}, 0.f);
  g->mutable_initializer(1)->set_float_data(0, 0.5f);
  auto* trip = g->add_initializer();
  trip->set_name("trip");
  trip->set_data_type(onnx::TensorProto::INT64);
  trip->add_int64_data(6);
  auto* three = g->add_initializer();
  three->set_name("three");
  three->set_data_type(onnx::TensorProto::INT64);
  three->add_int64_data(3);
  FloatConst(g, "zero", {}, 0.f);

  Node(g, "ReduceSum", {"x"}, {"s"})->add_attribute()->set_name("keepdims");
  g->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  g->mutable_node(0)->mutable_attribute(0)->set_i(0);
  Node(g, "Greater", {"s", "zero"}, {"pos"});
  auto* iff = Node(g, "If", {"pos"}, {"t"});
  auto* then_a = iff->add_attribute();
  then_a->set_name("then_branch");
  then_a->set_type(onnx::AttributeProto::GRAPH);
  auto* tg = then_a->mutable_g();
  tg->set_name("then");
  Node(tg, "Mul", {"x", "x"}, {"t_then"});
  FloatIO(tg->add_output(), "t_then", {4, 8});
  auto* else_a = iff->add_attribute();
  else_a->set_name("else_branch");
  else_a->set_type(onnx::AttributeProto::GRAPH);
  auto* eg = else_a->mutable_g();
  eg->set_name("else");
  Node(eg, "Neg", {"x"}, {"t_else"});
  FloatIO(eg->add_output(), "t_else", {4, 8});

  auto* loop = Node(g, "Loop", {"trip", "", "t"}, {"v_final", "v_scan"});
  auto* body_a = loop->add_attribute();
  body_a->set_name("body");
  body_a->set_type(onnx::AttributeProto::GRAPH);
  auto* body = body_a->mutable_g();
  body->set_name("body");
  TypedIO(body->add_input(), "iter", onnx::TensorProto::INT64);
  TypedIO(body->add_input(), "cond_in", onnx::TensorProto::BOOL);
  FloatIO(body->add_input(), "v", {4, 8});
  Node(body, "MatMul", {"v", "W"}, {"vw"});
  Node(body, "Tanh", {"vw"}, {"th"});
  Node(body, "Add", {"th", "x"}, {"v2"});
  Node(body, "Less", {"iter", "three"}, {"early"});
  Node(body, "Identity", {"cond_in"}, {"cond_out"});
  auto* inner = Node(body, "If", {"early"}, {"v3"});
  auto* it = inner->add_attribute();
  it->set_name("then_branch");
  it->set_type(onnx::AttributeProto::GRAPH);
  it->mutable_g()->set_name("inner_then");
  Node(it->mutable_g(), "Identity", {"v2"}, {"v3_then"});
  FloatIO(it->mutable_g()->add_output(), "v3_then", {4, 8});
  auto* ie = inner->add_attribute();
  ie->set_name("else_branch");
  ie->set_type(onnx::AttributeProto::GRAPH);
  ie->mutable_g()->set_name("inner_else");
  Node(ie->mutable_g(), "Mul", {"v2", "half"}, {"v3_else"});
  FloatIO(ie->mutable_g()->add_output(), "v3_else", {4, 8});
  Node(body, "Identity", {"v3"}, {"v3_scan"});
  TypedIO(body->add_output(), "cond_out", onnx::TensorProto::BOOL);
  FloatIO(body->add_output(), "v3", {4, 8});
  FloatIO(body->add_output(), "v3_scan", {4, 8});

  FloatIO(g->add_output(), "v_final", {4, 8});
  FloatIO(g->add_output(), "v_scan", {6, 4, 8});
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

TEST(SessionConcurrencyTest, IfAndLoopSubgraphs) {
  const std::string bytes = SubgraphModelBytes();
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size(), "", Options());
  ASSERT_TRUE(s.ok()) << s.status().message();
  Tensor x = Tensor::Empty(DType::kFloat32, {4, 8});
  for (int i = 0; i < 32; ++i) x.mutable_data<float>()[i] = 0.1f * static_cast<float>(i % 9) - 0.2f;
  // The second set (x scaled by -1) takes the If's other branch.
  RunConcurrently(**s, {{Value(x)}, Scaled({Value(x)}, -1.f)});
}

}  // namespace
}  // namespace vt
