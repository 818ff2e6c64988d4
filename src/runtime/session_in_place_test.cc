// Elementwise outputs over inputs that die at their node (KernelContext::AllocOutputOver): the
// run's peak of live buffers drops, and a value read later is never overwritten.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vtensor/base/host_memory.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

constexpr int64_t kN = 256 * 1024;  // 1 MiB of float: arena sized

// x float[kN] -> h = Abs(x), then `nodes` ({op, inputs, output}); graph output y.
std::unique_ptr<Session> Load(const std::vector<std::vector<std::string>>& nodes) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "y"}) {
    auto* io = std::strcmp(name, "x") == 0 ? g->add_input() : g->add_output();
    io->set_name(name);
    auto* tt = io->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(kN);
  }
  std::vector<std::vector<std::string>> all = {{"Abs", "x", "h"}};
  all.insert(all.end(), nodes.begin(), nodes.end());
  for (size_t k = 0; k < all.size(); ++k) {
    auto* n = g->add_node();
    n->set_op_type(all[k][0]);
    n->set_name("n" + std::to_string(k));
    for (size_t i = 1; i + 1 < all[k].size(); ++i) n->add_input(all[k][i]);
    n->add_output(all[k].back());
  }
  std::string bytes;
  m.SerializeToString(&bytes);
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor Input() {
  Tensor x = Tensor::Empty(DType::kFloat32, {kN});
  float* p = x.mutable_data<float>();
  for (int64_t i = 0; i < kN; ++i) p[i] = static_cast<float>(i % 7) - 3.f;
  return x;
}

bool ArenaOff() {
  const char* a = std::getenv("VTENSOR_HOST_ARENA");
  return a != nullptr && (std::strcmp(a, "off") == 0 || std::strcmp(a, "0") == 0);
}

// Each Add's input dies at it: every Add writes over it, so after Abs's output no further
// buffer is live at once (without: two, the input and the output of each Add).
TEST(SessionInPlaceTest, ChainOfDyingInputsKeepsOneBufferLive) {
  if (ArenaOff()) GTEST_SKIP() << "VTENSOR_HOST_ARENA=off";
  auto s = Load({{"Add", "h", "h", "h2"}, {"Neg", "h2", "h3"}, {"Mul", "h3", "h3", "y"}});
  ASSERT_NE(s, nullptr);
  const Tensor x = Input();
  const uint64_t live0 = GetHostMemoryStats().live_bytes;
  ResetHostMemoryPeak();
  auto r = s->Run({Value(x)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const uint64_t peak = GetHostMemoryStats().peak_live_bytes - live0;
  EXPECT_LT(peak, 2 * kN * sizeof(float)) << "h, h2, h3 and y share one buffer";
  const float* y = (*r)[0].tensor().data<float>();
  const float* px = x.data<float>();
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(y[i], 4.f * px[i] * px[i]) << i;
}

// h is read again after the first Add: that Add must not write over it (y = 2|x| + |x|).
TEST(SessionInPlaceTest, ValueReadLaterIsNotOverwritten) {
  auto s = Load({{"Add", "h", "h", "h2"}, {"Add", "h2", "h", "y"}});
  ASSERT_NE(s, nullptr);
  const Tensor x = Input();
  auto r = s->Run({Value(x)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const float* y = (*r)[0].tensor().data<float>();
  const float* px = x.data<float>();
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(y[i], 3.f * std::abs(px[i])) << i;
  EXPECT_EQ(x.data<float>()[1], -2.f) << "the caller's input is never written";
}

// The graph input dies at its only node, but the caller holds it: never written over.
TEST(SessionInPlaceTest, GraphInputIsNotOverwritten) {
  auto s = Load({{"Neg", "x", "y0"}, {"Add", "y0", "h", "y"}});
  ASSERT_NE(s, nullptr);
  const Tensor x = Input();
  auto r = s->Run({Value(x)});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const float* px = x.data<float>();
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(px[i], static_cast<float>(i % 7) - 3.f) << i;
}

}  // namespace
}  // namespace vt
