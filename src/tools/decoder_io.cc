#include "tools/decoder_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "tools/synthetic_weights.h"

namespace vt::cli {
namespace {

constexpr const char* kPastPrefix = "past_key_values.";
constexpr const char* kPresentPrefix = "present.";

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Static dim `i` of a tensor input, or -1.
int64_t StaticDim(const TypeInfo& t, size_t i) {
  if (!t.shape || t.shape->size() <= i || !(*t.shape)[i].known()) return -1;
  return (*t.shape)[i].value;
}

Tensor OnesI64(int64_t n) {
  Tensor t = Tensor::Empty(DType::kInt64, {1, n});
  std::fill_n(t.mutable_data<int64_t>(), n, int64_t{1});
  return t;
}

}  // namespace

Expected<DecoderIo> DecoderIo::Create(const Session& s, int64_t vocab) {
  const std::string file = s.model().path.empty() ? "<model>" : s.model().path;
  auto bad = [&](const std::string& m) { return InvalidArgument(file + ": " + m); };
  DecoderIo io;
  const auto inputs = s.inputs();
  io.n_inputs_ = inputs.size();
  std::map<std::string, size_t> outputs;
  for (size_t i = 0; i < s.outputs().size(); ++i) outputs[s.outputs()[i].name] = i;
  bool have_ids = false, have_mask = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = inputs[i]->name;
    const TypeInfo& t = inputs[i]->spec.type();
    if (name == "input_ids" || name == "attention_mask") {
      if (t.elem != DType::kInt64) return bad(fmt::format("input '{}' must be int64, got {}", name, t.ToString()));
      (name == "input_ids" ? io.ids_ : io.mask_) = i;
      (name == "input_ids" ? have_ids : have_mask) = true;
      continue;
    }
    if (!StartsWith(name, kPastPrefix))
      return bad(fmt::format("input '{}' is not input_ids, attention_mask or past_key_values.{{i}}.key / "
                             ".value (the onnxruntime-genai decoder form vtensor generate drives)",
                             name));
    const std::string present = kPresentPrefix + name.substr(std::string(kPastPrefix).size());
    auto it = outputs.find(present);
    if (it == outputs.end()) return bad(fmt::format("input '{}' has no output '{}'", name, present));
    const int64_t kv = StaticDim(t, 1), hs = StaticDim(t, 3);
    if (t.elem != DType::kFloat32 || !t.shape || t.shape->size() != 4 || kv < 1 || hs < 1)
      return bad(fmt::format("input '{}' must be float [batch, kv_heads, past, head_size] with static "
                             "kv_heads and head_size, got {}",
                             name, t.ToString()));
    if (!io.past_.empty() && (kv != io.kv_heads_ || hs != io.head_size_))
      return bad(fmt::format("input '{}' {} differs from the first past's kv_heads / head_size", name,
                             t.ToString()));
    io.kv_heads_ = kv;
    io.head_size_ = hs;
    io.past_.push_back({i, it->second});
  }
  if (!have_ids) return bad("no input 'input_ids'");
  if (!have_mask) return bad("no input 'attention_mask'");
  auto logits = outputs.find("logits");
  if (logits == outputs.end()) return bad("no output 'logits'");
  io.logits_ = logits->second;
  const TypeInfo& lt = s.outputs()[io.logits_].spec.type();
  io.vocab_ = vocab > 0 ? vocab : (lt.shape && !lt.shape->empty() ? StaticDim(lt, lt.shape->size() - 1) : -1);
  if (io.vocab_ < 1) return bad("output 'logits' " + lt.ToString() + " has no static vocabulary dim; pass --vocab");
  return io;
}

Expected<std::vector<Value>> DecoderIo::PrefillFeeds(const std::vector<int64_t>& prompt) const {
  if (prompt.empty()) return InvalidArgument("the prompt is empty (--prompt-len must be >= 1)");
  for (int64_t id : prompt)
    if (id < 0 || id >= vocab_)
      return InvalidArgument("prompt id " + std::to_string(id) + " is outside [0, " + std::to_string(vocab_) + ")");
  std::vector<Value> feeds(n_inputs_);
  Tensor ids = Tensor::Empty(DType::kInt64, {1, static_cast<int64_t>(prompt.size())});
  std::copy(prompt.begin(), prompt.end(), ids.mutable_data<int64_t>());
  feeds[ids_] = Value(ids);
  feeds[mask_] = Value(OnesI64(static_cast<int64_t>(prompt.size())));
  for (const Past& p : past_) feeds[p.input] = Value(Tensor::Empty(DType::kFloat32, {1, kv_heads_, 0, head_size_}));
  return feeds;
}

std::vector<Value> DecoderIo::DecodeFeeds(int64_t id, int64_t total, const std::vector<Value>& outputs) const {
  std::vector<Value> feeds(n_inputs_);
  Tensor ids = Tensor::Empty(DType::kInt64, {1, 1});
  ids.mutable_data<int64_t>()[0] = id;
  feeds[ids_] = Value(ids);
  feeds[mask_] = Value(OnesI64(total));
  for (const Past& p : past_) feeds[p.input] = outputs[p.output];
  return feeds;
}

Expected<int64_t> DecoderIo::Argmax(const std::vector<Value>& outputs) const {
  const Value& v = outputs[logits_];
  if (!v.is_tensor() || v.tensor().dtype() != DType::kFloat32 || v.tensor().rank() != 3 ||
      v.tensor().dim(0) != 1 || v.tensor().dim(2) != vocab_ || v.tensor().dim(1) < 1)
    return InvalidArgument("output 'logits' must be float [1, S, " + std::to_string(vocab_) + "]");
  const Tensor t = v.tensor().Contiguous();
  const float* row = t.data<float>() + (t.dim(1) - 1) * vocab_;
  return static_cast<int64_t>(std::max_element(row, row + vocab_) - row);
}

std::vector<int64_t> PromptIds(uint64_t seed, int64_t len, int64_t vocab) {
  std::vector<int64_t> ids(static_cast<size_t>(std::max<int64_t>(len, 0)));
  for (int64_t i = 0; i < len; ++i)
    ids[static_cast<size_t>(i)] = static_cast<int64_t>(
        synth::Mix64(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i + 1) * 0xD1B54A32D192ED03ull) %
        static_cast<uint64_t>(vocab));
  return ids;
}

int64_t WeightBytesPerToken(const Session& s) {
  const Graph& g = *s.model().graph;
  std::set<std::string> rows_only;
  for (const Node& n : g.nodes) {
    if (n.op_type == "Gather" && !n.inputs.empty()) rows_only.insert(n.inputs[0]);
    if (n.op_type == "GroupQueryAttention")
      for (size_t i : {7, 8})
        if (i < n.inputs.size()) rows_only.insert(n.inputs[i]);
  }
  std::map<std::string, int64_t> hit_bytes;  // compiled forms read in place of the source
  for (const CacheEntryReport& e : s.cache_report())
    if (e.state == EntryState::kHit) hit_bytes[e.source_name] += e.payload_bytes;
  int64_t bytes = 0;
  for (const auto& [name, t] : g.initializers) {
    if (rows_only.count(name)) continue;
    auto hit = hit_bytes.find(name);
    bytes += hit != hit_bytes.end() ? hit->second : static_cast<int64_t>(t.nbytes());
  }
  return bytes;
}

}  // namespace vt::cli
