// Malformed models and data given to the `vtensor` binary: each must end in exit code 2 with a
// message naming the cause, never a crash (signal) or a hang (timeout). "Must show".
#include <stdlib.h>
#include <sys/stat.h>

#include <random>

#include "cli_test_base.h"

namespace vt::testing {
namespace {

class BadInput : public CliTest {
 protected:
  // Data dir holding input_0.pb = `x`.
  std::string WriteInput(const onnx::TensorProto& x) {
    std::string data = Path("data");
    std::filesystem::create_directories(data);
    WriteProto(data + "/input_0.pb", x);
    return data;
  }
  ProcessResult RunWithInput(const onnx::TensorProto& x) {
    WriteModel(AddModel());
    return Vtensor({"run", Path("model.onnx"), "--data", WriteInput(x)});
  }
  // `vtensor run` and `vtensor bench` on `model` must both fail with `substring`.
  void ExpectModelRejected(const onnx::ModelProto& model, const std::string& substring) {
    std::string p = WriteModel(model);
    EXPECT_EXIT_WITH(Vtensor({"run", p}), 2, substring);
    EXPECT_EXIT_WITH(Vtensor({"bench", p, "--runs", "1"}), 2, substring);
  }
  // AddModel whose initializer `w` is replaced by `w`.
  static onnx::ModelProto WithInitializer(const onnx::TensorProto& w) {
    onnx::ModelProto m = AddModel();
    *m.mutable_graph()->mutable_initializer(0) = w;
    return m;
  }
  // AddModel whose initializer `w` is stored externally at `location`.
  static onnx::ModelProto WithExternalW(const std::string& location, int64_t offset) {
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    w.add_dims(2);
    w.add_dims(3);
    w.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = w.add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    kv = w.add_external_data();
    kv->set_key("offset");
    kv->set_value(std::to_string(offset));
    return WithInitializer(w);
  }
};

// --- Files that are not ONNX models -------------------------------------------------------

TEST_F(BadInput, TruncatedModel) {
  onnx::ModelProto m = AddModel();
  // A large initializer makes sure the cut lands inside the graph field, which protobuf must
  // then reject as truncated (a cut between top-level fields would still parse).
  *m.mutable_graph()->add_initializer() = FloatTensor("pad", {1024}, std::vector<float>(1024));
  std::string bytes;
  ASSERT_TRUE(m.SerializeToString(&bytes));
  WriteBytes(Path("model.onnx"), bytes.substr(0, bytes.size() / 2));
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx")}), 2, "not a valid ONNX ModelProto");
  EXPECT_EXIT_WITH(Vtensor({"info", Path("model.onnx")}), 2, "not a valid ONNX ModelProto");
}

TEST_F(BadInput, RandomBytes) {
  std::mt19937 rng(20240229);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  WriteBytes(Path("model.onnx"), bytes);
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx")}), 2, "model.onnx");
  EXPECT_EXIT_WITH(Vtensor({"info", Path("model.onnx")}), 2, "model.onnx");
}

TEST_F(BadInput, EmptyFile) {
  WriteBytes(Path("model.onnx"), "");
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx")}), 2, "empty file");
  EXPECT_EXIT_WITH(Vtensor({"info", Path("model.onnx")}), 2, "empty file");
}

TEST_F(BadInput, MissingModelFile) {
  EXPECT_EXIT_WITH(Vtensor({"run", Path("nope.onnx")}), 2, "file not found");
  EXPECT_EXIT_WITH(Vtensor({"info", Path("nope.onnx")}), 2, "file not found");
}

TEST_F(BadInput, DirectoryAsModel) {
  EXPECT_EXIT_WITH(Vtensor({"run", dir_}), 2, "not a regular file");
}

TEST_F(BadInput, UnsupportedIrVersion) {
  onnx::ModelProto m = AddModel();
  m.set_ir_version(2);
  ExpectModelRejected(m, "ir_version");
}

TEST_F(BadInput, ModelWithoutGraph) {
  onnx::ModelProto m = AddModel();
  m.clear_graph();
  ExpectModelRejected(m, "no graph");
}

// --- Inputs that do not fit the model -------------------------------------------------------

// The element type is checked as the file is read: the error names the file.
TEST_F(BadInput, WrongInputDtype) {
  auto r = RunWithInput(Int64Tensor("x", {2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EXIT_WITH(r, 2, Path("data/input_0.pb") + ": holds int64 but input 'x' is float32");
  EXPECT_EXIT_WITH(Vtensor({"bench", Path("model.onnx"), "--input",
                            "x=" + Path("data/input_0.pb")}),
                   2, Path("data/input_0.pb") + ": holds int64 but input 'x' is float32");
}

// So are the rank and the declared dims.
TEST_F(BadInput, WrongInputShape) {
  auto r = RunWithInput(FloatTensor("x", {3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EXIT_WITH(r, 2,
                   Path("data/input_0.pb") + ": holds shape [3,2] but input 'x' is declared [2,3] (dim 0)");
}

TEST_F(BadInput, WrongInputRank) {
  auto r = RunWithInput(FloatTensor("x", {6}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EXIT_WITH(r, 2, Path("data/input_0.pb") + ": holds shape [6] but input 'x' is declared [2,3] (rank)");
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--input", "x=" + Path("data/input_0.pb")}),
                   2, Path("data/input_0.pb") + ": holds shape [6] but input 'x' is declared [2,3] (rank)");
}

TEST_F(BadInput, MissingInputFile) {
  WriteModel(AddModel());
  std::filesystem::create_directories(Path("data"));
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", Path("data")}), 2,
                   "missing input file");
  EXPECT_EXIT_WITH(Vtensor({"bench", Path("model.onnx"), "--data", Path("data")}), 2,
                   "missing input file");
}

TEST_F(BadInput, MissingDataDirectory) {
  WriteModel(AddModel());
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", Path("no-such-dir")}), 2,
                   "--data '" + Path("no-such-dir") + "': no such directory");
  EXPECT_EXIT_WITH(Vtensor({"bench", Path("model.onnx"), "--data", Path("model.onnx")}), 2,
                   "': not a directory");
}

// A named pipe given as an input file is refused at once (not waited on for a writer).
TEST_F(BadInput, PipeAsInputFileIsRefused) {
  WriteModel(AddModel());
  ASSERT_EQ(::mkfifo(Path("pipe.pb").c_str(), 0600), 0);
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--input", "x=" + Path("pipe.pb")}), 2,
                   "not a regular file");
}

TEST_F(BadInput, CorruptInputFile) {
  WriteModel(AddModel());
  std::filesystem::create_directories(Path("data"));
  WriteBytes(Path("data/input_0.pb"), std::string("\x0a\xff\xff\xff\xff\x0f", 6));
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", Path("data")}), 2,
                   "input_0.pb");
}

TEST_F(BadInput, InputDataShorterThanDims) {
  onnx::TensorProto x = FloatTensor("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  x.mutable_raw_data()->resize(8);
  EXPECT_EXIT_WITH(RunWithInput(x), 2, "raw_data");
}

TEST_F(BadInput, CorruptReferenceOutput) {
  WriteModel(AddModel());
  std::string data = WriteInput(FloatTensor("x", {2, 3}, {1, 2, 3, 4, 5, 6}));
  WriteBytes(data + "/output_0.pb", "garbage that is not a tensor");
  EXPECT_EXIT_WITH(Vtensor({"run", Path("model.onnx"), "--data", data}), 2, "output_0.pb");
}

// --- Graphs the runtime cannot execute -------------------------------------------------------

TEST_F(BadInput, UnknownOp) {
  onnx::ModelProto m = AddModel();
  m.mutable_graph()->mutable_node(0)->set_op_type("NoSuchOp");
  ExpectModelRejected(m, "NoSuchOp");
}

// Without the ONNX operator definitions plugin an unknown op is still unimplemented (the
// summary lists it), and the message says why no function body was looked for.
TEST_F(BadInput, UnknownOpWithoutTheOnnxDefsPlugin) {
  onnx::ModelProto m = AddModel();
  m.mutable_graph()->mutable_node(0)->set_op_type("NoSuchOp");
  const std::string p = WriteModel(m);
  ::setenv("VTENSOR_ONNXDEFS", "/nonexistent/libvtensor-onnxdefs.so", 1);
  const auto r = Vtensor({"run", p});
  ::unsetenv("VTENSOR_ONNXDEFS");
  EXPECT_EXIT_WITH(r, 2, "no kernel for 1 operator (1 node): NoSuchOp opset");
  EXPECT_EXIT_WITH(r, 2, "and its ONNX function body, if any, needs vtensor's ONNX operator "
                         "definitions plugin (libvtensor-onnxdefs.so)");
}

TEST_F(BadInput, UnknownDomain) {
  onnx::ModelProto m = AddModel();
  auto* op = m.add_opset_import();
  op->set_domain("com.example.nosuch");
  op->set_version(1);
  m.mutable_graph()->mutable_node(0)->set_domain("com.example.nosuch");
  ExpectModelRejected(m, "com.example.nosuch");
}

TEST_F(BadInput, DomainWithoutOpsetImport) {
  onnx::ModelProto m = AddModel();
  m.mutable_graph()->mutable_node(0)->set_domain("com.example.unimported");
  ExpectModelRejected(m, "com.example.unimported");
}

TEST_F(BadInput, GraphWithCycle) {
  // a = Add(x, b); b = Add(a, w); y = Identity(b): a and b feed each other.
  onnx::ModelProto m = AddModel();
  auto* g = m.mutable_graph();
  g->clear_node();
  auto add = [&](const char* name, const char* op, const std::vector<const char*>& ins,
                 const char* out) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type(op);
    for (const char* i : ins) n->add_input(i);
    n->add_output(out);
  };
  add("n_a", "Add", {"x", "b"}, "a");
  add("n_b", "Add", {"a", "w"}, "b");
  add("n_y", "Identity", {"b"}, "y");
  ExpectModelRejected(m, "cycle");
}

TEST_F(BadInput, UndefinedNodeInput) {
  onnx::ModelProto m = AddModel();
  m.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
  ExpectModelRejected(m, "nowhere");
}

// --- Dimensions ------------------------------------------------------------------------------

TEST_F(BadInput, NegativeDimInInitializer) {
  onnx::TensorProto w = FloatTensor("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  w.set_dims(0, -2);
  ExpectModelRejected(WithInitializer(w), "negative dim");
}

TEST_F(BadInput, NegativeDimInInputFile) {
  onnx::TensorProto x = FloatTensor("x", {2, 3}, {1, 2, 3, 4, 5, 6});
  x.set_dims(0, -2);
  EXPECT_EXIT_WITH(RunWithInput(x), 2, "negative dim");
}

TEST_F(BadInput, HugeDimsOverflowInInitializer) {
  // 2^62 * 2^62 elements: the element count itself overflows int64.
  onnx::TensorProto w = FloatTensor("w", {int64_t{1} << 62, int64_t{1} << 62}, {});
  ExpectModelRejected(WithInitializer(w), "overflows");
}

TEST_F(BadInput, HugeDimInInitializerWithoutData) {
  // 2^40 floats (4 TiB) declared, none stored: must be caught before any allocation.
  onnx::TensorProto w = FloatTensor("w", {int64_t{1} << 40}, {});
  std::string p = WriteModel(WithInitializer(w));
  auto r = Vtensor({"run", p});
  EXPECT_EQ(r.Describe(), "exit 2") << r.output;
  EXPECT_NE(r.output.find("'w'"), std::string::npos) << r.output;
}

TEST_F(BadInput, HugeDimsInInputFile) {
  EXPECT_EXIT_WITH(RunWithInput(FloatTensor("x", {int64_t{1} << 62, int64_t{1} << 62}, {})), 2,
                   "overflows");
  auto r = RunWithInput(FloatTensor("x", {int64_t{1} << 40}, {}));
  EXPECT_EXIT_WITH(r, 2, "input_0.pb");
}

TEST_F(BadInput, NegativeDeclaredInputDim) {
  // Without --data, inputs are zeros of the declared shape. The importer reads a negative
  // declared dim as unknown, which needs --input-shape; it must never reach the allocator as a
  // negative size.
  onnx::ModelProto m = AddModel();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()
      ->mutable_dim(0)->set_dim_value(-4);
  std::string p = WriteModel(m);
  EXPECT_EXIT_WITH(Vtensor({"run", p}), 2, "dim 0 is unknown (no dim_param): pass --input-shape x=Nx3");
  EXPECT_EXIT_WITH(Vtensor({"run", p, "--input-shape", "x=4x3"}), 2, "");  // w is [2,3]
  EXPECT_EXIT_WITH(Vtensor({"run", p, "--input-shape", "x=2x3"}), 0, "y  float32[2,3]");
}

TEST_F(BadInput, HugeDeclaredInputDim) {
  // Zeros of [2^40, 3] floats would need 12 TiB: an error, not std::bad_alloc.
  onnx::ModelProto m = AddModel();
  for (auto* vi : {m.mutable_graph()->mutable_input(0), m.mutable_graph()->mutable_output(0)})
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(
        int64_t{1} << 40);
  std::string p = WriteModel(m);
  auto r = Vtensor({"run", p});
  EXPECT_EQ(r.Describe(), "exit 2") << r.output;
  EXPECT_NE(r.output.find("'x'"), std::string::npos) << r.output;
}

TEST_F(BadInput, HugeShapeComputedAtRunTime) {
  // y = ConstantOfShape(s): the output size comes from input data, so only the running node can
  // check it. Too big to allocate (2^50 floats) or overflowing int64 (2^80) must be an error.
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("cos");
  auto* in = g->add_input();
  in->set_name("s");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* n = g->add_node();
  n->set_name("cos0");
  n->set_op_type("ConstantOfShape");
  n->add_input("s");
  n->add_output("y");
  std::string p = WriteModel(m);
  for (std::vector<int64_t> dims : {std::vector<int64_t>{int64_t{1} << 25, int64_t{1} << 25},
                                    std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 40}}) {
    std::string data = Path("data" + std::to_string(dims[0]));
    std::filesystem::create_directories(data);
    WriteProto(data + "/input_0.pb", Int64Tensor("s", {2}, dims));
    EXPECT_EXIT_WITH(Vtensor({"run", p, "--data", data}), 2, "cos0");
  }
}

// --- External data ---------------------------------------------------------------------------

TEST_F(BadInput, ExternalDataPastEndOfFile) {
  // w needs 24 bytes; the file has 8.
  WriteBytes(Path("weights.bin"), std::string(8, '\0'));
  ExpectModelRejected(WithExternalW("weights.bin", 0), "outside 'weights.bin'");
}

TEST_F(BadInput, ExternalDataOffsetPastEndOfFile) {
  WriteBytes(Path("weights.bin"), std::string(64, '\0'));
  ExpectModelRejected(WithExternalW("weights.bin", 1000), "outside 'weights.bin'");
  ExpectModelRejected(WithExternalW("weights.bin", 48), "outside 'weights.bin'");
}

TEST_F(BadInput, ExternalDataNegativeOffset) {
  WriteBytes(Path("weights.bin"), std::string(64, '\0'));
  ExpectModelRejected(WithExternalW("weights.bin", -8), "offset -8");
}

TEST_F(BadInput, ExternalDataOutsideModelDirectory) {
  // The file exists, but reading it would let a model read arbitrary files.
  std::filesystem::create_directories(Path("sub"));
  WriteBytes(Path("weights.bin"), std::string(64, '\0'));
  onnx::ModelProto m = WithExternalW("../weights.bin", 0);
  WriteProto(Path("sub/model.onnx"), m);
  EXPECT_EXIT_WITH(Vtensor({"run", Path("sub/model.onnx")}), 2, "inside the model directory");
  ExpectModelRejected(WithExternalW(Path("weights.bin"), 0), "inside the model directory");
}

TEST_F(BadInput, ExternalDataMissingFile) {
  ExpectModelRejected(WithExternalW("missing.bin", 0), "missing.bin");
}

TEST_F(BadInput, ExternalDataBadLength) {
  WriteBytes(Path("weights.bin"), std::string(64, '\0'));
  onnx::ModelProto m = WithExternalW("weights.bin", 0);
  auto* kv = m.mutable_graph()->mutable_initializer(0)->add_external_data();
  kv->set_key("length");
  kv->set_value("12");
  ExpectModelRejected(m, "length 12");
}

TEST_F(BadInput, ExternalDataInInputFile) {
  // Input files are self-contained; external data there has no base directory to resolve.
  onnx::TensorProto x = WithExternalW("weights.bin", 0).graph().initializer(0);
  x.set_name("x");
  EXPECT_EXIT_WITH(RunWithInput(x), 2, "external data");
}

// --- com.microsoft MatMulNBits with inconsistent attributes or weights ----------------------

// y[1,4] = MatMulNBits(x[1,32], B uint8[4,1,16], scales[4]), K 32, N 4, bits 4, block 32.
onnx::ModelProto NBitsModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("vtensor-cli-test");
  m.add_opset_import()->set_version(13);
  auto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("nbits");
  AddFloatIO(g->add_input(), "x", {1, 32});
  AddFloatIO(g->add_output(), "y", {1, 4});
  onnx::TensorProto* b = g->add_initializer();
  b->set_name("B");
  b->set_data_type(onnx::TensorProto::UINT8);
  for (int64_t d : {4, 1, 16}) b->add_dims(d);
  b->set_raw_data(std::string(64, '\x37'));
  *g->add_initializer() = FloatTensor("scales", {4}, {0.5f, 0.25f, 1.0f, 2.0f});
  auto* n = g->add_node();
  n->set_name("mm");
  n->set_op_type("MatMulNBits");
  n->set_domain("com.microsoft");
  n->add_input("x");
  n->add_input("B");
  n->add_input("scales");
  n->add_output("y");
  for (const auto& [k, v] : {std::pair<const char*, int64_t>{"K", 32}, {"N", 4}, {"bits", 4},
                             {"block_size", 32}}) {
    auto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  return m;
}

onnx::AttributeProto* NBitsAttr(onnx::ModelProto& m, const std::string& name) {
  for (auto& a : *m.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

TEST_F(BadInput, MatMulNBitsValidModelRuns) {
  EXPECT_EXIT_WITH(Vtensor({"run", WriteModel(NBitsModel())}), 0, "");
}

TEST_F(BadInput, MatMulNBitsBadAttributes) {
  onnx::ModelProto m = NBitsModel();
  NBitsAttr(m, "block_size")->set_i(24);
  ExpectModelRejected(m, "block_size = 24");
  m = NBitsModel();
  NBitsAttr(m, "bits")->set_i(5);
  ExpectModelRejected(m, "bits = 5");
  m = NBitsModel();
  NBitsAttr(m, "N")->set_i(-1);
  ExpectModelRejected(m, "attribute N");
}

TEST_F(BadInput, MatMulNBitsWeightsDisagreeWithAttributes) {
  // K = 64 needs two blocks per row: B [4, 2, 16] and 8 scales.
  onnx::ModelProto m = NBitsModel();
  NBitsAttr(m, "K")->set_i(64);
  AddFloatIO(m.mutable_graph()->mutable_input(0), "x", {1, 64});
  ExpectModelRejected(m, "input B is uint8[4,1,16], expected uint8[4,2,16]");
  m = NBitsModel();
  *m.mutable_graph()->mutable_initializer(1) = FloatTensor("scales", {3}, {1, 1, 1});
  ExpectModelRejected(m, "input scales [3] must hold N * kb = 4 values");
  // A g_idx naming a block that does not exist.
  m = NBitsModel();
  onnx::TensorProto* gi = m.mutable_graph()->add_initializer();
  gi->set_name("g_idx");
  gi->set_data_type(onnx::TensorProto::INT32);
  gi->add_dims(32);
  for (int k = 0; k < 32; ++k) gi->add_int32_data(k == 5 ? 3 : 0);
  auto* n = m.mutable_graph()->mutable_node(0);
  n->add_input("");
  n->add_input("g_idx");
  ExpectModelRejected(m, "g_idx[5] = 3");
}

// --- com.microsoft GroupQueryAttention with a KV cache that does not fit ----------------------

onnx::TensorProto Int32Tensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<int32_t>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT32);
  for (int64_t d : dims) t.add_dims(d);
  for (int32_t v : values) t.add_int32_data(v);
  return t;
}

// Decode step: query x[1,1,32] (4 heads of 8), key / value [1,1,16] (2 KV heads), past
// [1,2,5,8], seqlens_k {5}, total_sequence_length 6.
onnx::ModelProto GqaModel(int32_t seqlen, int64_t past_heads) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("vtensor-cli-test");
  m.add_opset_import()->set_version(13);
  auto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("gqa");
  AddFloatIO(g->add_input(), "x", {1, 1, 32});
  AddFloatIO(g->add_output(), "y", {1, 1, 32});
  *g->add_initializer() = FloatTensor("k", {1, 1, 16}, std::vector<float>(16, 0.5f));
  *g->add_initializer() = FloatTensor("v", {1, 1, 16}, std::vector<float>(16, 0.25f));
  const size_t past = static_cast<size_t>(past_heads * 5 * 8);
  *g->add_initializer() = FloatTensor("pk", {1, past_heads, 5, 8}, std::vector<float>(past, 1));
  *g->add_initializer() = FloatTensor("pv", {1, past_heads, 5, 8}, std::vector<float>(past, 2));
  *g->add_initializer() = Int32Tensor("seqlens", {1}, {seqlen});
  *g->add_initializer() = Int32Tensor("total", {}, {6});
  auto* n = g->add_node();
  n->set_name("gqa");
  n->set_op_type("GroupQueryAttention");
  n->set_domain("com.microsoft");
  for (const char* in : {"x", "k", "v", "pk", "pv", "seqlens", "total"}) n->add_input(in);
  n->add_output("y");
  for (const auto& [k, v] : {std::pair<const char*, int64_t>{"num_heads", 4},
                             {"kv_num_heads", 2}}) {
    auto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  return m;
}

TEST_F(BadInput, GroupQueryAttentionValidModelRuns) {
  EXPECT_EXIT_WITH(Vtensor({"run", WriteModel(GqaModel(5, 2))}), 0, "");
}

// --explain names the attention microkernel row and the layout of the present KV cache.
TEST_F(BadInput, GroupQueryAttentionExplainNamesKvCacheLayout) {
  ProcessResult r = Vtensor({"run", WriteModel(GqaModel(5, 2)), "--explain"});
  EXPECT_EXIT_WITH(r, 0, "node gqa: attention_");
  EXPECT_NE(r.output.find("present_key / present_value kv_cache.bnsh with spare capacity"),
            std::string::npos)
      << r.output;
}

TEST_F(BadInput, GroupQueryAttentionSeqlensBeyondCache) {
  ExpectModelRejected(GqaModel(9, 2), "node 'gqa' (com.microsoft.GroupQueryAttention, opset 1): "
                                      "input seqlens_k[0] = 9 is outside the KV cache");
}

TEST_F(BadInput, GroupQueryAttentionPastKeyWrongHeads) {
  ExpectModelRejected(GqaModel(5, 3), "input past_key [1,3,5,8]");
}

}  // namespace
}  // namespace vt::testing
