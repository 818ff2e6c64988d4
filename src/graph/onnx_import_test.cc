// LoadModel's skeleton parse (format/model_skeleton.h): the imported model equals the import
// of the complete ModelProto, byte for byte, wherever the tensors sit.
#include "vtensor/graph/onnx_import.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>

#include "vtensor/tensor/natural_alignment.h"

namespace vt {
namespace {

onnx::TensorProto RawFloats(const std::string& name, int n) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(n);
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * 0.25f - 3.0f;
    std::memcpy(raw.data() + static_cast<size_t>(i) * 4, &v, 4);
  }
  t.set_raw_data(raw);
  return t;
}

onnx::NodeProto* Constant(onnx::GraphProto* g, const std::string& out, onnx::TensorProto value) {
  auto* n = g->add_node();
  n->set_op_type("Constant");
  n->add_output(out);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = std::move(value);
  return n;
}

// Initializers, Constant nodes, an If subgraph, a model-local function and external data;
// `pad` shifts every payload's file offset.
onnx::ModelProto Model(int pad) {
  const std::string p(static_cast<size_t>(pad), 'p');
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* local = m.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("main" + p);
  *g->add_initializer() = RawFloats("w" + p, 1100);
  *g->add_initializer() = RawFloats("small", 5);
  Constant(g, "c", RawFloats("c" + p, 2000));
  auto* iff = g->add_node();
  iff->set_op_type("If");
  iff->add_input("cond");
  iff->add_output("y");
  auto* then = iff->add_attribute();
  then->set_name("then_branch");
  then->set_type(onnx::AttributeProto::GRAPH);
  then->mutable_g()->set_name("then");
  *then->mutable_g()->add_initializer() = RawFloats("sub" + p, 1500);
  auto* call = g->add_node();
  call->set_op_type("F");
  call->set_domain("local");
  call->add_output("f");
  auto* fn = m.add_functions();
  fn->set_name("F");
  fn->set_domain("local");
  fn->add_output("out");
  auto* fc = fn->add_node();
  fc->set_op_type("Constant");
  fc->add_output("out");
  auto* fa = fc->add_attribute();
  fa->set_name("value");
  fa->set_type(onnx::AttributeProto::TENSOR);
  *fa->mutable_t() = RawFloats("fc", 1200);
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

// Every tensor of a graph (initializers, attribute tensors, subgraphs) by a path name.
void Tensors(const Graph& g, const std::string& at, std::map<std::string, Tensor>* out) {
  for (const auto& [name, t] : g.initializers) (*out)[at + name] = t;
  for (const Node& n : g.nodes)
    for (const auto& [name, a] : n.attrs) {
      if (a.t.defined()) (*out)[std::string(at).append(n.name).append(".").append(name)] = a.t;
      if (a.g) Tensors(*a.g, std::string(at).append(n.name).append("/"), out);
    }
}

class LoadModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("vt_import_" + std::to_string(::getpid())))
               .string();
    std::filesystem::create_directories(dir_);
    const float two[2] = {5.0f, 6.0f};
    ASSERT_TRUE(
        WriteFileAtomic(dir_ + "/ext.bin", std::string_view(reinterpret_cast<const char*>(two), 8))
            .ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(LoadModelTest, EqualsTheImportOfTheCompleteProtoAndIsAligned) {
  ImportOptions io;
  io.infer_shapes = false;
  for (int pad = 0; pad < 4; ++pad) {
    SCOPED_TRACE(pad);
    const onnx::ModelProto mp = Model(pad);
    const std::string path = dir_ + "/m.onnx";
    ASSERT_TRUE(WriteFileAtomic(path, mp.SerializeAsString()).ok());
    auto loaded = LoadModel(path, io);
    auto full = ImportModel(mp, path, io);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_TRUE(full.ok()) << full.status().message();
    std::map<std::string, Tensor> a, b;
    Tensors(*loaded->graph, "", &a);
    Tensors(*full->graph, "", &b);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), 6u);  // w, small, c, sub, the inlined fc, ext
    size_t mapped = 0;
    for (const auto& [name, t] : b) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(a.count(name));
      const Tensor& x = a.at(name);
      ASSERT_EQ(x.shape(), t.shape());
      EXPECT_EQ(std::memcmp(x.raw_data(), t.raw_data(), t.nbytes()), 0);
      EXPECT_TRUE(IsNaturallyAligned(x));
      if (x.storage()->mapped_file() != nullptr) ++mapped;
    }
    EXPECT_GE(mapped, 1u);  // ext.bin at least; aligned payloads of the model file too
  }
}

TEST_F(LoadModelTest, SourcesOnlyImportsInitializersAndConstants) {
  const std::string path = dir_ + "/m.onnx";
  ASSERT_TRUE(WriteFileAtomic(path, Model(1).SerializeAsString()).ok());
  ImportOptions io;
  io.infer_shapes = false;
  io.sources_only = true;
  auto m = LoadModel(path, io);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->opsets.at("local"), 1);
  EXPECT_EQ(m->graph->initializers.size(), 3u);  // wp, small, ext
  ASSERT_EQ(m->graph->nodes.size(), 2u);         // c and the inlined function's Constant
  for (const Node& n : m->graph->nodes) EXPECT_EQ(n.op_type, "Constant");
  EXPECT_TRUE(m->graph->inputs.empty());
}

// A tensor file: its bytes whatever the payload's offset, aligned, owned by the value (the
// file truncated afterwards changes nothing), and a damaged file an error naming it.
TEST_F(LoadModelTest, ValueFilesOwnTheirBytesAndNameDamagedFiles) {
  for (const std::string& name : {std::string("a"), std::string("ab"), std::string("abc")}) {
    SCOPED_TRACE(name);
    const onnx::TensorProto tp = RawFloats(name, 5000);
    const std::string path = dir_ + "/input_0.pb";
    ASSERT_TRUE(WriteFileAtomic(path, tp.SerializeAsString()).ok());
    auto v = LoadValueFile(path, TypeInfo());
    ASSERT_TRUE(v.ok()) << v.status().message();
    ASSERT_TRUE(v->is_tensor());
    const Tensor& t = v->tensor();
    EXPECT_EQ(t.storage()->mapped_file(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 4, 0u);
    std::filesystem::resize_file(path, 0);
    ASSERT_EQ(t.nbytes(), tp.raw_data().size());
    EXPECT_EQ(std::memcmp(t.raw_data(), tp.raw_data().data(), t.nbytes()), 0);
  }
  const std::string bytes = RawFloats("x", 5000).SerializeAsString();
  const std::string path = dir_ + "/cut.pb";
  ASSERT_TRUE(WriteFileAtomic(path, bytes.substr(0, bytes.size() - 7)).ok());
  auto v = LoadValueFile(path, TypeInfo());
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find(path + ": not a valid ONNX TensorProto"), std::string::npos)
      << v.status().message();
}

}  // namespace
}  // namespace vt
