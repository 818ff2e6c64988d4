// Writes a small model pair for the CLI and stock-runtime tests of the compiled-tensor format:
//   OUT/stock.onnx      Y[2,40] = MatMul(X[2,64], W[64,40])
//   OUT/compiled.onnx   the same model plus compiled entries for W (f32 GEMM panels of 16,
//                       q4_0 kernel-feed with an inline type, q8_0 in OUT/compiled.vtw)
//   OUT/input_0.pb      a value for X
//   OUT/decoder.onnx    a model calling struct_types[0]'s decoder function on input "data"
//   OUT/decoder_data.bin, OUT/W.bin   that payload and W, raw little-endian float32
// usage: vtensor-make-compiled-model OUT_DIR [K N]   (W is [K,N], default 64 40)
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "vtensor/base/file.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/format/struct_decoder.h"
#include "vtensor/layout/layout_presets.h"

namespace {

vtensor::DeviceProto Cpu(const char* arch) {
  vtensor::DeviceProto d;
  d.set_type("cpu");
  d.set_architecture(arch);
  d.set_runtime("vtensor");
  d.set_runtime_version("1");
  return d;
}

void Io(onnx::ValueInfoProto* v, const char* name, int64_t a, int64_t b) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(a);
  tt->mutable_shape()->add_dim()->set_dim_value(b);
}

int Fail(const vt::Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: vtensor-make-compiled-model OUT_DIR [K N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int64_t k = argc == 4 ? std::atoll(argv[2]) : 64, n = argc == 4 ? std::atoll(argv[3]) : 40;
  if (k < 1 || n < 1 || k > 4096 || n > 4096) {
    std::fprintf(stderr, "error: K and N must be in [1, 4096]\n");
    return 2;
  }
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  auto random_raw = [&](size_t n) {
    std::string raw(n * 4, '\0');
    for (size_t i = 0; i < n; ++i) {
      float f = dist(rng);
      std::memcpy(&raw[i * 4], &f, 4);
    }
    return raw;
  };

  vt::CompiledModel m;
  auto& mp = *m.model;
  mp.set_ir_version(8);
  mp.set_producer_name("vtensor-make-compiled-model");
  mp.add_opset_import()->set_version(17);
  auto* g = mp.mutable_graph();
  g->set_name("matmul");
  Io(g->add_input(), "X", 2, k);
  Io(g->add_output(), "Y", 2, n);
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(k);
  w->add_dims(n);
  w->set_raw_data(random_raw(static_cast<size_t>(k * n)));
  auto* node = g->add_node();
  node->set_op_type("MatMul");
  node->add_input("X");
  node->add_input("W");
  node->add_output("Y");

  m.path = vt::JoinPath(dir, "stock.onnx");
  if (auto s = vt::WriteCompiledModel(m, m.path); !s.ok()) return Fail(s);

  m.path = vt::JoinPath(dir, "compiled.onnx");
  std::remove(vt::JoinPath(dir, "compiled.vtw").c_str());
  auto panels = vt::GemmColumnPanels(k, n, 16);
  if (auto s = vt::AddCompiledTensor(m, "W", *panels, Cpu("x86_64-avx512"), "f32_gemm_panel16"); !s.ok())
    return Fail(s);
  auto q4 = vt::BlockQuantizedWeight(n, k, vt::Encoding::kQ4_0, vt::BlockOrder::kInputBlockMajor);
  vt::CompileOptions inline_type;
  inline_type.model_level_type = false;
  if (auto s = vt::AddCompiledTensor(m, "W", *q4->Transpose({1, 0}), Cpu("x86_64-avx2"), "q4_0_feed", inline_type); !s.ok())
    return Fail(s);
  auto q8 = vt::BlockQuantizedWeight(n, k, vt::Encoding::kQ8_0, vt::BlockOrder::kInputBlockMajor, 8);
  vt::CompileOptions external;
  external.external_location = "compiled.vtw";
  external.digest = vt::DigestAlgorithm::kSha256;
  if (auto s = vt::AddCompiledTensor(m, "W", *q8->Transpose({1, 0}), Cpu("x86_64-avx2"), "q8_0_feed_r8", external); !s.ok())
    return Fail(s);
  if (auto s = vt::WriteCompiledModel(m, m.path); !s.ok()) return Fail(s);

  onnx::TensorProto x;
  x.set_name("X");
  x.set_data_type(onnx::TensorProto::FLOAT);
  x.add_dims(2);
  x.add_dims(k);
  x.set_raw_data(random_raw(static_cast<size_t>(2 * k)));
  if (auto s = vt::WriteFileAtomic(vt::JoinPath(dir, "input_0.pb"), x.SerializeAsString()); !s.ok())
    return Fail(s);

  // The portable decoder of the f32 panel type, wrapped in a model for any ONNX runtime.
  const auto& type = m.ext.struct_types(0);
  onnx::FunctionProto fn;
  if (!type.has_decoder() || !fn.ParseFromString(type.decoder())) {
    std::fprintf(stderr, "error: type %s has no decoder\n", type.name().c_str());
    return 2;
  }
  onnx::ModelProto dm;
  dm.set_ir_version(8);
  dm.set_producer_name("vtensor-make-compiled-model");
  dm.add_opset_import()->set_version(17);
  auto* dos = dm.add_opset_import();
  dos->set_domain(vt::kDecoderDomain);
  dos->set_version(1);
  *dm.add_functions() = fn;
  auto* dg = dm.mutable_graph();
  dg->set_name("decode");
  auto* din = dg->add_input();
  din->set_name("data");
  din->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  din->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(
      type.fields(0).shape(0).dim_value());
  Io(dg->add_output(), "value", k, n);
  auto* call = dg->add_node();
  call->set_op_type(fn.name());
  call->set_domain(vt::kDecoderDomain);
  call->add_input("data");
  call->add_output("value");
  if (auto s = vt::WriteFileAtomic(vt::JoinPath(dir, "decoder.onnx"), dm.SerializeAsString()); !s.ok())
    return Fail(s);
  if (auto s = vt::WriteFileAtomic(vt::JoinPath(dir, "decoder_data.bin"), m.ext.compiled_tensors(0).value().raw_data()); !s.ok())
    return Fail(s);
  if (auto s = vt::WriteFileAtomic(vt::JoinPath(dir, "W.bin"), m.model->graph().initializer(0).raw_data()); !s.ok())
    return Fail(s);
  std::printf("wrote %s/{stock.onnx,compiled.onnx,compiled.vtw,input_0.pb,decoder.onnx,...}\n", dir.c_str());
  return 0;
}
