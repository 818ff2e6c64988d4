// Bad input through the C++ API (runtime/session.h), one test per case as the C API
// (api/c/c_api_test.cc) and Python (python/tests/test_errors.py) have theirs: every case is an
// error value naming the model, the input or output and the field, never an abort.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "vtensor/runtime/session.h"

namespace vt {
namespace {

// y = Relu(x), x float[2, 3] (fixed dims), loaded from bytes (messages say "<model bytes>").
std::unique_ptr<Session> Load(const SessionOptions& opts = {}) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("y");
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("relu0");
  n->add_input("x");
  n->add_output("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  auto s = Session::LoadFromBytes(bytes.data(), bytes.size(), "", opts);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

Value X() { return Value(Tensor::FromF32({1, 2, 3, 4, 5, 6}, {2, 3})); }

// Expects an InvalidArgument-class error whose message holds every part.
template <typename T>
void ExpectError(const Expected<T>& r, std::initializer_list<const char*> parts) {
  ASSERT_FALSE(r.ok());
  for (const char* p : parts)
    EXPECT_NE(r.status().message().find(p), std::string::npos) << r.status().message();
}

TEST(SessionBadInputTest, WrongDtype) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  // int64[6]: the dtype is checked before the shape, so the message is about the dtype.
  const Value i64(Tensor::FromI64({1, 2, 3, 4, 5, 6}));
  ExpectError(s->Run({i64}), {"<model bytes>", "input 'x'", "dtype int64", "float32"});
  ExpectError(s->RunNamed({{"x", i64}}), {"input 'x'", "dtype int64"});
}

TEST(SessionBadInputTest, WrongShape) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  ExpectError(s->Run({Value(Tensor::FromF32({1, 2, 3}, {3}))}), {"input 'x'", "rank 1"});
  ExpectError(s->Run({Value(Tensor::FromF32({1, 2, 3, 4, 5, 6}, {3, 2}))}),
              {"input 'x'", "does not match declared", "at dim 0"});
}

TEST(SessionBadInputTest, MissingInput) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  ExpectError(s->Run({}), {"model takes 1 inputs, got 0"});
  ExpectError(s->RunNamed({}), {"input 'x' is missing"});
}

TEST(SessionBadInputTest, UnknownInputName) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  ExpectError(s->RunNamed({{"x", X()}, {"q", X()}}), {"no input named 'q' (inputs: 'x')"});
}

TEST(SessionBadInputTest, UnknownOutputName) {
  auto s = Load();
  ASSERT_NE(s, nullptr);
  ExpectError(s->RunNamed({{"x", X()}}, {"nope"}), {"no output named 'nope' (outputs: 'y')"});
  ASSERT_TRUE(s->RunNamed({{"x", X()}}, {"y"}).ok());
}

// C++ has no closed state (a session lives as long as its unique_ptr; runs must return before
// it is destroyed). The session that cannot run is one prepared for another CPU.
TEST(SessionBadInputTest, SessionThatCannotRun) {
  SessionOptions opts;
  opts.prepare_only = true;
  auto s = Load(opts);
  ASSERT_NE(s, nullptr);
  ExpectError(s->Run({X()}), {"<model bytes>", "prepare_only", "cannot run"});
  ExpectError(s->RunNamed({{"x", X()}}), {"prepare_only"});
}

// The C++ counterparts of a null pointer: no model bytes, and an empty Value for a tensor.
TEST(SessionBadInputTest, NullDataAndEmptyValue) {
  ExpectError(Session::LoadFromBytes(nullptr, 10), {"<model bytes>", "data is null"});
  auto s = Load();
  ASSERT_NE(s, nullptr);
  ExpectError(s->Run({Value()}), {"input 'x'", "expected a tensor"});
}

}  // namespace
}  // namespace vt
