// Session::RunNamed, LoadFromBytes and the caller-memory contract (runtime/session.h): inputs
// borrowed without a copy, outputs contiguous and never over a borrowed input's bytes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <iterator>
#include <thread>
#include <vector>

#include "vtensor/runtime/session.h"

namespace vt {
namespace {

// y = Add(x, w) with w = {10, 20, 30}; z = Identity(x); t = Transpose(x). x float[2, 3].
std::string ModelBytes() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  for (float v : {10.f, 20.f, 30.f}) w->add_float_data(v);
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  for (const char* o : {"y", "z", "t"}) g->add_output()->set_name(o);
  auto node = [&](const char* op, const std::vector<const char*>& in, const char* out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(std::string(op) + "0");
    for (const char* i : in) n->add_input(i);
    n->add_output(out);
  };
  node("Add", {"x", "w"}, "y");
  node("Identity", {"x"}, "z");
  node("Transpose", {"x"}, "t");
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

std::unique_ptr<Session> Load() {
  const std::string bytes = ModelBytes();
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(SessionRunTest, BorrowedInputOutputsOwnTheirBytes) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  float x[6] = {0, 1, 2, 3, 4, 5};
  auto in = Tensor::Borrow(DType::kFloat32, {2, 3}, x, sizeof x);
  ASSERT_TRUE(in.ok());
  auto out = s->Run({Value(*in)});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Tensor& z = (*out)[1].tensor();
  EXPECT_NE(z.data<float>(), x) << "Identity of a borrowed input must be copied";
  EXPECT_EQ(std::vector<float>(z.data<float>(), z.data<float>() + z.numel()),
            std::vector<float>(std::begin(x), std::end(x)));
  const Tensor& t = (*out)[2].tensor();
  EXPECT_TRUE(t.is_contiguous()) << "a transposed view must come out dense";
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.data<float>()[1], 3.f);
  std::memset(x, 0, sizeof x);  // the caller reuses its buffer: outputs are unaffected
  EXPECT_EQ(z.data<float>()[5], 5.f);
  EXPECT_EQ((*out)[0].tensor().data<float>()[5], 35.f);
}

TEST(SessionRunTest, RunNamedPicksInputsAndOutputsByName) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  Tensor x = Tensor::FromF32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto out = s->RunNamed({{"x", Value(x)}}, {"t", "y"});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].tensor().shape(), (Shape{3, 2}));
  EXPECT_EQ((*out)[1].tensor().data<float>()[0], 11.f);
  auto all = s->RunNamed({{"x", Value(x)}});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
}

TEST(SessionRunTest, RunNamedNamesBadNames) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  Value x(Tensor::FromF32({1, 2, 3, 4, 5, 6}, {2, 3}));
  auto msg = [&](const std::vector<std::pair<std::string, Value>>& in,
                 const std::vector<std::string>& out) {
    auto r = s->RunNamed(in, out);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(msg({{"q", x}}, {}).find("no input named 'q' (inputs: 'x')"), std::string::npos);
  EXPECT_NE(msg({{"x", x}, {"x", x}}, {}).find("input 'x' is given twice"), std::string::npos);
  EXPECT_NE(msg({}, {}).find("input 'x' is missing"), std::string::npos);
  EXPECT_NE(msg({{"x", x}}, {"nope"}).find("no output named 'nope' (outputs: 'y', 'z', 't')"),
            std::string::npos);
}

TEST(SessionRunTest, LoadFromBytesRejectsJunk) {
  const std::string junk = "\x08\x01junk";
  auto s = Session::LoadFromBytes(junk.data(), junk.size(), "/tmp");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("<model bytes>"), std::string::npos);
  EXPECT_FALSE(Session::LoadFromBytes(nullptr, 4).ok());
  auto empty = Session::LoadFromBytes(junk.data(), 0);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("<model bytes>: empty (0 bytes)"), std::string::npos);
}

// As Load: malformed compiled-tensor fields (27-29) are reported, not an error.
TEST(SessionRunTest, LoadFromBytesTakesMalformedCompiledFieldsAsLoadDoes) {
  const std::string bytes = ModelBytes() + std::string("\xEA\x01\x03\xFF\xFF\xFF", 6);  // field 29
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_NE((*s)->extension_error().find("<model bytes>: field 27/28/29"), std::string::npos)
      << (*s)->extension_error();
  EXPECT_TRUE((*s)->cache_report().empty());
  auto out = (*s)->Run({Value(Tensor::FromF32({1, 2, 3, 4, 5, 6}, {2, 3}))});
  ASSERT_TRUE(out.ok()) << out.status().message();
  SessionOptions no_cache;
  no_cache.cache.enabled = false;
  auto plain = Session::LoadFromBytes(bytes.data(), bytes.size(), "", no_cache);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->extension_error(), "");
}

TEST(SessionRunTest, ConcurrentRunsGiveSerialResults) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const float k = static_cast<float>(t);
      Tensor x = Tensor::FromF32({k, k + 1, k + 2, k + 3, k + 4, k + 5}, {2, 3});
      for (int i = 0; i < 100; ++i) {
        auto out = s->Run({Value(x)});
        if (!out.ok() || (*out)[0].tensor().data<float>()[5] != k + 35.f ||
            (*out)[2].tensor().data<float>()[1] != k + 3.f)
          ++bad[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

}  // namespace
}  // namespace vt
