// Drives the C API (include/vtensor/vtensor_c.h) the way a C program does: a good run, then
// bad input through each entry point, each giving a status that names the cause.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "vtensor/vtensor_c.h"

namespace {

// y = Add(x, w), z = Identity(x): x float[batch, 3] (batch symbolic), w = {10, 20, 30}.
std::string AddIdentityModelBytes() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("add_identity");
  auto io = [](onnx::ValueInfoProto* vi, const char* name, bool symbolic) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    auto* d0 = tt->mutable_shape()->add_dim();
    if (symbolic) d0->set_dim_param("batch");
    tt->mutable_shape()->add_dim()->set_dim_value(3);
  };
  io(g->add_input(), "x", true);
  io(g->add_output(), "y", true);
  io(g->add_output(), "z", true);
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  for (float v : {10.f, 20.f, 30.f}) w->add_float_data(v);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add0");
  add->add_input("x");
  add->add_input("w");
  add->add_output("y");
  auto* id = g->add_node();
  id->set_op_type("Identity");
  id->set_name("id0");
  id->add_input("x");
  id->add_output("z");
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

std::string WriteModel() {
  std::string path = ::testing::TempDir() + "/c_api_add_identity_" +
                           std::to_string(::getpid()) + ".onnx";
  std::ofstream(path, std::ios::binary) << AddIdentityModelBytes();
  return path;
}

// Expects `st` to be an error with `code` whose message contains every piece of `parts`, then
// frees it.
void ExpectError(VtStatus* st, VtStatusCode code, std::vector<std::string> parts) {
  ASSERT_NE(st, nullptr) << "expected an error containing '" << parts[0] << "'";
  EXPECT_EQ(VtStatusGetCode(st), code) << VtStatusGetMessage(st);
  const std::string msg = VtStatusGetMessage(st);
  for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << msg;
  VtStatusRelease(st);
}

void ExpectOk(VtStatus* st) {
  EXPECT_EQ(st, nullptr) << VtStatusGetMessage(st);
  VtStatusRelease(st);
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = WriteModel();
    ExpectOk(VtSessionCreate(path_.c_str(), nullptr, &session_));
    ASSERT_NE(session_, nullptr);
  }
  void TearDown() override {
    VtSessionRelease(session_);
    std::remove(path_.c_str());
  }
  // x of `rows` x `cols` floats 0, 1, 2, ... borrowed from x_.
  VtValue* Input(int64_t rows, int64_t cols) {
    x_.resize(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < x_.size(); ++i) x_[i] = static_cast<float>(i);
    const int64_t dims[2] = {rows, cols};
    VtValue* v = nullptr;
    ExpectOk(VtValueCreateBorrowed(VT_FLOAT32, dims, 2, x_.data(), x_.size() * sizeof(float), &v));
    return v;
  }
  std::string path_;
  VtSession* session_ = nullptr;
  std::vector<float> x_;
};

TEST_F(CApiTest, RunsWithBorrowedInputAndReadsOutputsInPlace) {
  VtValue* x = Input(2, 3);
  const char* in_name = "x";
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectOk(VtSessionRun(session_, &in_name, &x, 1, nullptr, outs, 2));
  const void* data = nullptr;
  size_t bytes = 0;
  ExpectOk(VtValueGetData(outs[0], &data, &bytes));
  ASSERT_EQ(bytes, 6 * sizeof(float));
  const float* y = static_cast<const float*>(data);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], static_cast<float>(i) + 10.f * (i % 3 + 1));
  // z = Identity(x) is a copy: the caller may free its input buffer after the run.
  ExpectOk(VtValueGetData(outs[1], &data, &bytes));
  EXPECT_NE(data, static_cast<const void*>(x_.data()));
  EXPECT_EQ(std::memcmp(data, x_.data(), bytes), 0);
  const int64_t* dims = nullptr;
  size_t rank = 0;
  ExpectOk(VtValueGetShape(outs[1], &dims, &rank));
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  VtDType dt = VT_UNDEFINED;
  ExpectOk(VtValueGetDType(outs[0], &dt));
  EXPECT_EQ(dt, VT_FLOAT32);
  for (VtValue* o : outs) VtValueRelease(o);
  VtValueRelease(x);
}

TEST_F(CApiTest, RunsSelectedOutputsByName) {
  VtValue* x = Input(1, 3);
  const char* in_name = "x";
  const char* out_names[1] = {"z"};
  VtValue* out = nullptr;
  ExpectOk(VtSessionRun(session_, &in_name, &x, 1, out_names, &out, 1));
  const void* data = nullptr;
  size_t bytes = 0;
  ExpectOk(VtValueGetData(out, &data, &bytes));
  EXPECT_EQ(static_cast<const float*>(data)[2], 2.f);
  VtValueRelease(out);
  VtValueRelease(x);
}

TEST_F(CApiTest, DescribesInputsAndOutputs) {
  size_t n = 0;
  ExpectOk(VtSessionInputCount(session_, &n));
  EXPECT_EQ(n, 1u);
  ExpectOk(VtSessionOutputCount(session_, &n));
  EXPECT_EQ(n, 2u);
  const char* name = nullptr;
  ExpectOk(VtSessionOutputName(session_, 1, &name));
  EXPECT_STREQ(name, "z");
  VtDType dt = VT_UNDEFINED;
  int64_t rank = 0;
  ExpectOk(VtSessionInputType(session_, 0, &dt, &rank));
  EXPECT_EQ(dt, VT_FLOAT32);
  EXPECT_EQ(rank, 2);
  int64_t size = 0;
  const char* symbol = nullptr;
  ExpectOk(VtSessionInputDim(session_, 0, 0, &size, &symbol));
  EXPECT_EQ(size, -1);
  EXPECT_STREQ(symbol, "batch");
  ExpectOk(VtSessionInputDim(session_, 0, 1, &size, &symbol));
  EXPECT_EQ(size, 3);
  EXPECT_STREQ(symbol, "");
  ExpectError(VtSessionInputDim(session_, 0, 2, &size, &symbol), VT_OUT_OF_RANGE,
              {"VtSessionInputDim", "axis 2", "'x'"});
  ExpectError(VtSessionOutputName(session_, 2, &name), VT_OUT_OF_RANGE,
              {"VtSessionOutputName", "index 2"});
}

TEST_F(CApiTest, SessionFromBytes) {
  const std::string bytes = AddIdentityModelBytes();
  VtSession* s = nullptr;
  ExpectOk(VtSessionCreateFromBytes(bytes.data(), bytes.size(), nullptr, nullptr, &s));
  size_t n = 0;
  ExpectOk(VtSessionOutputCount(s, &n));
  EXPECT_EQ(n, 2u);
  VtSessionRelease(s);
  const std::string junk = "not a model";
  ExpectError(VtSessionCreateFromBytes(junk.data(), junk.size(), nullptr, nullptr, &s),
              VT_INVALID_ARGUMENT, {"VtSessionCreateFromBytes", "<model bytes>"});
  EXPECT_EQ(s, nullptr);
}

TEST_F(CApiTest, CacheReportOfAModelWithoutCompiledTensors) {
  size_t n = 1;
  ExpectOk(VtSessionCacheEntryCount(session_, &n));
  EXPECT_EQ(n, 0u);
  ExpectError(VtSessionCacheEntry(session_, 0, nullptr, nullptr, nullptr), VT_OUT_OF_RANGE,
              {"VtSessionCacheEntry", "index 0"});
}

TEST_F(CApiTest, WrongDtypeNamesInputAndTypes) {
  const int64_t dims[2] = {1, 3};
  int64_t data[3] = {1, 2, 3};
  VtValue* x = nullptr;
  ExpectOk(VtValueCreateBorrowed(VT_INT64, dims, 2, data, sizeof data, &x));
  const char* in_name = "x";
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"VtSessionRun", "input 'x'", "dtype int64", "float32"});
  EXPECT_EQ(outs[0], nullptr);
  VtValueRelease(x);
}

TEST_F(CApiTest, FourBitValuesAreCheckedAgainstTheirRange) {
  const int64_t dims[1] = {3};
  int8_t ok4[3] = {-8, 0, 7}, bad4[3] = {0, 8, 0};
  uint8_t badu4[3] = {0, 15, 16};
  VtValue* v = nullptr;
  ExpectOk(VtValueCreateCopy(VT_INT4, dims, 1, ok4, sizeof ok4, &v));
  VtValueRelease(v);
  ExpectError(VtValueCreateCopy(VT_INT4, dims, 1, bad4, sizeof bad4, &v), VT_INVALID_ARGUMENT,
              {"VtValueCreateCopy", "element 1 = 8", "int4"});
  ExpectError(VtValueCreateBorrowed(VT_UINT4, dims, 1, badu4, sizeof badu4, &v),
              VT_INVALID_ARGUMENT, {"VtValueCreateBorrowed", "element 2 = 16", "uint4"});
  EXPECT_EQ(v, nullptr);
}

TEST_F(CApiTest, WrongShapeNamesTheDim) {
  VtValue* x = Input(2, 4);
  const char* in_name = "x";
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"input 'x'", "[2,4]", "at dim 1"});
  VtValueRelease(x);
}

TEST_F(CApiTest, MissingInputName) {
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(session_, nullptr, nullptr, 0, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"VtSessionRun", "input 'x' is missing"});
}

TEST_F(CApiTest, UnknownInputName) {
  VtValue* x = Input(1, 3);
  const char* in_name = "q";
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"no input named 'q'", "'x'"});
  VtValueRelease(x);
}

TEST_F(CApiTest, RepeatedInputName) {
  VtValue* x = Input(1, 3);
  const char* names[2] = {"x", "x"};
  VtValue* ins[2] = {x, x};
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(session_, names, ins, 2, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"input 'x' is given twice"});
  VtValueRelease(x);
}

TEST_F(CApiTest, UnknownOutputName) {
  VtValue* x = Input(1, 3);
  const char* in_name = "x";
  const char* out_name = "nope";
  VtValue* out = nullptr;
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, &out_name, &out, 1), VT_INVALID_ARGUMENT,
              {"no output named 'nope'", "'y', 'z'"});
  EXPECT_EQ(out, nullptr);
  VtValueRelease(x);
}

TEST_F(CApiTest, WrongOutputCountForAllOutputs) {
  VtValue* x = Input(1, 3);
  const char* in_name = "x";
  VtValue* out = nullptr;
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, nullptr, &out, 1), VT_INVALID_ARGUMENT,
              {"num_outputs is 1", "2 outputs"});
  VtValueRelease(x);
}

TEST_F(CApiTest, ReleasedSessionIsAnError) {
  VtSession* s = nullptr;
  ExpectOk(VtSessionCreate(path_.c_str(), nullptr, &s));
  VtSessionRelease(s);
  size_t n = 0;
  ExpectError(VtSessionInputCount(s, &n), VT_INVALID_ARGUMENT,
              {"VtSessionInputCount", "session was released"});
  VtValue* x = Input(1, 3);
  const char* in_name = "x";
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(s, &in_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"VtSessionRun", "session was released"});
  VtSessionRelease(s);  // a second release is harmless
  VtValueRelease(x);
  // A pointer that was never a session handle.
  int junk = 0;
  ExpectError(VtSessionInputCount(reinterpret_cast<VtSession*>(&junk), &n), VT_INVALID_ARGUMENT,
              {"not a handle made by VtSessionCreate"});
}

TEST_F(CApiTest, NullPointersInSessionCalls) {
  VtSession* s = nullptr;
  ExpectError(VtSessionCreate(nullptr, nullptr, &s), VT_INVALID_ARGUMENT,
              {"VtSessionCreate", "path is NULL"});
  ExpectError(VtSessionCreate(path_.c_str(), nullptr, nullptr), VT_INVALID_ARGUMENT,
              {"out is NULL"});
  ExpectError(VtSessionCreateFromBytes(nullptr, 10, nullptr, nullptr, &s), VT_INVALID_ARGUMENT,
              {"data is NULL"});
  size_t n = 0;
  ExpectError(VtSessionInputCount(nullptr, &n), VT_INVALID_ARGUMENT, {"session is NULL"});
  ExpectError(VtSessionOutputCount(session_, nullptr), VT_INVALID_ARGUMENT, {"count is NULL"});
  ExpectError(VtSessionInputName(session_, 0, nullptr), VT_INVALID_ARGUMENT, {"name is NULL"});
  int64_t rank = 0;
  ExpectError(VtSessionInputType(session_, 0, nullptr, &rank), VT_INVALID_ARGUMENT,
              {"dtype is NULL"});
  ExpectError(VtSessionOutputDim(session_, 0, 0, nullptr, nullptr), VT_INVALID_ARGUMENT,
              {"size is NULL"});
  ExpectError(VtSessionCacheEntryCount(session_, nullptr), VT_INVALID_ARGUMENT,
              {"count is NULL"});
}

// Every entry point of vtensor_c.h with a pointer argument, each such argument NULL in turn
// (the others valid): an error naming the function and the argument, never a crash. The
// arguments the header allows to be NULL are in NullWhereTheHeaderAllowsIt; VtSessionRun's
// arrays are in NullPointersInRun.
TEST_F(CApiTest, EveryNullPointerArgumentIsAnError) {
  VtSessionOptions* o = nullptr;
  ExpectOk(VtSessionOptionsCreate(&o));
  VtValue* v = Input(1, 3);
  const std::string bytes = AddIdentityModelBytes();
  const int64_t dims[2] = {1, 3};
  const float data[3] = {1, 2, 3};
  VtSession* s = nullptr;
  VtValue* out = nullptr;
  size_t n = 0;
  const char* name = nullptr;
  VtDType dtype = VT_UNDEFINED;
  int64_t rank = 0, size = 0;
  const int64_t* shape = nullptr;
  size_t shape_rank = 0, nbytes = 0;
  const void* p = nullptr;
  struct Case {
    const char* fn;
    const char* arg;
    VtStatus* status;
  };
  const Case cases[] = {
      {"VtSessionOptionsCreate", "out", VtSessionOptionsCreate(nullptr)},
      {"VtSessionOptionsSetThreads", "options", VtSessionOptionsSetThreads(nullptr, 1)},
      {"VtSessionOptionsSetProfile", "options",
       VtSessionOptionsSetProfile(nullptr, VT_PROFILE_EXACT)},
      {"VtSessionOptionsSetVerify", "options", VtSessionOptionsSetVerify(nullptr, VT_VERIFY_MEMO)},
      {"VtSessionOptionsSetCache", "options", VtSessionOptionsSetCache(nullptr, 1)},
      {"VtSessionCreate", "path", VtSessionCreate(nullptr, o, &s)},
      {"VtSessionCreate", "out", VtSessionCreate(path_.c_str(), o, nullptr)},
      {"VtSessionCreateFromBytes", "data", VtSessionCreateFromBytes(nullptr, 4, "", o, &s)},
      {"VtSessionCreateFromBytes", "out",
       VtSessionCreateFromBytes(bytes.data(), bytes.size(), "", o, nullptr)},
      {"VtSessionInputCount", "session", VtSessionInputCount(nullptr, &n)},
      {"VtSessionInputCount", "count", VtSessionInputCount(session_, nullptr)},
      {"VtSessionOutputCount", "session", VtSessionOutputCount(nullptr, &n)},
      {"VtSessionOutputCount", "count", VtSessionOutputCount(session_, nullptr)},
      {"VtSessionInputName", "session", VtSessionInputName(nullptr, 0, &name)},
      {"VtSessionInputName", "name", VtSessionInputName(session_, 0, nullptr)},
      {"VtSessionOutputName", "session", VtSessionOutputName(nullptr, 0, &name)},
      {"VtSessionOutputName", "name", VtSessionOutputName(session_, 0, nullptr)},
      {"VtSessionInputType", "session", VtSessionInputType(nullptr, 0, &dtype, &rank)},
      {"VtSessionInputType", "dtype", VtSessionInputType(session_, 0, nullptr, &rank)},
      {"VtSessionInputType", "rank", VtSessionInputType(session_, 0, &dtype, nullptr)},
      {"VtSessionOutputType", "session", VtSessionOutputType(nullptr, 0, &dtype, &rank)},
      {"VtSessionOutputType", "dtype", VtSessionOutputType(session_, 0, nullptr, &rank)},
      {"VtSessionOutputType", "rank", VtSessionOutputType(session_, 0, &dtype, nullptr)},
      {"VtSessionInputDim", "session", VtSessionInputDim(nullptr, 0, 0, &size, nullptr)},
      {"VtSessionInputDim", "size", VtSessionInputDim(session_, 0, 0, nullptr, nullptr)},
      {"VtSessionOutputDim", "session", VtSessionOutputDim(nullptr, 0, 0, &size, nullptr)},
      {"VtSessionOutputDim", "size", VtSessionOutputDim(session_, 0, 0, nullptr, nullptr)},
      {"VtValueCreateBorrowed", "dims",
       VtValueCreateBorrowed(VT_FLOAT32, nullptr, 2, data, sizeof data, &out)},
      {"VtValueCreateBorrowed", "data",
       VtValueCreateBorrowed(VT_FLOAT32, dims, 2, nullptr, sizeof data, &out)},
      {"VtValueCreateBorrowed", "out",
       VtValueCreateBorrowed(VT_FLOAT32, dims, 2, data, sizeof data, nullptr)},
      {"VtValueCreateCopy", "dims",
       VtValueCreateCopy(VT_FLOAT32, nullptr, 2, data, sizeof data, &out)},
      {"VtValueCreateCopy", "data",
       VtValueCreateCopy(VT_FLOAT32, dims, 2, nullptr, sizeof data, &out)},
      {"VtValueCreateCopy", "out", VtValueCreateCopy(VT_FLOAT32, dims, 2, data, sizeof data,
                                                     nullptr)},
      {"VtValueReadFile", "path", VtValueReadFile(nullptr, &out)},
      {"VtValueReadFile", "out", VtValueReadFile(path_.c_str(), nullptr)},
      {"VtValueGetDType", "value", VtValueGetDType(nullptr, &dtype)},
      {"VtValueGetDType", "dtype", VtValueGetDType(v, nullptr)},
      {"VtValueGetShape", "value", VtValueGetShape(nullptr, &shape, &shape_rank)},
      {"VtValueGetShape", "dims", VtValueGetShape(v, nullptr, &shape_rank)},
      {"VtValueGetShape", "rank", VtValueGetShape(v, &shape, nullptr)},
      {"VtValueGetData", "value", VtValueGetData(nullptr, &p, &nbytes)},
      {"VtValueGetData", "data", VtValueGetData(v, nullptr, &nbytes)},
      {"VtValueGetData", "bytes", VtValueGetData(v, &p, nullptr)},
      {"VtValueGetString", "value", VtValueGetString(nullptr, 0, &name, nullptr)},
      {"VtValueGetString", "str", VtValueGetString(v, 0, nullptr, nullptr)},
      {"VtSessionCacheEntryCount", "session", VtSessionCacheEntryCount(nullptr, &n)},
      {"VtSessionCacheEntryCount", "count", VtSessionCacheEntryCount(session_, nullptr)},
      {"VtSessionCacheEntry", "session",
       VtSessionCacheEntry(nullptr, 0, nullptr, nullptr, nullptr)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.fn) + " with " + c.arg + " NULL");
    // "data is null" comes from the tensor layer below the C API, in lower case.
    ExpectError(c.status, VT_INVALID_ARGUMENT, {c.fn, std::string(c.arg) + " is"});
  }
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(out, nullptr);
  VtValueRelease(v);
  VtSessionOptionsRelease(o);
}

// The NULLs vtensor_c.h allows: defaults, "not wanted" out-pointers and NULL handles to release.
TEST_F(CApiTest, NullWhereTheHeaderAllowsIt) {
  VtStatusRelease(nullptr);
  VtSessionOptionsRelease(nullptr);
  VtSessionRelease(nullptr);
  VtValueRelease(nullptr);
  const std::string bytes = AddIdentityModelBytes();
  VtSession* s = nullptr;
  ExpectOk(VtSessionCreateFromBytes(bytes.data(), bytes.size(), nullptr, nullptr, &s));
  VtSessionRelease(s);
  int64_t size = 0;
  ExpectOk(VtSessionInputDim(session_, 0, 1, &size, nullptr));
  EXPECT_EQ(size, 3);
  const float one = 1;
  VtValue* scalar = nullptr;
  ExpectOk(VtValueCreateCopy(VT_FLOAT32, nullptr, 0, &one, sizeof one, &scalar));
  VtValueRelease(scalar);
}

TEST_F(CApiTest, NullPointersInRun) {
  VtValue* x = Input(1, 3);
  const char* in_name = "x";
  const char* null_name = nullptr;
  VtValue* null_value = nullptr;
  VtValue* outs[2] = {nullptr, nullptr};
  ExpectError(VtSessionRun(nullptr, &in_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"session is NULL"});
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, nullptr, nullptr, 2), VT_INVALID_ARGUMENT,
              {"outputs is NULL"});
  ExpectError(VtSessionRun(session_, nullptr, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"input_names is NULL"});
  ExpectError(VtSessionRun(session_, &in_name, nullptr, 1, nullptr, outs, 2),
              VT_INVALID_ARGUMENT, {"inputs is NULL"});
  ExpectError(VtSessionRun(session_, &null_name, &x, 1, nullptr, outs, 2), VT_INVALID_ARGUMENT,
              {"input_names[0] is NULL"});
  ExpectError(VtSessionRun(session_, &in_name, &null_value, 1, nullptr, outs, 2),
              VT_INVALID_ARGUMENT, {"inputs[0] (input 'x') is NULL"});
  const char* out_names[2] = {"y", nullptr};
  ExpectError(VtSessionRun(session_, &in_name, &x, 1, out_names, outs, 2), VT_INVALID_ARGUMENT,
              {"output_names[1] is NULL"});
  VtValueRelease(x);
}

TEST_F(CApiTest, NullPointersAndBadArgumentsInValueCalls) {
  const int64_t dims[2] = {1, 3};
  float data[3] = {1, 2, 3};
  VtValue* v = nullptr;
  ExpectError(VtValueCreateBorrowed(VT_FLOAT32, dims, 2, data, sizeof data, nullptr),
              VT_INVALID_ARGUMENT, {"VtValueCreateBorrowed", "out is NULL"});
  ExpectError(VtValueCreateBorrowed(VT_FLOAT32, nullptr, 2, data, sizeof data, &v),
              VT_INVALID_ARGUMENT, {"dims is NULL"});
  ExpectError(VtValueCreateBorrowed(VT_FLOAT32, dims, 2, nullptr, sizeof data, &v),
              VT_INVALID_ARGUMENT, {"data is null"});
  ExpectError(VtValueCreateBorrowed(VT_FLOAT32, dims, 2, data, 8, &v), VT_INVALID_ARGUMENT,
              {"needs 12 bytes, got 8"});
  ExpectError(VtValueCreateCopy(VT_STRING, dims, 2, data, sizeof data, &v), VT_INVALID_ARGUMENT,
              {"VtValueCreateCopy", "string"});
  ExpectError(VtValueCreateCopy(static_cast<VtDType>(99), dims, 2, data, sizeof data, &v),
              VT_INVALID_ARGUMENT, {"unknown dtype 99"});
  const int64_t negative[2] = {-1, 3};
  ExpectError(VtValueCreateBorrowed(VT_FLOAT32, negative, 2, data, sizeof data, &v),
              VT_INVALID_ARGUMENT, {"negative dim"});
  EXPECT_EQ(v, nullptr);

  ExpectOk(VtValueCreateCopy(VT_FLOAT32, dims, 2, data, sizeof data, &v));
  data[0] = 100;  // the copy keeps the old bytes
  const void* p = nullptr;
  size_t bytes = 0;
  ExpectOk(VtValueGetData(v, &p, &bytes));
  EXPECT_EQ(static_cast<const float*>(p)[0], 1.f);
  ExpectError(VtValueGetData(nullptr, &p, &bytes), VT_INVALID_ARGUMENT,
              {"VtValueGetData", "value is NULL"});
  ExpectError(VtValueGetData(v, nullptr, &bytes), VT_INVALID_ARGUMENT, {"data is NULL"});
  const int64_t* d = nullptr;
  ExpectError(VtValueGetShape(v, &d, nullptr), VT_INVALID_ARGUMENT, {"rank is NULL"});
  ExpectError(VtValueGetDType(v, nullptr), VT_INVALID_ARGUMENT, {"dtype is NULL"});
  const char* str = nullptr;
  ExpectError(VtValueGetString(v, 0, &str, nullptr), VT_INVALID_ARGUMENT,
              {"float32 tensor, not a string tensor"});
  VtValueRelease(v);
  VtValueRelease(nullptr);
}

TEST(CApiOptions, BadValues) {
  VtSessionOptions* o = nullptr;
  ExpectError(VtSessionOptionsCreate(nullptr), VT_INVALID_ARGUMENT, {"out is NULL"});
  ExpectOk(VtSessionOptionsCreate(&o));
  ExpectError(VtSessionOptionsSetThreads(o, 0), VT_INVALID_ARGUMENT, {"threads must be >= 1"});
  ExpectError(VtSessionOptionsSetProfile(o, static_cast<VtWeightProfile>(7)),
              VT_INVALID_ARGUMENT, {"unknown profile 7"});
  ExpectError(VtSessionOptionsSetVerify(o, static_cast<VtVerifyPolicy>(9)), VT_INVALID_ARGUMENT,
              {"unknown verify policy 9"});
  ExpectError(VtSessionOptionsSetCache(nullptr, 1), VT_INVALID_ARGUMENT, {"options is NULL"});
  ExpectError(VtSessionOptionsSetCacheWarning(nullptr, 0), VT_INVALID_ARGUMENT,
              {"VtSessionOptionsSetCacheWarning", "options is NULL"});
  ExpectOk(VtSessionOptionsSetThreads(o, 2));
  ExpectOk(VtSessionOptionsSetProfile(o, VT_PROFILE_COMPACT));
  ExpectOk(VtSessionOptionsSetVerify(o, VT_VERIFY_MEMO));
  ExpectOk(VtSessionOptionsSetCache(o, 0));
  ExpectOk(VtSessionOptionsSetCacheWarning(o, 0));
  VtSessionOptionsRelease(o);
}

TEST(CApiFiles, MissingAndMalformedModels) {
  VtSession* s = nullptr;
  ExpectError(VtSessionCreate("/nonexistent/model.onnx", nullptr, &s), VT_NOT_FOUND,
              {"VtSessionCreate", "/nonexistent/model.onnx"});
  EXPECT_EQ(s, nullptr);
  const std::string path = ::testing::TempDir() + "/c_api_junk.onnx";
  std::ofstream(path, std::ios::binary) << "junk";
  ExpectError(VtSessionCreate(path.c_str(), nullptr, &s), VT_INVALID_ARGUMENT, {path});
  std::remove(path.c_str());
}

TEST(CApiStatus, NullIsOk) {
  EXPECT_EQ(VtStatusGetCode(nullptr), VT_OK);
  EXPECT_STREQ(VtStatusGetMessage(nullptr), "");
  VtStatusRelease(nullptr);
  EXPECT_STREQ(VtStatusCodeName(VT_OUT_OF_RANGE), "OUT_OF_RANGE");
  EXPECT_EQ(VtDTypeSize(VT_FLOAT16), 2u);
  EXPECT_EQ(VtDTypeSize(VT_STRING), 0u);
  EXPECT_STREQ(VtDTypeName(VT_INT64), "int64");
  EXPECT_EQ(VtDTypeSize(VT_INT4), 1u);  // one element per byte in a VtValue
  EXPECT_EQ(VtDTypeSize(VT_FLOAT8E5M2), 1u);
  EXPECT_STREQ(VtDTypeName(VT_FLOAT8E4M3FN), "float8e4m3fn");
  EXPECT_NE(std::string(VtVersion()).find('.'), std::string::npos);
}

TEST_F(CApiTest, ConcurrentRunsOnOneSession) {
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> x(6);
      for (int i = 0; i < 6; ++i) x[i] = static_cast<float>(t * 10 + i);
      const int64_t dims[2] = {2, 3};
      VtValue* in = nullptr;
      VtStatus* st = VtValueCreateBorrowed(VT_FLOAT32, dims, 2, x.data(), 24, &in);
      const char* name = "x";
      for (int r = 0; r < 50 && st == nullptr; ++r) {
        VtValue* outs[2] = {nullptr, nullptr};
        st = VtSessionRun(session_, &name, &in, 1, nullptr, outs, 2);
        const void* p = nullptr;
        size_t bytes = 0;
        if (st == nullptr) st = VtValueGetData(outs[0], &p, &bytes);
        if (st == nullptr && static_cast<const float*>(p)[5] != x[5] + 30.f) ++failures[t];
        VtValueRelease(outs[0]);
        VtValueRelease(outs[1]);
      }
      if (st != nullptr) ++failures[t];
      VtStatusRelease(st);
      VtValueRelease(in);
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
