// The weights kernels read in place from a loaded model's files are read ahead of the first run
// by a background thread (base/read_ahead.h).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "vtensor/runtime/session.h"

namespace vt {
namespace {

constexpr int64_t kK = 1024, kN = 512;  // W: 2 MiB of float

// y = MatMul(x[1, kK], W[kK, kN]) and y2 = MatMul(x, W) with W in the external data file
// `dir`/w.bin: at M = 1 the GEMVs read W in place from that file's mapping.
std::string ModelBytes(const std::string& dir) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(kK);
  w->add_dims(kN);
  std::string raw(static_cast<size_t>(kK * kN) * 4, '\0');
  for (int64_t i = 0; i < kK * kN; ++i) {
    const float v = static_cast<float>(i % 17) / 8.0f - 1.0f;
    std::memcpy(raw.data() + i * 4, &v, 4);
  }
  if (!WriteFileAtomic(dir + "/w.bin", raw).ok()) return "";
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("w.bin");
  for (auto [io, name, n] : {std::tuple{g->add_input(), "x", kK}, {g->add_output(), "y", kN},
                             {g->add_output(), "y2", kN}}) {
    io->set_name(name);
    auto* tt = io->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(1);
    tt->mutable_shape()->add_dim()->set_dim_value(n);
  }
  for (const char* y : {"y", "y2"}) {
    auto* mm = g->add_node();
    mm->set_op_type("MatMul");
    mm->add_input("x");
    mm->add_input("W");
    mm->add_output(y);
  }
  return m.SerializeAsString();
}

class SessionReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("vt_read_ahead_" + std::to_string(::getpid())))
               .string();
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/m.onnx";
    const std::string bytes = ModelBytes(dir_);
    ASSERT_FALSE(bytes.empty());
    ASSERT_TRUE(WriteFileAtomic(path_, bytes).ok());
    so_.cache_warning = nullptr;
    const char* v = std::getenv("VTENSOR_READ_AHEAD");
    if (v != nullptr) saved_ = v;
    ::unsetenv("VTENSOR_READ_AHEAD");
  }
  void TearDown() override {
    if (!saved_.empty()) ::setenv("VTENSOR_READ_AHEAD", saved_.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }
  std::string dir_, path_, saved_;
  SessionOptions so_;
};

// W once, though two nodes read it.
TEST_F(SessionReadAheadTest, LoadedModelsInPlaceWeightIsReadAheadOnce) {
  auto s = Session::Load(path_, so_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const ReadAhead* ra = (*s)->read_ahead();
  ASSERT_NE(ra, nullptr);
  EXPECT_EQ(ra->bytes_total(), static_cast<uint64_t>(kK * kN * 4));
  ra->Wait();
  EXPECT_EQ(ra->bytes_done(), ra->bytes_total());
  Tensor x = Tensor::Empty(DType::kFloat32, {1, kK});
  for (int64_t i = 0; i < kK; ++i) x.mutable_data<float>()[i] = static_cast<float>(i % 5);
  EXPECT_TRUE((*s)->Run({Value(x)}).ok());
}

TEST_F(SessionReadAheadTest, OffInTheEnvironmentStartsNoThread) {
  ::setenv("VTENSOR_READ_AHEAD", "off", 1);
  auto s = Session::Load(path_, so_);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)->read_ahead(), nullptr);
}

}  // namespace
}  // namespace vt
