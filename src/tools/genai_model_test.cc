// The genai-form generator writes what tools/genai_model.h describes: the builder's input,
// output, node and initializer names and shapes, MatMulNBits planes and attributes,
// GroupQueryAttention wiring, the rotary caches' values, aligned external data, the
// genai_config.json; the same seed gives the same bytes; bad configs name the option and
// write nothing. (Agreement with ONNX Runtime: tests/tools/genai_ort.sh.)
#include "tools/genai_model.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"
#include "vtensor/format/tensor_proto.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

class TempDir : public testing::ScopedTempDir {
 public:
  TempDir() : ScopedTempDir("genai") {}
};

GenaiModelConfig Tiny() {
  GenaiModelConfig c;
  c.hidden = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.ffn = 100;
  c.layers = 2;
  c.vocab = 97;
  c.max_length = 48;
  c.seed = 3;
  return c;
}

const onnx::NodeProto* FindNode(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

std::map<std::string, const onnx::AttributeProto*> Attrs(const onnx::NodeProto& n) {
  std::map<std::string, const onnx::AttributeProto*> m;
  for (const auto& a : n.attribute()) m[a.name()] = &a;
  return m;
}

std::vector<int64_t> Dims(const onnx::TensorProto& t) { return {t.dims().begin(), t.dims().end()}; }

TEST(GenaiModelTest, NamesShapesAndWiringAreTheBuilders) {
  TempDir dir;
  GenaiModelConfig c = Tiny();
  c.zero_points = true;
  const std::string path = dir.path() + "/m.onnx";
  auto gen = WriteGenaiModel(c, path, GenaiStorage::kInline);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  auto mp = ParseModelFile(path);
  ASSERT_TRUE(mp.ok()) << mp.status().ToString();
  const onnx::GraphProto& g = (*mp)->graph();

  std::vector<std::string> ins, outs;
  for (const auto& v : g.input()) ins.push_back(v.name());
  for (const auto& v : g.output()) outs.push_back(v.name());
  EXPECT_EQ(ins, (std::vector<std::string>{"input_ids", "attention_mask", "past_key_values.0.key",
                                           "past_key_values.0.value", "past_key_values.1.key",
                                           "past_key_values.1.value"}));
  EXPECT_EQ(outs, (std::vector<std::string>{"logits", "present.0.key", "present.0.value", "present.1.key",
                                            "present.1.value"}));
  const auto& past = g.input(2).type().tensor_type().shape();
  ASSERT_EQ(past.dim_size(), 4);
  EXPECT_EQ(past.dim(1).dim_value(), 2);   // kv heads
  EXPECT_EQ(past.dim(2).dim_param(), "past_sequence_length");
  EXPECT_EQ(past.dim(3).dim_value(), 16);  // head size

  std::map<std::string, int> ops;
  for (const auto& n : g.node()) ++ops[n.op_type()];
  EXPECT_EQ(ops["MatMulNBits"], 5 * 2);
  EXPECT_EQ(ops["GroupQueryAttention"], 2);
  EXPECT_EQ(ops["SimplifiedLayerNormalization"], 1);
  EXPECT_EQ(ops["SkipSimplifiedLayerNormalization"], 2 * 2);  // 3 per model - 1 + final
  EXPECT_EQ(ops["MatMul"], 1);

  const onnx::NodeProto* gqa = FindNode(g, "/model/layers.1/attn/GroupQueryAttention");
  ASSERT_NE(gqa, nullptr);
  EXPECT_EQ(gqa->domain(), "com.microsoft");
  ASSERT_EQ(gqa->input_size(), 12);
  EXPECT_EQ(gqa->input(0), "/model/layers.1/attn/qkv_proj/MatMul/output_0");
  EXPECT_EQ(gqa->input(3), "past_key_values.1.key");
  EXPECT_EQ(gqa->input(5), "/model/attn_mask_reformat/attn_mask_subgraph/Sub/Cast/output_0");
  EXPECT_EQ(gqa->input(6), "/model/attn_mask_reformat/attn_mask_subgraph/Gather/Cast/output_0");
  EXPECT_EQ(gqa->input(7), "cos_cache");
  EXPECT_EQ(gqa->output(1), "present.1.key");
  auto ga = Attrs(*gqa);
  EXPECT_EQ(ga["num_heads"]->i(), 4);
  EXPECT_EQ(ga["kv_num_heads"]->i(), 2);
  EXPECT_EQ(ga["do_rotary"]->i(), 1);
  EXPECT_EQ(ga["rotary_interleaved"]->i(), 0);
  EXPECT_EQ(ga["local_window_size"]->i(), -1);
  EXPECT_FLOAT_EQ(ga["scale"]->f(), 0.25f);

  const onnx::NodeProto* qkv = FindNode(g, "/model/layers.0/attn/qkv_proj/MatMul_Q4");
  ASSERT_NE(qkv, nullptr);
  auto qa = Attrs(*qkv);
  EXPECT_EQ(qa["K"]->i(), 64);
  EXPECT_EQ(qa["N"]->i(), (4 + 2 * 2) * 16);
  EXPECT_EQ(qa["bits"]->i(), 4);
  EXPECT_EQ(qa["block_size"]->i(), 32);
  EXPECT_EQ(qa["accuracy_level"]->i(), 4);
  ASSERT_EQ(qkv->input_size(), 4);
  EXPECT_EQ(qkv->input(1), "model.layers.0.attn.qkv_proj.MatMul.weight_Q4");

  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  EXPECT_EQ(static_cast<int64_t>(inits.size()), gen->num_weights);
  // down_proj: K = ffn 100 -> 4 blocks of 32 (the last one ragged), zero points 2 per row.
  EXPECT_EQ(Dims(*inits.at("model.layers.1.mlp.down_proj.MatMul.weight_Q4")), (std::vector<int64_t>{64, 4, 16}));
  EXPECT_EQ(Dims(*inits.at("model.layers.1.mlp.down_proj.MatMul.weight_scales")), (std::vector<int64_t>{64 * 4}));
  EXPECT_EQ(Dims(*inits.at("model.layers.1.mlp.down_proj.MatMul.weight_zero_points")), (std::vector<int64_t>{64 * 2}));
  EXPECT_EQ(Dims(*inits.at("model.embed_tokens.weight")), (std::vector<int64_t>{97, 64}));
  EXPECT_EQ(Dims(*inits.at("lm_head.MatMul.weight")), (std::vector<int64_t>{64, 97}));
  EXPECT_EQ(inits.count("model.layers.2.final_norm_layernorm.weight"), 1u);

  // cos / sin caches [max_length, D/2]: cos(p * theta^(-2j/D)).
  const onnx::TensorProto& cos = *inits.at("cos_cache");
  const onnx::TensorProto& sin = *inits.at("sin_cache");
  ASSERT_EQ(Dims(cos), (std::vector<int64_t>{48, 8}));
  const float* cv = reinterpret_cast<const float*>(cos.raw_data().data());
  const float* sv = reinterpret_cast<const float*>(sin.raw_data().data());
  for (int p : {0, 1, 17, 47})
    for (int j : {0, 3, 7}) {
      const double angle = p * std::pow(10000.0, -2.0 * j / 16.0);
      EXPECT_NEAR(cv[p * 8 + j], std::cos(angle), 1e-5) << p << "," << j;
      EXPECT_NEAR(sv[p * 8 + j], std::sin(angle), 1e-5) << p << "," << j;
    }
}

TEST(GenaiModelTest, ExternalDataIsAlignedAndGenaiConfigDescribesTheModel) {
  TempDir dir;
  const std::string path = dir.path() + "/model.onnx";
  auto gen = WriteGenaiModel(Tiny(), path, GenaiStorage::kExternal, true);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(gen->data_path, path + ".data");
  auto mp = ParseModelFile(path);
  ASSERT_TRUE(mp.ok()) << mp.status().ToString();
  const auto data_size = static_cast<int64_t>(fs::file_size(gen->data_path));
  int64_t payload = 0;
  for (const auto& t : (*mp)->graph().initializer()) {
    ASSERT_EQ(t.data_location(), onnx::TensorProto::EXTERNAL) << t.name();
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "model.onnx.data");
    const int64_t offset = std::stoll(kv["offset"]), length = std::stoll(kv["length"]);
    EXPECT_EQ(offset % 4096, 0) << t.name();
    EXPECT_LE(offset + length, data_size) << t.name();
    payload += length;
  }
  EXPECT_EQ(payload, gen->weight_bytes);

  auto text = ReadFileToString(gen->config_path);
  ASSERT_TRUE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  const auto& d = j["model"]["decoder"];
  EXPECT_EQ(d["filename"], "model.onnx");
  EXPECT_EQ(d["num_attention_heads"], 4);
  EXPECT_EQ(d["num_key_value_heads"], 2);
  EXPECT_EQ(d["num_hidden_layers"], 2);
  EXPECT_EQ(d["head_size"], 16);
  EXPECT_EQ(d["inputs"]["past_key_names"], "past_key_values.%d.key");
  EXPECT_EQ(d["outputs"]["present_value_names"], "present.%d.value");
  EXPECT_EQ(j["model"]["context_length"], 48);
  EXPECT_EQ(j["model"]["vocab_size"], 97);
}

TEST(GenaiModelTest, WeightsDependOnlyOnTheSeed) {
  TempDir dir;
  auto data = [&](const std::string& name, uint64_t seed) {
    GenaiModelConfig c = Tiny();
    c.seed = seed;
    auto gen = WriteGenaiModel(c, dir.path() + "/" + name, GenaiStorage::kExternal);
    EXPECT_TRUE(gen.ok()) << gen.status().ToString();
    auto bytes = ReadFileToString(dir.path() + "/" + name + ".data");
    return bytes.ok() ? *bytes : std::string();
  };
  const std::string a = data("a.onnx", 5), b = data("b.onnx", 5), d = data("d.onnx", 6);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, d);
}

TEST(GenaiModelTest, PresetIsTheOneBClass) {
  const GenaiModelConfig c = Genai1BPreset();
  EXPECT_EQ(c.hidden, 2048);
  EXPECT_EQ(c.layers, 16);
  EXPECT_EQ(c.heads, 32);
  EXPECT_EQ(c.kv_heads, 8);
  EXPECT_EQ(c.ffn, 8192);
  EXPECT_EQ(c.vocab, 32000);
  EXPECT_EQ(c.nbits_block, 32);
  EXPECT_TRUE(ValidateGenaiConfig(c).ok());
}

TEST(GenaiModelTest, BadConfigsNameTheOptionAndWriteNothing) {
  TempDir dir;
  const std::string path = dir.path() + "/bad.onnx";
  std::vector<std::pair<GenaiModelConfig, const char*>> bad;
  auto with = [&](auto edit, const char* flag) {
    GenaiModelConfig c = Tiny();
    edit(c);
    bad.push_back({c, flag});
  };
  with([](GenaiModelConfig& c) { c.kv_heads = 3; }, "--kv-heads");
  with([](GenaiModelConfig& c) { c.heads = 5; }, "--heads");
  with([](GenaiModelConfig& c) { c.hidden = 36; c.heads = 4; c.kv_heads = 4; }, "must be even");
  with([](GenaiModelConfig& c) { c.vocab = 0; }, "--vocab");
  with([](GenaiModelConfig& c) { c.nbits_block = 48; }, "--nbits-block");
  with([](GenaiModelConfig& c) { c.accuracy_level = 5; }, "--nbits-accuracy-level");
  with([](GenaiModelConfig& c) { c.hidden = int64_t{1} << 40; c.heads = 2; c.kv_heads = 1; }, "overflows");
  for (const auto& [c, flag] : bad) {
    auto r = WriteGenaiModel(c, path, GenaiStorage::kInline);
    ASSERT_FALSE(r.ok()) << flag;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(flag), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace vt
