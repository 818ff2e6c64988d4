#include "tools/genai_model.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "tools/atomic_stream_file.h"
#include "tools/synthetic_weights.h"
#include "vtensor/base/file.h"

namespace vt {

static_assert(std::endian::native == std::endian::little,
              "weights are written as the host's bytes, which ONNX defines as little-endian");

namespace {

constexpr int64_t kAutoExternal = int64_t{100} << 20;
constexpr int64_t kMaxInline = (int64_t{2} << 30) - (int64_t{64} << 20);  // protobuf limit
constexpr int64_t kAlignment = 4096;
constexpr size_t kChunk = size_t{1} << 18;  // f32 values per generated chunk (1 MiB)

using synth::WeightInit;

// Where an initializer's bytes come from.
struct TensorPlan {
  enum Kind { kF32, kCodes, kScales, kZeroPoints, kCos, kSin } kind = kF32;
  std::string name;
  std::vector<int64_t> dims;
  WeightInit init;            // kF32 and the matrix of the MatMulNBits planes
  uint64_t stream = 0;        // value stream
  int64_t in = 0, out = 0;    // MatMulNBits planes: the source matrix [in, out]
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  bool is_u8() const { return kind == kCodes || kind == kZeroPoints; }
  int64_t bytes() const { return numel() * (is_u8() ? 1 : 4); }
};

int64_t HeadSize(const GenaiModelConfig& c) { return c.hidden / c.heads; }
int64_t QkvWidth(const GenaiModelConfig& c) { return (c.heads + 2 * c.kv_heads) * HeadSize(c); }

// Builds nodes, constants and initializer plans in the builder's order and names.
class GenaiGraph {
 public:
  GenaiGraph(const GenaiModelConfig& c, onnx::GraphProto* g) : c_(c), g_(g) {}

  std::vector<TensorPlan> Build() {
    Io();
    MaskSubgraph();
    const std::string emb = Weight("model.embed_tokens.weight", {c_.vocab, c_.hidden},
                                   {WeightInit::kMatrix, 1});
    std::string root = Node("Gather", "/model/embed_tokens/Gather", {emb, "input_ids"});
    std::string skip;  // the previous layer's MLP output
    Rotary();
    for (int64_t i = 0; i < c_.layers; ++i) {
      const std::string p = "/model/layers." + std::to_string(i);
      const std::string w = "model.layers." + std::to_string(i);
      std::string n;
      if (i == 0) {
        onnx::NodeProto* ln = nullptr;
        n = Node("SimplifiedLayerNormalization", p + "/input_layernorm/LayerNorm",
                 {root, NormWeight(w + ".input_layernorm.weight")}, "", &ln,
                 {p + "/input_layernorm/output_0"});
        AttrF(ln, "epsilon", c_.epsilon);
        AttrI(ln, "axis", -1);
        AttrI(ln, "stash_type", 1);
      } else {
        std::tie(n, root) = SkipNorm(p + "/input_layernorm", root, skip, w + ".input_layernorm.weight");
      }
      const std::string qkv = NBits(p + "/attn/qkv_proj/MatMul", w + ".attn.qkv_proj.MatMul.weight",
                                    n, c_.hidden, QkvWidth(c_));
      const std::string a = Attention(i, p, qkv);
      const std::string o = NBits(p + "/attn/o_proj/MatMul", w + ".attn.o_proj.MatMul.weight", a,
                                  c_.heads * HeadSize(c_), c_.hidden);
      std::string m;
      std::tie(m, root) = SkipNorm(p + "/post_attention_layernorm", root, o,
                                   w + ".post_attention_layernorm.weight");
      const std::string gate = NBits(p + "/mlp/gate_proj/MatMul", w + ".mlp.gate_proj.MatMul.weight",
                                     m, c_.hidden, c_.ffn);
      const std::string up = NBits(p + "/mlp/up_proj/MatMul", w + ".mlp.up_proj.MatMul.weight", m,
                                   c_.hidden, c_.ffn);
      const std::string sig = Node("Sigmoid", p + "/mlp/act_fn/Sigmoid", {gate});
      const std::string act = Node("Mul", p + "/mlp/act_fn/Mul", {gate, sig});
      const std::string prod = Node("Mul", p + "/mlp/Mul", {act, up});
      skip = NBits(p + "/mlp/down_proj/MatMul", w + ".mlp.down_proj.MatMul.weight", prod, c_.ffn,
                   c_.hidden);
    }
    const std::string L = std::to_string(c_.layers);
    onnx::NodeProto* fn = nullptr;
    const std::string f = Node("SkipSimplifiedLayerNormalization",
                               "/model/layers." + L + "/final_norm_layernorm/SkipLayerNorm",
                               {root, skip, NormWeight("model.layers." + L + ".final_norm_layernorm.weight")},
                               "com.microsoft", &fn, {"/model/layers." + L + "/final_norm_layernorm/output_0"});
    AttrF(fn, "epsilon", c_.epsilon);
    const std::string lm = Weight("lm_head.MatMul.weight", {c_.hidden, c_.vocab},
                                  {WeightInit::kMatrix, c_.hidden});
    Node("MatMul", "/lm_head/MatMul", {f, lm}, "", nullptr, {"logits"});
    return std::move(plans_);
  }

 private:
  static void AttrI(onnx::NodeProto* n, const char* name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void AttrF(onnx::NodeProto* n, const char* name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }

  // A node named `name` whose outputs are `outputs` (default: name + "/output_0"); returns
  // output 0.
  std::string Node(const std::string& op, const std::string& name,
                   const std::vector<std::string>& inputs, const std::string& domain = "",
                   onnx::NodeProto** node = nullptr, std::vector<std::string> outputs = {}) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    if (outputs.empty()) outputs.push_back(name + "/output_0");
    for (const auto& o : outputs) n->add_output(o);
    if (node) *node = n;
    return outputs[0];
  }

  // The builder's /model/constants/INT64/<v> values: a Constant node per value, made once.
  std::string ConstI64(const std::string& text, const std::vector<int64_t>& v, bool scalar) {
    std::string out = "/model/constants/INT64/" + text;
    for (const auto& made : constants_)
      if (made == out) return out;
    constants_.push_back(out);
    onnx::NodeProto* n = nullptr;
    Node("Constant", "/model/constant_nodes/INT64/" + text, {}, "", &n, {out});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto* t = a->mutable_t();
    t->set_name(out);
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
    return out;
  }

  void Value(onnx::ValueInfoProto* v, const std::string& name, int elem,
             const std::vector<std::string>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    for (const auto& d : dims) {
      auto* dim = tt->mutable_shape()->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
      else dim->set_dim_param(d);
    }
  }

  void Io() {
    const std::string kv = std::to_string(c_.kv_heads), D = std::to_string(HeadSize(c_));
    Value(g_->add_input(), "input_ids", onnx::TensorProto::INT64, {"batch_size", "sequence_length"});
    Value(g_->add_input(), "attention_mask", onnx::TensorProto::INT64,
          {"batch_size", "total_sequence_length"});
    for (int64_t i = 0; i < c_.layers; ++i)
      for (const char* kind : {"key", "value"})
        Value(g_->add_input(), "past_key_values." + std::to_string(i) + "." + kind,
              onnx::TensorProto::FLOAT, {"batch_size", kv, "past_sequence_length", D});
    Value(g_->add_output(), "logits", onnx::TensorProto::FLOAT,
          {"batch_size", "sequence_length", std::to_string(c_.vocab)});
    for (int64_t i = 0; i < c_.layers; ++i)
      for (const char* kind : {"key", "value"})
        Value(g_->add_output(), "present." + std::to_string(i) + "." + kind,
              onnx::TensorProto::FLOAT, {"batch_size", kv, "total_sequence_length", D});
  }

  void MaskSubgraph() {
    const std::string b = "/model/attn_mask_reformat/attn_mask_subgraph";
    const std::string one = ConstI64("[1]", {1}, false);
    onnx::NodeProto* n = nullptr;
    const std::string sum = Node("ReduceSum", b + "/ReduceSum", {"attention_mask", one}, "", &n);
    AttrI(n, "keepdims", 0);
    const std::string sub = Node("Sub", b + "/Sub", {sum, one});
    Node("Cast", b + "/Sub/Cast", {sub}, "", &n);
    AttrI(n, "to", onnx::TensorProto::INT32);
    seqlens_k_ = b + "/Sub/Cast/output_0";
    const std::string shape = Node("Shape", b + "/Shape", {"attention_mask"});
    const std::string at = Node("Gather", b + "/Gather", {shape, ConstI64("1", {1}, true)}, "", &n);
    AttrI(n, "axis", 0);
    Node("Cast", b + "/Gather/Cast", {at}, "", &n);
    AttrI(n, "to", onnx::TensorProto::INT32);
    total_len_ = b + "/Gather/Cast/output_0";
  }

  void Rotary() {
    for (const auto kind : {TensorPlan::kCos, TensorPlan::kSin}) {
      TensorPlan t;
      t.kind = kind;
      t.name = kind == TensorPlan::kCos ? "cos_cache" : "sin_cache";
      t.dims = {c_.max_length, HeadSize(c_) / 2};
      plans_.push_back(t);
    }
  }

  std::string Weight(const std::string& name, std::vector<int64_t> dims, WeightInit init) {
    TensorPlan t;
    t.name = name;
    t.dims = std::move(dims);
    t.init = init;
    t.stream = stream_++;
    plans_.push_back(t);
    return name;
  }
  std::string NormWeight(const std::string& name) {
    return Weight(name, {c_.hidden}, {WeightInit::kScale, 1});
  }

  // (output 0, output 3) of a SkipSimplifiedLayerNormalization named <base>/SkipLayerNorm.
  std::pair<std::string, std::string> SkipNorm(const std::string& base, const std::string& root,
                                               const std::string& skip, const std::string& weight) {
    onnx::NodeProto* n = nullptr;
    Node("SkipSimplifiedLayerNormalization", base + "/SkipLayerNorm",
         {root, skip, NormWeight(weight)}, "com.microsoft", &n,
         {base + "/output_0", "", "", base + "/output_3"});
    AttrF(n, "epsilon", c_.epsilon);
    return {base + "/output_0", base + "/output_3"};
  }

  // MatMulNBits <basename>_Q4 over the planes of a fresh [in, out] matrix; output
  // <basename>/output_0 (the MatMul's output name, which the quantizer keeps).
  std::string NBits(const std::string& basename, const std::string& weight, const std::string& x,
                    int64_t in, int64_t out) {
    const int64_t bs = c_.nbits_block, kb = (in + bs - 1) / bs;
    const uint64_t s = stream_++;
    auto plane = [&](TensorPlan::Kind k, const std::string& suffix, std::vector<int64_t> dims) {
      TensorPlan t;
      t.kind = k;
      t.name = weight + suffix;
      t.dims = std::move(dims);
      t.init = {WeightInit::kMatrix, in};
      t.stream = s;
      t.in = in;
      t.out = out;
      plans_.push_back(t);
      return t.name;
    };
    std::vector<std::string> ins = {x, plane(TensorPlan::kCodes, "_Q4", {out, kb, bs / 2}),
                                    plane(TensorPlan::kScales, "_scales", {out * kb})};
    if (c_.zero_points) ins.push_back(plane(TensorPlan::kZeroPoints, "_zero_points", {out * ((kb + 1) / 2)}));
    onnx::NodeProto* n = nullptr;
    Node("MatMulNBits", basename + "_Q4", ins, "com.microsoft", &n, {basename + "/output_0"});
    AttrI(n, "K", in);
    AttrI(n, "N", out);
    AttrI(n, "bits", 4);
    AttrI(n, "block_size", bs);
    AttrI(n, "accuracy_level", c_.accuracy_level);
    return basename + "/output_0";
  }

  std::string Attention(int64_t i, const std::string& p, const std::string& qkv) {
    const std::string l = std::to_string(i);
    onnx::NodeProto* n = nullptr;
    std::string out = Node(
        "GroupQueryAttention", p + "/attn/GroupQueryAttention",
        {qkv, "", "", "past_key_values." + l + ".key", "past_key_values." + l + ".value", seqlens_k_,
         total_len_, "cos_cache", "sin_cache", "", "", ""},
        "com.microsoft", &n,
        {p + "/attn/GroupQueryAttention/output_0", "present." + l + ".key", "present." + l + ".value"});
    AttrI(n, "num_heads", c_.heads);
    AttrI(n, "kv_num_heads", c_.kv_heads);
    AttrF(n, "scale", 1.0f / std::sqrt(static_cast<float>(HeadSize(c_))));
    AttrI(n, "local_window_size", -1);
    AttrF(n, "softcap", 0.0f);
    AttrI(n, "do_rotary", 1);
    AttrI(n, "rotary_interleaved", 0);
    return out;
  }

  const GenaiModelConfig& c_;
  onnx::GraphProto* g_;
  std::vector<TensorPlan> plans_;
  std::vector<std::string> constants_;
  std::string seqlens_k_, total_len_;
  uint64_t stream_ = 0;
};

// Produces each initializer's bytes in chunks; the planes of one MatMulNBits weight come one
// after another, so its quantization is kept until the next matrix.
class PlanBytes {
 public:
  explicit PlanBytes(const GenaiModelConfig& c) : c_(c) {}

  // Calls sink(bytes, n) over the tensor's bytes in order.
  template <typename Sink>
  Status Emit(const TensorPlan& t, Sink&& sink) {
    switch (t.kind) {
      case TensorPlan::kF32: {
        std::vector<float> buf(kChunk);
        for (int64_t first = 0; first < t.numel(); first += static_cast<int64_t>(kChunk)) {
          const size_t m = static_cast<size_t>(std::min<int64_t>(t.numel() - first, kChunk));
          synth::FillWeights(t.init, c_.seed, t.stream, first, buf.data(), m);
          VT_RETURN_IF_ERROR(sink(buf.data(), m * sizeof(float)));
        }
        return Status::Ok();
      }
      case TensorPlan::kCos:
      case TensorPlan::kSin: {
        const int64_t half = t.dims[1];
        std::vector<float> v(static_cast<size_t>(t.numel()));
        for (int64_t p = 0; p < t.dims[0]; ++p)
          for (int64_t j = 0; j < half; ++j) {
            const double inv_freq = std::pow(static_cast<double>(c_.rope_theta),
                                             -static_cast<double>(2 * j) / static_cast<double>(2 * half));
            const double angle = static_cast<double>(static_cast<float>(p) * static_cast<float>(inv_freq));
            v[static_cast<size_t>(p * half + j)] =
                static_cast<float>(t.kind == TensorPlan::kCos ? std::cos(angle) : std::sin(angle));
          }
        return sink(v.data(), v.size() * sizeof(float));
      }
      default: break;
    }
    if (stream_ != t.stream || !have_) {
      std::vector<float> m(static_cast<size_t>(t.in * t.out));
      synth::FillWeights(t.init, c_.seed, t.stream, 0, m.data(), m.size());
      planes_ = synth::QuantizeNBits4(m.data(), t.in, t.out, c_.nbits_block, c_.zero_points);
      stream_ = t.stream;
      have_ = true;
    }
    if (t.kind == TensorPlan::kCodes) return sink(planes_.codes.data(), planes_.codes.size());
    if (t.kind == TensorPlan::kScales)
      return sink(planes_.scales.data(), planes_.scales.size() * sizeof(float));
    return sink(planes_.zero_points.data(), planes_.zero_points.size());
  }

 private:
  const GenaiModelConfig& c_;
  synth::NBitsPlanes planes_;
  uint64_t stream_ = 0;
  bool have_ = false;
};

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void SetMetadata(const GenaiModelConfig& c, onnx::ModelProto* mp) {
  auto kv = [&](const std::string& k, const std::string& v) {
    auto* p = mp->add_metadata_props();
    p->set_key("vtensor.synthetic." + k);
    p->set_value(v);
  };
  kv("form", "onnxruntime-genai");
  for (const auto& [k, v] :
       {std::pair<const char*, int64_t>{"hidden", c.hidden}, {"heads", c.heads}, {"kv_heads", c.kv_heads},
        {"ffn", c.ffn}, {"layers", c.layers}, {"vocab", c.vocab}, {"max_length", c.max_length}})
    kv(k, std::to_string(v));
  kv("seed", std::to_string(c.seed));
}

// genai_config.json as the builder writes it for a decoder with GroupQueryAttention on the CPU
// (fields the runtime reads: names, head counts, context length, search options).
std::string GenaiConfigJson(const GenaiModelConfig& c, const std::string& model_file) {
  using nlohmann::json;
  json d;
  d["session_options"] = {{"log_id", "onnxruntime-genai"}, {"provider_options", json::array()}};
  d["filename"] = model_file;
  d["head_size"] = HeadSize(c);
  d["hidden_size"] = c.hidden;
  d["inputs"] = {{"input_ids", "input_ids"},
                 {"attention_mask", "attention_mask"},
                 {"past_key_names", "past_key_values.%d.key"},
                 {"past_value_names", "past_key_values.%d.value"}};
  d["outputs"] = {{"logits", "logits"},
                  {"present_key_names", "present.%d.key"},
                  {"present_value_names", "present.%d.value"}};
  d["num_attention_heads"] = c.heads;
  d["num_hidden_layers"] = c.layers;
  d["num_key_value_heads"] = c.kv_heads;
  json j;
  j["model"] = {{"bos_token_id", 1}, {"context_length", c.max_length}, {"decoder", d},
                {"eos_token_id", 2}, {"pad_token_id", 0}, {"type", "llama"}, {"vocab_size", c.vocab}};
  j["search"] = {{"do_sample", false}, {"max_length", c.max_length}, {"min_length", 0},
                 {"num_beams", 1}, {"num_return_sequences", 1},
                 {"past_present_share_buffer", true}, {"repetition_penalty", 1.0},
                 {"temperature", 1.0}, {"top_k", 1}, {"top_p", 1.0}};
  return j.dump(4) + "\n";
}

bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

GenaiModelConfig Genai1BPreset() { return GenaiModelConfig{}; }

Status ValidateGenaiConfig(const GenaiModelConfig& c) {
  const std::pair<const char*, int64_t> dims[] = {
      {"--hidden", c.hidden}, {"--heads", c.heads}, {"--kv-heads", c.kv_heads}, {"--ffn", c.ffn},
      {"--layers", c.layers}, {"--vocab", c.vocab}, {"--max-length", c.max_length}};
  for (const auto& [flag, v] : dims)
    if (v < 1) return InvalidArgument(std::string(flag) + " must be >= 1, got " + std::to_string(v));
  if (c.hidden % c.heads != 0)
    return InvalidArgument("--hidden " + std::to_string(c.hidden) + " is not a multiple of --heads " +
                           std::to_string(c.heads));
  if (c.heads % c.kv_heads != 0)
    return InvalidArgument("--heads " + std::to_string(c.heads) + " is not a multiple of --kv-heads " +
                           std::to_string(c.kv_heads));
  if (HeadSize(c) % 2 != 0)
    return InvalidArgument("head size --hidden / --heads = " + std::to_string(HeadSize(c)) +
                           " must be even (rotary embedding rotates pairs)");
  if (c.nbits_block < 16 || c.nbits_block > 256 || (c.nbits_block & (c.nbits_block - 1)) != 0)
    return InvalidArgument("--nbits-block must be 16, 32, 64, 128 or 256, got " +
                           std::to_string(c.nbits_block));
  if (c.accuracy_level < 0 || c.accuracy_level > 4)
    return InvalidArgument("--nbits-accuracy-level must be in 0..4, got " +
                           std::to_string(c.accuracy_level));
  if (!(c.epsilon > 0.0f) || !std::isfinite(c.epsilon))
    return InvalidArgument("--epsilon must be a positive finite number");
  if (!(c.rope_theta > 1.0f) || !std::isfinite(c.rope_theta))
    return InvalidArgument("--rope-theta must be a finite number > 1");
  int64_t a, b, e;
  if (MulOverflows(c.vocab, c.hidden, &e) || MulOverflows(e, 8, &e) ||
      MulOverflows(std::max(c.ffn, QkvWidth(c)), c.hidden, &a) || MulOverflows(a, 16, &a) ||
      MulOverflows(a, c.layers, &b) || MulOverflows(c.max_length, c.hidden, &a))
    return InvalidArgument("--hidden/--ffn/--vocab/--layers/--max-length: byte count overflows 64 bits");
  return Status::Ok();
}

Expected<GeneratedGenaiModel> WriteGenaiModel(const GenaiModelConfig& c, const std::string& out_path,
                                              GenaiStorage storage, bool write_genai_config) {
  VT_RETURN_IF_ERROR(ValidateGenaiConfig(c));
  if (out_path.empty()) return InvalidArgument("-o: no output path");
  onnx::ModelProto mp;
  mp.set_ir_version(10);
  mp.set_producer_name("vtensor-gen-transformer");
  mp.set_producer_version("1");
  mp.set_doc_string("Synthetic decoder in onnxruntime-genai form (random weights), src/tools/genai_model.h");
  mp.add_opset_import()->set_version(21);
  auto* ms = mp.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  SetMetadata(c, &mp);
  onnx::GraphProto* g = mp.mutable_graph();
  g->set_name("main_graph");
  const std::vector<TensorPlan> plans = GenaiGraph(c, g).Build();

  GeneratedGenaiModel r;
  r.model_path = out_path;
  r.num_weights = static_cast<int64_t>(plans.size());
  for (const TensorPlan& t : plans) r.weight_bytes += t.bytes();
  const bool external = storage == GenaiStorage::kExternal ||
                        (storage == GenaiStorage::kAuto && r.weight_bytes > kAutoExternal);
  if (!external && r.weight_bytes > kMaxInline)
    return InvalidArgument("--inline: " + std::to_string(r.weight_bytes) +
                           " bytes of weights exceed the 2 GiB protobuf limit; use --external");

  PlanBytes bytes(c);
  std::unique_ptr<AtomicStreamFile> data;
  if (external) {
    r.data_path = out_path + ".data";
    VT_ASSIGN_OR_RETURN(data, AtomicStreamFile::Create(r.data_path));
  }
  for (const TensorPlan& t : plans) {
    onnx::TensorProto* tp = g->add_initializer();
    tp->set_name(t.name);
    tp->set_data_type(t.is_u8() ? onnx::TensorProto::UINT8 : onnx::TensorProto::FLOAT);
    for (int64_t d : t.dims) tp->add_dims(d);
    if (!external) {
      std::string* raw = tp->mutable_raw_data();
      VT_RETURN_IF_ERROR(bytes.Emit(t, [&](const void* p, size_t n) {
        raw->append(static_cast<const char*>(p), n);
        return Status::Ok();
      }));
      continue;
    }
    const uint64_t offset = (data->size() + kAlignment - 1) / kAlignment * kAlignment;
    VT_RETURN_IF_ERROR(data->PadTo(offset));
    VT_RETURN_IF_ERROR(bytes.Emit(t, [&](const void* p, size_t n) { return data->Write(p, n); }));
    tp->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : {std::pair<const char*, std::string>{"location", BaseName(r.data_path)},
                               {"offset", std::to_string(offset)},
                               {"length", std::to_string(t.bytes())}}) {
      auto* e = tp->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  }
  if (data) VT_RETURN_IF_ERROR(data->Finish());

  std::string proto;
  if (!mp.SerializeToString(&proto)) return Internal(out_path + ": cannot serialize the ModelProto");
  mp.Clear();
  VT_ASSIGN_OR_RETURN(auto model, AtomicStreamFile::Create(out_path));
  VT_RETURN_IF_ERROR(model->Write(proto.data(), proto.size()));
  VT_RETURN_IF_ERROR(model->Finish());
  // Both files are complete and durable; the data goes first so the model never points at
  // missing bytes.
  if (data) VT_RETURN_IF_ERROR(data->Commit());
  VT_RETURN_IF_ERROR(model->Commit());
  if (write_genai_config) {
    r.config_path = JoinPath(DirName(out_path), "genai_config.json");
    VT_RETURN_IF_ERROR(WriteFileAtomic(r.config_path, GenaiConfigJson(c, BaseName(out_path))));
  }
  return r;
}

}  // namespace vt
