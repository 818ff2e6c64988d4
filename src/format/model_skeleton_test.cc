#include "vtensor/format/model_skeleton.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <string>

#include "vtensor/format/tensor_proto.h"

namespace vt {
namespace {

// A float tensor of `n` distinct values (offset by `seed`) in raw_data.
onnx::TensorProto RawFloats(const std::string& name, int n, float seed) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(n);
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int i = 0; i < n; ++i) {
    const float v = seed + static_cast<float>(i);
    std::memcpy(raw.data() + static_cast<size_t>(i) * 4, &v, 4);
  }
  t.set_raw_data(raw);
  return t;
}

void AddConstant(onnx::GraphProto* g, const std::string& out, const onnx::TensorProto& value) {
  auto* n = g->add_node();
  n->set_op_type("Constant");
  n->add_output(out);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = value;
}

// Large raw_data in an initializer (its name padded so that the payload sits at an odd
// offset), a small one, a Constant node, an If subgraph with its own initializer and Constant,
// a sparse initializer, a model-local function holding a Constant, and an external-data tensor.
onnx::ModelProto Model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("main");
  *g->add_initializer() = RawFloats("w_odd", 1100, 0.25f);  // values no other tensor holds
  *g->add_initializer() = RawFloats("b", 3, 7.0f);
  AddConstant(g, "c", RawFloats("c", 2000, 100.0f));
  auto* iff = g->add_node();
  iff->set_op_type("If");
  iff->add_input("cond");
  iff->add_output("y");
  auto* then = iff->add_attribute();
  then->set_name("then_branch");
  then->set_type(onnx::AttributeProto::GRAPH);
  auto* sub = then->mutable_g();
  sub->set_name("then");
  *sub->add_initializer() = RawFloats("sub_w", 1500, -3.0f);
  AddConstant(sub, "sub_c", RawFloats("sub_c", 1024, 9.0f));
  auto* sp = g->add_sparse_initializer();
  *sp->mutable_values() = RawFloats("sp", 1030, 0.5f);
  auto* idx = sp->mutable_indices();
  idx->set_data_type(onnx::TensorProto::INT64);
  idx->add_dims(1030);
  for (int i = 0; i < 1030; ++i) idx->add_int64_data(2 * i);
  sp->add_dims(2060);
  auto* fn = m.add_functions();
  fn->set_name("F");
  fn->set_domain("local");
  auto* fc = fn->add_node();
  fc->set_op_type("Constant");
  fc->add_output("fc");
  auto* fa = fc->add_attribute();
  fa->set_name("value");
  fa->set_type(onnx::AttributeProto::TENSOR);
  *fa->mutable_t() = RawFloats("fc", 1200, 4.0f);
  auto* ext = g->add_initializer();
  ext->set_name("ext");
  ext->set_data_type(onnx::TensorProto::FLOAT);
  ext->add_dims(2);
  ext->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = ext->add_external_data();
  kv->set_key("location");
  kv->set_value("ext.bin");
  return m;
}

class ModelSkeletonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("vt_skeleton_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    std::filesystem::create_directories(dir_);
    const float two[2] = {5.0f, 6.0f};
    ASSERT_TRUE(
        WriteFileAtomic(dir_ + "/ext.bin", std::string_view(reinterpret_cast<const char*>(two), 8))
            .ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& bytes) {
    std::string path = dir_ + "/m.onnx";
    EXPECT_TRUE(WriteFileAtomic(path, bytes).ok());
    return path;
  }
  Expected<ModelSkeleton> Parse(const std::string& bytes, bool with_extension = false) {
    const std::string path = Write(bytes);
    auto file = MappedFile::Open(path);
    if (!file.ok()) return file.take_status();
    return ParseModelSkeleton(*file, path, with_extension);
  }

  std::string dir_;
};

// Every TensorProto of the graphs and functions, by name.
void Collect(const onnx::GraphProto& g, std::map<std::string, const onnx::TensorProto*>* out) {
  for (const auto& t : g.initializer()) (*out)[t.name()] = &t;
  for (const auto& s : g.sparse_initializer()) (*out)[s.values().name()] = &s.values();
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_t()) (*out)[a.t().name()] = &a.t();
      if (a.has_g()) Collect(a.g(), out);
    }
}
std::map<std::string, const onnx::TensorProto*> Tensors(const onnx::ModelProto& m) {
  std::map<std::string, const onnx::TensorProto*> out;
  Collect(m.graph(), &out);
  for (const auto& f : m.functions())
    for (const auto& n : f.node())
      for (const auto& a : n.attribute())
        if (a.has_t()) out[a.t().name()] = &a.t();
  return out;
}

TEST_F(ModelSkeletonTest, EveryTensorReadsAsItsBytesAndLargeOnesBorrowTheFile) {
  const onnx::ModelProto full = Model();
  auto sk = Parse(full.SerializeAsString());
  ASSERT_TRUE(sk.ok()) << sk.status().message();
  EXPECT_EQ(sk->elided->size(), 6u);  // w_odd, c, sub_w, sub_c, sp, fc
  EXPECT_LT(sk->proto->ByteSizeLong() * 4, full.ByteSizeLong());
  ExternalDataResolver resolver(dir_);
  const auto want = Tensors(full), have = Tensors(*sk->proto);
  ASSERT_EQ(want.size(), have.size());
  for (bool keep_misaligned : {false, true}) {
    TensorContext full_ctx;
    full_ctx.file = "m.onnx";
    full_ctx.external = &resolver;
    TensorContext ctx;
    ctx.file = "m.onnx";
    ctx.external = &resolver;
    ctx.elided = sk->elided;
    ctx.keep_misaligned = keep_misaligned;
    for (const auto& [name, tp] : want) {
      SCOPED_TRACE(name);
      auto a = TensorFromProto(*tp, full_ctx);
      auto b = TensorFromProto(*have.at(name), ctx);
      ASSERT_TRUE(a.ok() && b.ok()) << (b.ok() ? a.status().message() : b.status().message());
      ASSERT_EQ(a->shape(), b->shape());
      ASSERT_EQ(a->nbytes(), b->nbytes());
      EXPECT_EQ(std::memcmp(a->raw_data(), b->raw_data(), a->nbytes()), 0);
      // Misaligned payloads are views only where the context aligns later, copies otherwise.
      if (keep_misaligned && b->nbytes() >= kElideMinBytes) {
        EXPECT_NE(b->storage()->mapped_file(), nullptr);
      }
      if (!keep_misaligned) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b->raw_data()) % 4, 0u);
      }
    }
  }
}

TEST_F(ModelSkeletonTest, SourcesScopeKeepsTheSourceTensorsOnly) {
  onnx::ModelProto full = Model();
  auto* g = full.mutable_graph();
  g->add_input()->set_name("cond");
  g->add_output()->set_name("y");
  g->add_value_info()->set_name("z");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("y");
  relu->add_output("z");
  AddConstant(g, "other_domain", RawFloats("other_domain", 3, 1.0f));
  g->mutable_node(g->node_size() - 1)->set_domain("com.example");
  AddConstant(g, "onnx_domain", RawFloats("onnx_domain", 3, 2.0f));
  g->mutable_node(g->node_size() - 1)->set_domain("ai.onnx");
  const std::string path = Write(full.SerializeAsString());
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  auto whole = ParseModelSkeleton(*file, path, false);
  auto sources = ParseModelSkeleton(*file, path, false, SkeletonScope::kSources);
  ASSERT_TRUE(whole.ok() && sources.ok());
  const onnx::GraphProto& s = sources->proto->graph();
  // The Constant nodes of the default domain and the nodes of other domains (calls of local
  // functions), nothing else of the nodes (If, Relu) and value_info.
  ASSERT_EQ(s.node_size(), 3);
  EXPECT_EQ(s.node(0).output(0), "c");
  EXPECT_EQ(s.node(1).output(0), "other_domain");
  EXPECT_EQ(s.node(2).output(0), "onnx_domain");
  EXPECT_EQ(s.value_info_size(), 0);
  // Every other field as the whole skeleton has it.
  EXPECT_EQ(s.name(), "main");
  EXPECT_EQ(s.input_size(), 1);
  EXPECT_EQ(s.output_size(), 1);
  EXPECT_EQ(s.initializer_size(), whole->proto->graph().initializer_size());
  EXPECT_EQ(s.sparse_initializer_size(), 1);
  EXPECT_EQ(sources->proto->functions_size(), 1);
  EXPECT_EQ(sources->proto->opset_import_size(), 1);
  ExternalDataResolver resolver(dir_);
  TensorContext ctx{"m.onnx", &resolver, nullptr, sources->elided, false};
  auto c = TensorFromProto(s.node(0).attribute(0).t(), ctx);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->numel(), 2000);
  // Damage inside a left-out node is still an error.
  std::string bytes = full.SerializeAsString();
  const std::string relu_type = "Relu";
  const size_t at = bytes.find(relu_type);
  ASSERT_NE(at, std::string::npos);
  bytes[at - 1] = static_cast<char>(0x7f);  // the op_type's length runs past its node
  const std::string bad = Write(bytes);
  auto bad_file = MappedFile::Open(bad);
  ASSERT_TRUE(bad_file.ok());
  EXPECT_FALSE(ParseModelSkeleton(*bad_file, bad, false, SkeletonScope::kSources).ok());
}

TEST_F(ModelSkeletonTest, ModelScopeKeepsNoTensorsAndTheSameFiles) {
  onnx::ModelProto full = Model();
  full.mutable_graph()->add_input()->set_name("cond");
  full.mutable_graph()->set_doc_string("doc");
  const std::string path = Write(full.SerializeAsString());
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  auto sources = ParseModelSkeleton(*file, path, false, SkeletonScope::kSources);
  auto model = ParseModelSkeleton(*file, path, false, SkeletonScope::kModel);
  ASSERT_TRUE(sources.ok() && model.ok()) << model.status().message();
  const onnx::GraphProto& g = model->proto->graph();
  EXPECT_EQ(g.node_size(), 0);
  EXPECT_EQ(g.initializer_size(), 0);
  EXPECT_EQ(g.sparse_initializer_size(), 0);
  EXPECT_EQ(g.name(), "main");
  EXPECT_EQ(g.doc_string(), "doc");
  EXPECT_EQ(g.input_size(), 1);
  EXPECT_EQ(model->proto->opset_import_size(), 1);
  EXPECT_EQ(model->proto->ir_version(), 8);
  // The external data files of the tensors it leaves out are listed all the same.
  ASSERT_TRUE(model->external_data_files && sources->external_data_files);
  EXPECT_EQ(*model->external_data_files, *sources->external_data_files);
  EXPECT_EQ(model->external_data_files->size(), 1u);
}

// The spans name the raw_data of the main graph's source tensors from kSourcesElideMinBytes
// on: an initializer's and a Constant value's (named after the node's output), not a
// subgraph's or a function's; external ones are listed apart.
TEST_F(ModelSkeletonTest, SourcePayloadSpansNameTheRawDataInTheBytes) {
  onnx::ModelProto full = Model();
  *full.mutable_graph()->add_initializer() = RawFloats("tiny", 2, 1.0f);  // 8 bytes: none
  const std::string bytes = full.SerializeAsString();
  auto spans = SourcePayloadSpans(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "m.onnx");
  ASSERT_TRUE(spans.ok()) << spans.status().message();
  std::set<std::string> names;
  for (const auto& [name, span] : spans->in_file) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"c", "w_odd"}));  // "b": 12 bytes
  for (const auto& [name, t] : std::map<std::string, onnx::TensorProto>{
           {"w_odd", RawFloats("w_odd", 1100, 0.25f)}, {"c", RawFloats("c", 2000, 100.0f)}}) {
    const ElidedPayloads::Span& span = spans->in_file.at(name);
    ASSERT_EQ(span.length, t.raw_data().size());
    ASSERT_LE(span.offset + span.length, bytes.size());
    EXPECT_EQ(bytes.compare(span.offset, span.length, t.raw_data()), 0) << name;
  }
  EXPECT_EQ(spans->external, (std::set<std::string>{"ext"}));
  // Bytes that are no ModelProto: an error naming the path.
  const std::string bad = bytes.substr(0, bytes.size() / 2);
  auto cut = SourcePayloadSpans(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), "m.onnx");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("m.onnx"), std::string::npos);
}

// Payloads from kSourcesElideMinBytes on stay in the file under SkeletonScope::kSources (a
// plan hit reads few of them); the whole scope copies those under kElideMinBytes.
TEST_F(ModelSkeletonTest, SourcesScopeLeavesSmallPayloadsInTheFile) {
  onnx::ModelProto full = Model();
  const int n = static_cast<int>(kSourcesElideMinBytes / 4) + 3;
  ASSERT_LT(static_cast<size_t>(n) * 4, kElideMinBytes);
  *full.mutable_graph()->add_initializer() = RawFloats("small", n, 7.0f);
  const std::string path = Write(full.SerializeAsString());
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  ExternalDataResolver resolver(dir_);
  for (SkeletonScope scope : {SkeletonScope::kWhole, SkeletonScope::kSources}) {
    auto sk = ParseModelSkeleton(*file, path, false, scope);
    ASSERT_TRUE(sk.ok()) << sk.status().message();
    const auto& inits = sk->proto->graph().initializer();
    const auto it = std::find_if(inits.begin(), inits.end(),
                                 [](const onnx::TensorProto& t) { return t.name() == "small"; });
    ASSERT_NE(it, inits.end());
    TensorContext ctx{"m.onnx", &resolver, nullptr, sk->elided, true};
    auto t = TensorFromProto(*it, ctx);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->storage()->mapped_file() != nullptr, scope == SkeletonScope::kSources);
    auto want = TensorFromProto(RawFloats("small", n, 7.0f), TensorContext{});
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(std::memcmp(t->raw_data(), want->raw_data(), want->nbytes()), 0);
  }
}

// A float[2] tensor whose data_location is `external` and whose external_data names each of
// `locations` in turn (the last one counts).
onnx::TensorProto ExternalFloats(const std::string& name,
                                 std::initializer_list<const char*> locations,
                                 bool external = true) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  if (external) t.set_data_location(onnx::TensorProto::EXTERNAL);
  for (const char* loc : locations) {
    auto* kv = t.add_external_data();
    kv->set_key("location");
    kv->set_value(loc);
    auto* off = t.add_external_data();
    off->set_key("offset");
    off->set_value("0");
  }
  return t;
}

onnx::AttributeProto* AddAttribute(onnx::NodeProto* n, const std::string& name,
                                   onnx::AttributeProto::AttributeType type) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

TEST_F(ModelSkeletonTest, BothScopesListTheExternalDataFilesOfEveryTensor) {
  onnx::ModelProto m = Model();  // initializer "ext" in ext.bin
  auto* g = m.mutable_graph();
  // In the If's then branch: an initializer (in a subdirectory), a Constant, a sparse
  // initializer, and a Loop whose body nests another initializer one level deeper.
  auto* branch = g->mutable_node(1)->mutable_attribute(0)->mutable_g();
  *branch->add_initializer() = ExternalFloats("bw", {"branch/w.bin"});
  AddConstant(branch, "bc", ExternalFloats("bc", {"c.bin"}));
  auto* bsp = branch->add_sparse_initializer();
  *bsp->mutable_values() = ExternalFloats("bsp", {"sp.bin"});
  *bsp->mutable_indices() = RawFloats("bsp_i", 2, 0.0f);
  bsp->add_dims(4);
  auto* loop = branch->add_node();
  loop->set_op_type("Loop");
  auto* body = AddAttribute(loop, "body", onnx::AttributeProto::GRAPH)->mutable_g();
  *body->add_initializer() = ExternalFloats("deep", {"deep.bin"});
  // Tensor attributes of another main-graph node (left out by kSources), and graphs.
  auto* op = g->add_node();
  op->set_op_type("Custom");
  *AddAttribute(op, "ts", onnx::AttributeProto::TENSORS)->add_tensors() =
      ExternalFloats("ts", {"ts.bin"});
  // Several location entries: the last one is the file; external_data without EXTERNAL is none.
  *AddAttribute(op, "last", onnx::AttributeProto::TENSOR)->mutable_t() =
      ExternalFloats("last", {"first.bin", "last.bin"});
  *AddAttribute(op, "not_external", onnx::AttributeProto::TENSOR)->mutable_t() =
      ExternalFloats("not_external", {"unused.bin"}, false);
  *AddAttribute(op, "gs", onnx::AttributeProto::GRAPHS)->add_graphs()->add_initializer() =
      ExternalFloats("gs", {"gs.bin"});
  // A function's Constant.
  auto* fn_const = m.mutable_functions(0)->add_node();
  fn_const->set_op_type("Constant");
  *AddAttribute(fn_const, "value", onnx::AttributeProto::TENSOR)->mutable_t() =
      ExternalFloats("fn", {"fn.bin"});
  const std::string path = Write(m.SerializeAsString());
  std::set<std::string> want;
  for (const char* f : {"ext.bin", "branch/w.bin", "c.bin", "sp.bin", "deep.bin", "ts.bin",
                        "last.bin", "gs.bin", "fn.bin"})
    want.insert(JoinPath(ExternalDataDir(path), f));
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  for (SkeletonScope scope : {SkeletonScope::kWhole, SkeletonScope::kSources}) {
    auto sk = ParseModelSkeleton(*file, path, false, scope);
    ASSERT_TRUE(sk.ok()) << sk.status().message();
    ASSERT_TRUE(sk->external_data_files.has_value());
    EXPECT_EQ(*sk->external_data_files, want) << "scope " << static_cast<int>(scope);
  }
  // The files resolve as the importer maps them.
  ExternalDataResolver resolver(ExternalDataDir(path));
  auto mapped = resolver.Map("ext.bin");
  ASSERT_TRUE(mapped.ok());
  EXPECT_TRUE(want.count((*mapped)->path()));
}

TEST_F(ModelSkeletonTest, HasSessionPlansReadsTheTopLevelFieldsOnly) {
  onnx::ModelProto m = Model();
  const std::string plain = m.SerializeAsString();
  auto has = [&](const std::string& bytes) {
    const std::string path = Write(bytes);
    auto file = MappedFile::Open(path);
    return file.ok() && HasSessionPlans(**file);
  };
  EXPECT_FALSE(has(plain));
  vtensor::ModelExtension ext;
  ext.add_session_plans()->set_format_version(1);
  EXPECT_TRUE(has(plain + ext.SerializeAsString()));
  // Compiled tensors without a plan, and bytes that are no model.
  vtensor::ModelExtension tensors_only;
  tensors_only.add_compiled_tensors()->set_source_name("w_odd");
  EXPECT_FALSE(has(plain + tensors_only.SerializeAsString()));
  EXPECT_FALSE(has(std::string("\xff\xff\xff", 3)));
}

TEST_F(ModelSkeletonTest, ATokenWithoutItsTableIsAnErrorNotData) {
  auto sk = Parse(Model().SerializeAsString());
  ASSERT_TRUE(sk.ok());
  const onnx::TensorProto& w = sk->proto->graph().initializer(0);
  ASSERT_EQ(w.raw_data().size(), kElidedTokenBytes);
  TensorContext no_table;
  no_table.file = "m.onnx";
  auto t = TensorFromProto(w, no_table);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tensor 'w_odd': field raw_data: 16 bytes, expected 4400"),
            std::string::npos)
      << t.status().message();
  // Another parse's table does not know this parse's tokens.
  auto other = Parse(Model().SerializeAsString());
  ASSERT_TRUE(other.ok());
  TensorContext other_table = no_table;
  other_table.elided = other->elided;
  EXPECT_FALSE(TensorFromProto(w, other_table).ok());
}

// Field `tag` (one byte: number and wire type 2) holding `body`.
std::string LenField(char tag, const std::string& body) {
  std::string out(1, tag);
  uint64_t v = body.size();
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
  return out + body;
}

TEST_F(ModelSkeletonTest, SmallAndRepeatedRawDataStayInTheSkeleton) {
  // "small": 16 bytes of raw_data, as long as a token. "twice": raw_data twice (8000 bytes,
  // then 6000), of which protobuf keeps the last.
  const std::string small = RawFloats("small", 4, 1.0f).SerializeAsString();
  const std::string twice = RawFloats("twice", 2000, 1.0f).SerializeAsString() +
                            LenField('\x4a', RawFloats("x", 1500, 2.0f).raw_data());
  const std::string graph = LenField('\x2a', small) + LenField('\x2a', twice);
  const std::string bytes = std::string("\x08\x08", 2) + LenField('\x3a', graph);
  onnx::ModelProto full;
  ASSERT_TRUE(full.ParseFromString(bytes));
  ASSERT_EQ(full.graph().initializer(1).raw_data().size(), 6000u);
  auto sk = Parse(bytes);
  ASSERT_TRUE(sk.ok()) << sk.status().message();
  EXPECT_EQ(sk->elided->size(), 0u);
  ASSERT_EQ(sk->proto->graph().initializer_size(), 2);
  EXPECT_EQ(sk->proto->graph().initializer(0).raw_data(), full.graph().initializer(0).raw_data());
  EXPECT_EQ(sk->proto->graph().initializer(1).raw_data(), full.graph().initializer(1).raw_data());
}

// Byte offset of the length varint of the raw_data holding `raw`.
size_t RawDataLengthAt(const std::string& file, const std::string& raw) {
  const size_t at = file.find(raw);
  EXPECT_NE(at, std::string::npos);
  return at - 2;  // payloads of 128..16383 bytes have a two-byte length
}

TEST_F(ModelSkeletonTest, DamagedLengthNamesTheFileTheTensorAndTheField) {
  const onnx::ModelProto m = Model();
  std::string bytes = m.SerializeAsString();
  const std::string raw = m.graph().initializer(0).raw_data();  // 4400 bytes
  const size_t len_at = RawDataLengthAt(bytes, raw);
  bytes[len_at + 1] = static_cast<char>(bytes[len_at + 1] + 1);  // +128 bytes
  auto sk = Parse(bytes);
  ASSERT_FALSE(sk.ok());
  const std::string msg = sk.status().message();
  EXPECT_NE(msg.find(dir_ + "/m.onnx: not a valid ONNX ModelProto"), std::string::npos) << msg;
  EXPECT_NE(msg.find("model > graph #0 > initializer #0 (tensor 'w_odd'): field raw_data: "
                     "length 4528 runs past the end of its message"),
            std::string::npos)
      << msg;
}

TEST_F(ModelSkeletonTest, TruncatedOrGarbageBytesAreErrors) {
  const std::string bytes = Model().SerializeAsString();
  for (size_t cut : {size_t{1}, size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    auto sk = Parse(bytes.substr(0, cut));
    ASSERT_FALSE(sk.ok()) << cut;
    EXPECT_NE(sk.status().message().find("not a valid ONNX ModelProto"), std::string::npos);
  }
  // Wire type 7 inside a tensor.
  std::string bad = bytes;
  const std::string raw = Model().graph().initializer(0).raw_data();
  bad[RawDataLengthAt(bad, raw) - 1] = '\x4f';  // field 9, wire type 7
  auto sk = Parse(bad);
  ASSERT_FALSE(sk.ok());
  EXPECT_NE(sk.status().message().find("invalid wire type 7"), std::string::npos)
      << sk.status().message();
}

TEST_F(ModelSkeletonTest, ExtensionFieldsAreParsedApartFromTheSkeleton) {
  onnx::ModelProto m = Model();
  vtensor::ModelExtension ext;
  ext.add_devices()->set_architecture("x86_64-avx512");
  auto* ct = ext.add_compiled_tensors();
  ct->set_source_name("w_odd");
  ct->mutable_value()->set_raw_data(std::string(5000, 'p'));
  auto sk = Parse(m.SerializeAsString() + ext.SerializeAsString(), true);
  ASSERT_TRUE(sk.ok()) << sk.status().message();
  ASSERT_NE(sk->ext, nullptr);
  EXPECT_EQ(sk->ext->SerializeAsString(), ext.SerializeAsString());
  EXPECT_TRUE(sk->proto->unknown_fields().empty());
  // Field 28 as a varint: malformed, reported, the model still parses.
  auto bad = Parse(m.SerializeAsString() + std::string("\xe0\x01\x05", 3), true);
  ASSERT_TRUE(bad.ok()) << bad.status().message();
  EXPECT_EQ(bad->ext, nullptr);
  EXPECT_NE(bad->ext_error.find("field 28"), std::string::npos) << bad->ext_error;
}

// A TensorProto file: the large payload stays in the mapping whatever its offset, reads as its
// bytes, and is aligned for its element type (a misaligned one is copied once); a small one and
// a file of repeated raw_data fields are parsed as they stand.
TEST_F(ModelSkeletonTest, ATensorFileKeepsItsPayloadInTheMapping) {
  for (const std::string& name : {std::string("x"), std::string("x_"), std::string("x__")}) {
    SCOPED_TRACE(name);
    const onnx::TensorProto tp = RawFloats(name, 3000, -1.5f);
    const std::string path = Write(tp.SerializeAsString());
    auto file = MappedFile::Open(path);
    ASSERT_TRUE(file.ok());
    auto sk = ParseTensorSkeleton(*file, path);
    ASSERT_TRUE(sk.ok()) << sk.status().message();
    EXPECT_EQ(sk->elided->size(), 1u);
    EXPECT_LT(sk->proto->ByteSizeLong(), 64u);
    TensorContext ctx;
    ctx.file = path;
    ctx.elided = sk->elided;
    auto t = TensorFromProto(*sk->proto, ctx);
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_EQ(t->nbytes(), tp.raw_data().size());
    EXPECT_EQ(std::memcmp(t->raw_data(), tp.raw_data().data(), t->nbytes()), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % 4, 0u);
    EXPECT_EQ(t->name(), name);
  }
  onnx::TensorProto twice = RawFloats("t", 2000, 3.0f);
  const std::string first = twice.SerializeAsString();
  twice.set_raw_data(RawFloats("t", 2000, 9.0f).raw_data());
  const std::string path = Write(first + twice.SerializeAsString());  // raw_data twice: last wins
  auto file = MappedFile::Open(path);
  ASSERT_TRUE(file.ok());
  auto sk = ParseTensorSkeleton(*file, path);
  ASSERT_TRUE(sk.ok()) << sk.status().message();
  EXPECT_EQ(sk->elided->size(), 0u);
  EXPECT_EQ(sk->proto->raw_data(), twice.raw_data());
}

TEST_F(ModelSkeletonTest, ADamagedTensorFileNamesTheFileAndTheField) {
  const std::string bytes = RawFloats("x", 3000, 0.0f).SerializeAsString();
  for (size_t cut : {size_t{1}, bytes.size() / 2, bytes.size() - 1}) {
    const std::string path = Write(bytes.substr(0, cut));
    auto file = MappedFile::Open(path);
    ASSERT_TRUE(file.ok());
    auto sk = ParseTensorSkeleton(*file, path);
    ASSERT_FALSE(sk.ok()) << cut;
    const std::string msg = sk.status().message();
    EXPECT_NE(msg.find(path + ": not a valid ONNX TensorProto"), std::string::npos) << msg;
    if (cut > 16)
      EXPECT_NE(msg.find("tensor (tensor 'x'): field raw_data: length"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace vt
