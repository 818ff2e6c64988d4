#include "tools/synthetic_transformer.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "tools/atomic_stream_file.h"
#include "tools/synthetic_weights.h"

namespace vt {

static_assert(std::endian::native == std::endian::little,
              "weights are written as the host's f32 bytes, which ONNX defines as little-endian");

namespace {

constexpr int64_t kMaxInlineBytes = (int64_t{2} << 30) - (int64_t{64} << 20);  // protobuf limit, with room
constexpr size_t kChunkElems = size_t{1} << 18;                                 // 1 MiB of f32

using synth::FillWeights;
using synth::NBitsPlanes;
using synth::WeightInit;

// A MatMulNBits plane of matrix `stream` (NBitsPlane::kNone: the f32 tensor itself).
enum class NBitsPlane { kNone, kCodes, kScales, kZeroPoints };

struct WeightSpec {
  std::string name;
  std::vector<int64_t> dims;
  WeightInit init;
  uint64_t stream = 0;  // PRNG stream of the values (the f32 tensor's index in graph order)
  NBitsPlane plane = NBitsPlane::kNone;
  std::vector<int64_t> matrix;  // kCodes..: the source matrix [in, out]
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

NBitsPlanes QuantizeNBits(const WeightSpec& w, const TransformerConfig& c) {
  std::vector<float> m(static_cast<size_t>(w.matrix[0] * w.matrix[1]));
  FillWeights(w.init, c.seed, w.stream, 0, m.data(), m.size());
  return synth::QuantizeNBits4(m.data(), w.matrix[0], w.matrix[1], c.nbits_block, c.nbits_zero_points);
}

// Bytes of a MatMulNBits plane (quantizing its matrix; the last matrix is remembered, since
// its planes are written one after another).
const std::vector<uint8_t>& NBitsPlaneBytes(const WeightSpec& w, const TransformerConfig& c) {
  static thread_local std::string key;
  static thread_local NBitsPlanes planes;
  static thread_local std::vector<uint8_t> bytes;
  const std::string k = std::to_string(c.seed) + "/" + std::to_string(w.stream) + "/" +
                        std::to_string(c.nbits_block) + "/" + std::to_string(c.nbits_zero_points);
  if (k != key) {
    planes = QuantizeNBits(w, c);
    key = k;
  }
  switch (w.plane) {
    case NBitsPlane::kCodes: bytes = planes.codes; break;
    case NBitsPlane::kScales:
      bytes.resize(planes.scales.size() * sizeof(float));
      std::memcpy(bytes.data(), planes.scales.data(), bytes.size());
      break;
    default: bytes = planes.zero_points; break;
  }
  return bytes;
}

int64_t SpecBytes(const WeightSpec& w) {
  return w.plane == NBitsPlane::kCodes || w.plane == NBitsPlane::kZeroPoints ? w.numel()
                                                                             : w.numel() * 4;
}

// Every weight in graph order; f32 tensor t draws from stream t.
std::vector<WeightSpec> PlanWeights(const TransformerConfig& c) {
  const int64_t H = c.hidden, F = c.ffn;
  const bool bias = c.norm == NormKind::kLayer;
  std::vector<WeightSpec> w;
  uint64_t stream = 0;
  auto norm = [&](int64_t l, WeightRole scale, WeightRole b) {
    w.push_back({TransformerWeightName(l, scale), {H}, {WeightInit::kScale}, stream++, NBitsPlane::kNone, {}});
    if (bias) w.push_back({TransformerWeightName(l, b), {H}, {WeightInit::kBias}, stream++, NBitsPlane::kNone, {}});
  };
  auto mat = [&](int64_t l, WeightRole r, int64_t in, int64_t out) {
    const WeightInit init{WeightInit::kMatrix, in};
    const std::string name = TransformerWeightName(l, r);
    const uint64_t s = stream++;
    if (c.nbits_block <= 0) {
      w.push_back({name, {in, out}, init, s, NBitsPlane::kNone, {}});
      return;
    }
    const int64_t bs = c.nbits_block, kb = (in + bs - 1) / bs;
    w.push_back({name + ".q", {out, kb, bs / 2}, init, s, NBitsPlane::kCodes, {in, out}});
    w.push_back({name + ".scales", {out, kb}, init, s, NBitsPlane::kScales, {in, out}});
    if (c.nbits_zero_points)
      w.push_back({name + ".zp", {out, (kb + 1) / 2}, init, s, NBitsPlane::kZeroPoints, {in, out}});
  };
  for (int64_t l = 0; l < c.layers; ++l) {
    norm(l, WeightRole::kAttnNorm, WeightRole::kAttnNormBias);
    mat(l, WeightRole::kWq, H, H);
    mat(l, WeightRole::kWk, H, H);
    mat(l, WeightRole::kWv, H, H);
    mat(l, WeightRole::kWo, H, H);
    norm(l, WeightRole::kFfnNorm, WeightRole::kFfnNormBias);
    mat(l, WeightRole::kWgate, H, F);
    mat(l, WeightRole::kWup, H, F);
    mat(l, WeightRole::kWdown, F, H);
  }
  norm(-1, WeightRole::kFinalNorm, WeightRole::kFinalNormBias);
  return w;
}

// Builds the GraphProto's nodes with generated value names.
class GraphWriter {
 public:
  explicit GraphWriter(onnx::GraphProto* g) : g_(g) {}

  std::string Node(const std::string& op, const std::vector<std::string>& inputs, const std::string& out_hint,
                   onnx::NodeProto** node_out = nullptr) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(out_hint);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(out_hint);
    if (node_out) *node_out = n;
    return out_hint;
  }
  static void AttrInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void AttrFloat(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void AttrInts(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  void ScalarF32(const std::string& name, float v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
  }
  void I64(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  }

 private:
  onnx::GraphProto* g_;
};

void SetIo(onnx::ValueInfoProto* v, const std::string& name, const TransformerConfig& c) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* s = tt->mutable_shape();
  s->add_dim()->set_dim_value(c.batch);
  if (c.dynamic_seq) s->add_dim()->set_dim_param("seq");
  else s->add_dim()->set_dim_value(c.seq);
  s->add_dim()->set_dim_value(c.hidden);
}

// The nodes of the whole model (see the header for the math).
void BuildNodes(const TransformerConfig& c, onnx::GraphProto* g) {
  GraphWriter w(g);
  const int64_t D = c.hidden / c.heads;
  w.ScalarF32("const.attn_scale", 1.0f / std::sqrt(static_cast<float>(D)));
  w.I64("const.heads_shape", {0, -1, c.heads, D});
  w.I64("const.hidden_shape", {0, -1, c.hidden});
  if (c.norm == NormKind::kRms) w.ScalarF32("const.norm_eps", c.epsilon);

  auto norm = [&](const std::string& x, const std::string& p, int64_t l, WeightRole scale, WeightRole bias) {
    if (c.norm == NormKind::kLayer) {
      onnx::NodeProto* n;
      std::string y = w.Node("LayerNormalization",
                                   {x, TransformerWeightName(l, scale), TransformerWeightName(l, bias)}, p, &n);
      GraphWriter::AttrInt(n, "axis", -1);
      GraphWriter::AttrFloat(n, "epsilon", c.epsilon);
      return y;
    }
    const std::string sq = w.Node("Mul", {x, x}, p + ".sq");
    onnx::NodeProto* rm;
    const std::string ms = w.Node("ReduceMean", {sq}, p + ".mean_sq", &rm);
    GraphWriter::AttrInts(rm, "axes", {-1});
    GraphWriter::AttrInt(rm, "keepdims", 1);
    const std::string rms = w.Node("Sqrt", {w.Node("Add", {ms, "const.norm_eps"}, p + ".mean_sq_eps")}, p + ".rms");
    return w.Node("Mul", {w.Node("Div", {x, rms}, p + ".normalized"), TransformerWeightName(l, scale)}, p);
  };
  auto perm = [&](const std::string& x, const std::string& out, const std::vector<int64_t>& pm) {
    onnx::NodeProto* n;
    w.Node("Transpose", {x}, out, &n);
    GraphWriter::AttrInts(n, "perm", pm);
    return out;
  };

  // x @ W: MatMul, or MatMulNBits over W's planes.
  auto project = [&](const std::string& x, int64_t l, WeightRole r, int64_t in, int64_t out,
                     const std::string& name) {
    const std::string wn = TransformerWeightName(l, r);
    if (c.nbits_block <= 0) return w.Node("MatMul", {x, wn}, name);
    std::vector<std::string> ins = {x, wn + ".q", wn + ".scales"};
    if (c.nbits_zero_points) ins.push_back(wn + ".zp");
    onnx::NodeProto* n;
    w.Node("MatMulNBits", ins, name, &n);
    n->set_domain("com.microsoft");
    GraphWriter::AttrInt(n, "K", in);
    GraphWriter::AttrInt(n, "N", out);
    GraphWriter::AttrInt(n, "bits", 4);
    GraphWriter::AttrInt(n, "block_size", c.nbits_block);
    if (c.nbits_accuracy_level != 0) GraphWriter::AttrInt(n, "accuracy_level", c.nbits_accuracy_level);
    return name;
  };
  const int64_t H = c.hidden, F = c.ffn;
  std::string h = "x";
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l);
    const std::string n1 = norm(h, p + ".attn_norm.out", l, WeightRole::kAttnNorm, WeightRole::kAttnNormBias);
    const std::string q = project(n1, l, WeightRole::kWq, H, H, p + ".attn.q");
    const std::string k = project(n1, l, WeightRole::kWk, H, H, p + ".attn.k");
    const std::string v = project(n1, l, WeightRole::kWv, H, H, p + ".attn.v");
    const std::string q4 = perm(w.Node("Reshape", {q, "const.heads_shape"}, p + ".attn.q_heads"), p + ".attn.q_t",
                                {0, 2, 1, 3});
    const std::string kt = perm(w.Node("Reshape", {k, "const.heads_shape"}, p + ".attn.k_heads"), p + ".attn.k_t",
                                {0, 2, 3, 1});
    const std::string v4 = perm(w.Node("Reshape", {v, "const.heads_shape"}, p + ".attn.v_heads"), p + ".attn.v_t",
                                {0, 2, 1, 3});
    const std::string scores = w.Node("Mul", {w.Node("MatMul", {q4, kt}, p + ".attn.qk"), "const.attn_scale"},
                                      p + ".attn.scores");
    onnx::NodeProto* sm;
    const std::string probs = w.Node("Softmax", {scores}, p + ".attn.probs", &sm);
    GraphWriter::AttrInt(sm, "axis", -1);
    const std::string ctx = perm(w.Node("MatMul", {probs, v4}, p + ".attn.ctx_heads"), p + ".attn.ctx_t", {0, 2, 1, 3});
    const std::string merged = w.Node("Reshape", {ctx, "const.hidden_shape"}, p + ".attn.ctx");
    const std::string o = project(merged, l, WeightRole::kWo, H, H, p + ".attn.out");
    const std::string attn_residual = p + ".attn.residual";
    h = w.Node("Add", {h, o}, attn_residual);

    const std::string n2 = norm(h, p + ".ffn_norm.out", l, WeightRole::kFfnNorm, WeightRole::kFfnNormBias);
    const std::string gt = project(n2, l, WeightRole::kWgate, H, F, p + ".ffn.gate");
    const std::string up = project(n2, l, WeightRole::kWup, H, F, p + ".ffn.up");
    const std::string silu = w.Node("Mul", {gt, w.Node("Sigmoid", {gt}, p + ".ffn.gate_sigmoid")}, p + ".ffn.silu");
    const std::string act = w.Node("Mul", {silu, up}, p + ".ffn.act");
    const std::string down = project(act, l, WeightRole::kWdown, F, H, p + ".ffn.down");
    const std::string ffn_residual = p + ".ffn.residual";
    h = w.Node("Add", {h, down}, ffn_residual);
  }
  norm(h, "y", -1, WeightRole::kFinalNorm, WeightRole::kFinalNormBias);
}

void SetMetadata(const TransformerConfig& c, onnx::ModelProto* mp) {
  auto kv = [&](const std::string& k, const std::string& v) {
    auto* p = mp->add_metadata_props();
    p->set_key("vtensor.synthetic." + k);
    p->set_value(v);
  };
  kv("hidden", std::to_string(c.hidden));
  kv("ffn", std::to_string(c.ffn));
  kv("heads", std::to_string(c.heads));
  kv("layers", std::to_string(c.layers));
  kv("norm", c.norm == NormKind::kRms ? "rms" : "layer");
  kv("seed", std::to_string(c.seed));
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Streams every weight into `data`, each at an aligned offset; fills the external_data keys.
Status WriteExternalWeights(const TransformerConfig& c, const std::vector<WeightSpec>& specs,
                            const std::string& location, AtomicStreamFile& data, onnx::GraphProto* g,
                            int first_init) {
  std::vector<float> buf(kChunkElems);
  for (size_t t = 0; t < specs.size(); ++t) {
    const uint64_t offset = (data.size() + kExternalAlignment - 1) / kExternalAlignment * kExternalAlignment;
    VT_RETURN_IF_ERROR(data.PadTo(offset));
    const int64_t n = specs[t].numel();
    if (specs[t].plane != NBitsPlane::kNone) {
      const std::vector<uint8_t>& b = NBitsPlaneBytes(specs[t], c);
      VT_RETURN_IF_ERROR(data.Write(b.data(), b.size()));
    }
    for (int64_t first = 0; specs[t].plane == NBitsPlane::kNone && first < n;
         first += static_cast<int64_t>(kChunkElems)) {
      const size_t m = static_cast<size_t>(std::min<int64_t>(n - first, static_cast<int64_t>(kChunkElems)));
      FillWeights(specs[t].init, c.seed, specs[t].stream, first, buf.data(), m);
      VT_RETURN_IF_ERROR(data.Write(buf.data(), m * sizeof(float)));
    }
    onnx::TensorProto* tp = g->mutable_initializer(first_init + static_cast<int>(t));
    tp->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* k, const std::string& v) {
      auto* e = tp->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(offset));
    add("length", std::to_string(SpecBytes(specs[t])));
  }
  return Status::Ok();
}

bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

std::string TransformerWeightName(int64_t layer, WeightRole role) {
  const std::string p = "layers." + std::to_string(layer) + ".";
  switch (role) {
    case WeightRole::kAttnNorm: return p + "attn_norm.scale";
    case WeightRole::kAttnNormBias: return p + "attn_norm.bias";
    case WeightRole::kWq: return p + "attn.wq";
    case WeightRole::kWk: return p + "attn.wk";
    case WeightRole::kWv: return p + "attn.wv";
    case WeightRole::kWo: return p + "attn.wo";
    case WeightRole::kFfnNorm: return p + "ffn_norm.scale";
    case WeightRole::kFfnNormBias: return p + "ffn_norm.bias";
    case WeightRole::kWgate: return p + "ffn.w_gate";
    case WeightRole::kWup: return p + "ffn.w_up";
    case WeightRole::kWdown: return p + "ffn.w_down";
    case WeightRole::kFinalNorm: return "final_norm.scale";
    case WeightRole::kFinalNormBias: return "final_norm.bias";
  }
  return "";
}

Status ValidateTransformerConfig(const TransformerConfig& c) {
  struct {
    const char* flag;
    int64_t v;
  } const dims[] = {{"--hidden", c.hidden}, {"--ffn", c.ffn}, {"--heads", c.heads},
                    {"--layers", c.layers}, {"--seq", c.seq}, {"--batch", c.batch}};
  for (const auto& d : dims)
    if (d.v < 1) return InvalidArgument(std::string(d.flag) + " must be >= 1, got " + std::to_string(d.v));
  if (c.hidden % c.heads != 0)
    return InvalidArgument("--hidden " + std::to_string(c.hidden) + " is not a multiple of --heads " +
                           std::to_string(c.heads));
  if (c.opset < 13 || c.opset > 17)
    return InvalidArgument("--opset must be in 13..17 (Softmax on the last axis needs 13), got " +
                           std::to_string(c.opset));
  if (c.norm == NormKind::kLayer && c.opset < 17)
    return InvalidArgument("--norm layer needs --opset 17 (LayerNormalization), got " + std::to_string(c.opset));
  if (c.nbits_block != 0 &&
      (c.nbits_block < 16 || c.nbits_block > 256 || (c.nbits_block & (c.nbits_block - 1)) != 0))
    return InvalidArgument("--nbits-block must be 16, 32, 64, 128 or 256 (the block sizes ONNX "
                           "Runtime accepts), got " + std::to_string(c.nbits_block));
  if (c.nbits_accuracy_level < 0 || c.nbits_accuracy_level > 4)
    return InvalidArgument("--nbits-accuracy-level must be in 0..4, got " +
                           std::to_string(c.nbits_accuracy_level));
  if ((c.nbits_zero_points || c.nbits_accuracy_level != 0) && c.nbits_block == 0)
    return InvalidArgument("--nbits-zero-points and --nbits-accuracy-level need --nbits-block");
  if (!(c.epsilon > 0.0f) || !std::isfinite(c.epsilon))
    return InvalidArgument("--epsilon must be a positive finite number");
  // Byte counts: 4 * L * (4H^2 + 3HF + 4H) <= 4 * L * 8 * max(H^2, HF) must fit, and so must
  // the largest activation, max(B*S*max(H, F), B*A*S*S) elements.
  int64_t hh, hf, layer, total, bs, bss, act;
  if (MulOverflows(c.hidden, c.hidden, &hh) || MulOverflows(c.hidden, c.ffn, &hf) ||
      MulOverflows(32, std::max(hh, hf), &layer) || MulOverflows(layer, c.layers, &total))
    return InvalidArgument("--hidden/--ffn/--layers: weight byte count overflows 64 bits");
  if (MulOverflows(c.batch, c.seq, &bs) || MulOverflows(bs, 4 * std::max(c.hidden, c.ffn), &act) ||
      MulOverflows(bs, c.seq, &bss) || MulOverflows(bss, 4 * c.heads, &act))
    return InvalidArgument("--batch/--seq: activation byte count overflows 64 bits");
  return Status::Ok();
}

int64_t TransformerLayerWeightBytes(const TransformerConfig& c) {
  const int64_t H = c.hidden, F = c.ffn;
  const int64_t norms = (c.norm == NormKind::kLayer ? 4 : 2) * H;
  return 4 * (4 * H * H + 3 * H * F + norms);
}

int64_t TransformerWeightBytes(const TransformerConfig& c) {
  const int64_t final_norm = 4 * (c.norm == NormKind::kLayer ? 2 : 1) * c.hidden;
  return TransformerLayerWeightBytes(c) * c.layers + final_norm;
}

Expected<int64_t> LayersForTargetBytes(const TransformerConfig& c, int64_t target_bytes) {
  if (target_bytes < 1) return InvalidArgument("--target-bytes must be >= 1, got " + std::to_string(target_bytes));
  TransformerConfig one = c;
  one.layers = 1;
  VT_RETURN_IF_ERROR(ValidateTransformerConfig(one));
  const int64_t per = TransformerLayerWeightBytes(one);
  const int64_t fixed = TransformerWeightBytes(one) - per;
  const int64_t want = std::max<int64_t>(target_bytes - fixed, 0);
  return std::max<int64_t>(1, (want + per / 2) / per);
}

Expected<GeneratedTransformer> WriteSyntheticTransformer(const TransformerConfig& c, const std::string& out_path,
                                                         WeightStorage storage) {
  VT_RETURN_IF_ERROR(ValidateTransformerConfig(c));
  if (out_path.empty()) return InvalidArgument("-o: no output path");
  GeneratedTransformer r;
  r.model_path = out_path;
  r.weight_bytes = TransformerWeightBytes(c);
  const bool external = storage == WeightStorage::kExternal ||
                        (storage == WeightStorage::kAuto && r.weight_bytes > kAutoExternalBytes);
  if (!external && r.weight_bytes > kMaxInlineBytes)
    return InvalidArgument("--inline: " + std::to_string(r.weight_bytes) +
                           " bytes of weights exceed the 2 GiB protobuf limit; use --external");

  onnx::ModelProto mp;
  mp.set_ir_version(8);
  mp.set_producer_name("vtensor-gen-transformer");
  mp.set_producer_version("1");
  mp.set_doc_string("Synthetic transformer (random weights), src/tools/synthetic_transformer.h");
  mp.add_opset_import()->set_version(c.opset);
  if (c.nbits_block > 0) {
    auto* ms = mp.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
  }
  SetMetadata(c, &mp);
  onnx::GraphProto* g = mp.mutable_graph();
  g->set_name("synthetic_transformer");
  SetIo(g->add_input(), "x", c);
  SetIo(g->add_output(), "y", c);
  BuildNodes(c, g);

  const std::vector<WeightSpec> specs = PlanWeights(c);
  r.num_weights = static_cast<int64_t>(specs.size());
  const int first_init = g->initializer_size();
  for (const WeightSpec& s : specs) {
    onnx::TensorProto* tp = g->add_initializer();
    tp->set_name(s.name);
    tp->set_data_type(s.plane == NBitsPlane::kCodes || s.plane == NBitsPlane::kZeroPoints
                          ? onnx::TensorProto::UINT8
                          : onnx::TensorProto::FLOAT);
    for (int64_t d : s.dims) tp->add_dims(d);
  }

  std::unique_ptr<AtomicStreamFile> data;
  if (external) {
    r.data_path = out_path + ".data";
    VT_ASSIGN_OR_RETURN(data, AtomicStreamFile::Create(r.data_path));
    VT_RETURN_IF_ERROR(WriteExternalWeights(c, specs, BaseName(r.data_path), *data, g, first_init));
    VT_RETURN_IF_ERROR(data->Finish());
  } else {
    for (size_t t = 0; t < specs.size(); ++t) {
      std::string* raw = g->mutable_initializer(first_init + static_cast<int>(t))->mutable_raw_data();
      if (specs[t].plane != NBitsPlane::kNone) {
        const std::vector<uint8_t>& b = NBitsPlaneBytes(specs[t], c);
        raw->assign(reinterpret_cast<const char*>(b.data()), b.size());
        continue;
      }
      raw->resize(static_cast<size_t>(specs[t].numel()) * sizeof(float));
      FillWeights(specs[t].init, c.seed, specs[t].stream, 0, reinterpret_cast<float*>(raw->data()),
                  static_cast<size_t>(specs[t].numel()));
    }
  }

  std::string bytes;
  if (!mp.SerializeToString(&bytes)) return Internal(out_path + ": cannot serialize the ModelProto");
  mp.Clear();  // inline weights: do not hold them twice longer than needed
  VT_ASSIGN_OR_RETURN(auto model, AtomicStreamFile::Create(out_path));
  VT_RETURN_IF_ERROR(model->Write(bytes.data(), bytes.size()));
  VT_RETURN_IF_ERROR(model->Finish());
  // Both files are complete and durable; publish the data first so the model never points at
  // missing bytes.
  if (data) VT_RETURN_IF_ERROR(data->Commit());
  VT_RETURN_IF_ERROR(model->Commit());
  return r;
}

}  // namespace vt
