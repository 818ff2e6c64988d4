// Session::Load's zero-copy parse (format/model_skeleton.h): large initializers are views of
// the mapped file at whatever offset the file gives them; the session aligns every tensor its
// passes and kernels read (runtime/session_alignment.h), so a load computes what a load from
// bytes (a complete protobuf parse) computes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "vtensor/runtime/session.h"
#include "vtensor/tensor/natural_alignment.h"

namespace vt {
namespace {

onnx::TensorProto RawFloats(const std::string& name, const std::vector<int64_t>& dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) t.add_dims(d), n *= d;
  std::string raw(static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>((i * 37) % 101) / 50.0f - 1.0f;
    std::memcpy(raw.data() + i * 4, &v, 4);
  }
  t.set_raw_data(raw);
  return t;
}

void Io(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// y = MatMul(x[2,1024], W[1024,8]) (a packed weight), z = x + a[1024] (read in place) and
// Constant c[1100] as a graph output; `pad` lengthens the names so that the payloads sit at
// other offsets of the file.
onnx::ModelProto Model(int pad) {
  const std::string p(static_cast<size_t>(pad), '_');
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  *g->add_initializer() = RawFloats("W" + p, {1024, 8});
  *g->add_initializer() = RawFloats("a" + p + p, {1024});
  Io(g->add_input(), "x", {2, 1024});
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->add_input("x");
  mm->add_input("W" + p);
  mm->add_output("y");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("a" + p + p);
  add->add_output("z");
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("c");
  auto* v = c->add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  *v->mutable_t() = RawFloats("c" + p, {1100});
  Io(g->add_output(), "y", {2, 8});
  Io(g->add_output(), "z", {2, 1024});
  Io(g->add_output(), "c", {1100});
  return m;
}

TEST(SessionZeroCopyTest, LoadComputesWhatALoadFromBytesComputesAtAnyOffset) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("vt_zero_copy_" + std::to_string(::getpid())))
                              .string();
  std::filesystem::create_directories(dir);
  Tensor x = Tensor::Empty(DType::kFloat32, {2, 1024});
  for (int64_t i = 0; i < x.numel(); ++i) x.mutable_data<float>()[i] = static_cast<float>(i % 13);
  SessionOptions so;
  so.cache_warning = nullptr;
  for (int pad = 0; pad < 4; ++pad) {
    SCOPED_TRACE(pad);
    const std::string bytes = Model(pad).SerializeAsString();
    const std::string path = dir + "/m" + std::to_string(pad) + ".onnx";
    ASSERT_TRUE(WriteFileAtomic(path, bytes).ok());
    auto loaded = Session::Load(path, so);
    auto from_bytes = Session::LoadFromBytes(bytes.data(), bytes.size(), dir, so);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().message();
    for (const auto& [name, t] : (*loaded)->model().graph->initializers)
      EXPECT_TRUE(IsNaturallyAligned(t)) << name;
    auto a = (*loaded)->Run({Value(x)});
    auto b = (*from_bytes)->Run({Value(x)});
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), 3u);
    for (size_t i = 0; i < a->size(); ++i) {
      const Tensor& ta = (*a)[i].tensor();
      const Tensor& tb = (*b)[i].tensor();
      ASSERT_EQ(ta.shape(), tb.shape());
      EXPECT_EQ(std::memcmp(ta.raw_data(), tb.raw_data(), ta.nbytes()), 0) << i;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vt
