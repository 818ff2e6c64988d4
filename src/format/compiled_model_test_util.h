// Test fixture shared by compiled_model_test.cc and model_checker_test.cc: a small MatMul
// model whose weight W[64,40] has three compiled entries (f32 GEMM panels of 16 with a
// model-level type, q4_0 kernel-feed order with an inline type, q8_0 in an external file).
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "vtensor/format/compiled_model.h"
#include "vtensor/format/model_checker.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/layout/layout_presets.h"

namespace vt::testing {

inline vtensor::DeviceProto CpuDevice(const std::string& arch) {
  vtensor::DeviceProto d;
  d.set_type("cpu");
  d.set_architecture(arch);
  d.set_runtime("vtensor");
  d.set_runtime_version("1");
  return d;
}

// A fresh temporary directory per call, removed by the caller.
inline std::string TempDir(const std::string& tag) {
  static int n = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("vt_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The stock part: Y[2,40] = MatMul(X[2,64], W[64,40]).
inline CompiledModel StockMatMulModel(const std::string& path) {
  CompiledModel m;
  m.path = path;
  auto& mp = *m.model;
  mp.set_ir_version(8);
  mp.set_producer_name("vtensor-test");
  mp.add_opset_import()->set_version(17);
  auto* g = mp.mutable_graph();
  g->set_name("g");
  auto io = [](onnx::ValueInfoProto* v, const char* name, int64_t a, int64_t b) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(a);
    tt->mutable_shape()->add_dim()->set_dim_value(b);
  };
  io(g->add_input(), "X", 2, 64);
  io(g->add_output(), "Y", 2, 40);
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(64);
  w->add_dims(40);
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  std::string raw(64 * 40 * 4, '\0');
  for (int i = 0; i < 64 * 40; ++i) {
    float f = dist(rng);
    std::memcpy(&raw[static_cast<size_t>(i) * 4], &f, 4);
  }
  w->set_raw_data(raw);
  auto* node = g->add_node();
  node->set_op_type("MatMul");
  node->add_input("X");
  node->add_input("W");
  node->add_output("Y");
  return m;
}

inline CompiledModel CompiledMatMulModel(const std::string& dir) {
  CompiledModel m = StockMatMulModel(dir + "/model.onnx");
  auto panels = GemmColumnPanels(64, 40, 16);
  EXPECT_TRUE(AddCompiledTensor(m, "W", *panels, CpuDevice("x86_64-avx512"), "f32_gemm_panel16").ok());
  auto q4 = BlockQuantizedWeight(40, 64, Encoding::kQ4_0, BlockOrder::kInputBlockMajor);
  CompileOptions inline_type;
  inline_type.model_level_type = false;
  EXPECT_TRUE(AddCompiledTensor(m, "W", *q4->Transpose({1, 0}), CpuDevice("x86_64-avx2"),
                                "q4_0_feed", inline_type).ok());
  auto q8 = BlockQuantizedWeight(40, 64, Encoding::kQ8_0, BlockOrder::kInputBlockMajor, 8);
  CompileOptions external;
  external.external_location = "model.vtw";
  EXPECT_TRUE(AddCompiledTensor(m, "W", *q8->Transpose({1, 0}), CpuDevice("x86_64-avx2"),
                                "q8_0_feed_r8", external).ok());
  return m;
}

// XORs byte `at` of entry `entry`'s inline payload with `mask` and, when the entry carries its
// own payload digest, rewrites that digest: a payload written wrong but self-consistent (a
// packer bug), which only decoding can find.
inline void CorruptInlinePayloadConsistently(CompiledModel& m, int entry, size_t at,
                                             uint8_t mask) {
  auto& e = *m.ext.mutable_compiled_tensors(entry);
  std::string& raw = *e.mutable_value()->mutable_raw_data();
  raw[at] = static_cast<char>(raw[at] ^ mask);
  for (auto& kv : *e.mutable_metadata_props())
    if (kv.key() == kPayloadDigestKey) kv.set_value(PayloadDigest(raw.data(), raw.size()));
}

// One line per checker finding ("severity rule [entry] field: message"), for test messages.
inline std::string Describe(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += std::string(SeverityName(f.severity)) + " " + f.rule + " [" + std::to_string(f.entry) +
         "] " + f.field + ": " + f.message + "\n";
  return s;
}

}  // namespace vt::testing
