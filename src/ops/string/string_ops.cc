// StringNormalizer (opset 10) and TfIdfVectorizer (opset 9), ONNX Operators.md.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ops/common/op_util.h"
#include "vtensor/graph/node_status.h"

namespace vt::ops {
namespace {

// ASCII case mapping; other bytes (UTF-8 sequences included) pass through unchanged, which
// keeps multi-byte characters intact whatever the `locale` attribute says.
std::string ToLowerAscii(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}
std::string ToUpperAscii(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// StringNormalizer: X [C] or [1, C] strings. Removes stopwords (compared case-insensitively
// unless is_case_sensitive), then applies case_change_action (NONE, LOWER, UPPER). When every
// string is removed the output is one empty string, shaped [1] or [1, 1].
Status StringNormalizerCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (x0.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  const bool two_dim = x0.rank() == 2;
  if (!(x0.rank() == 1 || (two_dim && x0.dim(0) == 1)))
    return ctx.Error("input must have shape [C] or [1, C], got " + ShapeToString(x0.shape()));
  const Node& n = ctx.node();
  const std::string action = n.GetString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    return ctx.Error("unknown case_change_action '" + action + "'");
  const bool case_sensitive = n.GetInt("is_case_sensitive", 0) != 0;
  std::set<std::string> stop;
  for (const auto& w : n.GetStrings("stopwords")) stop.insert(case_sensitive ? w : ToLowerAscii(w));

  Tensor x = x0.Contiguous();
  const std::string* in = x.data<std::string>();
  std::vector<std::string> kept;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (!stop.empty() && stop.count(case_sensitive ? in[i] : ToLowerAscii(in[i]))) continue;
    if (action == "LOWER") kept.push_back(ToLowerAscii(in[i]));
    else if (action == "UPPER") kept.push_back(ToUpperAscii(in[i]));
    else kept.push_back(in[i]);
  }
  if (kept.empty()) kept.emplace_back();
  const int64_t c = static_cast<int64_t>(kept.size());
  Tensor out = ctx.AllocOutput(0, DType::kString, two_dim ? Shape{1, c} : Shape{c});
  std::string* o = out.mutable_data<std::string>();
  for (int64_t i = 0; i < c; ++i) o[i] = std::move(kept[static_cast<size_t>(i)]);
  return Status::Ok();
}

// TfIdfVectorizer: X [C] or [N, C] of int32/int64/string. The pool holds the n-grams of each
// length n in a block starting at ngram_counts[n-1]; the j-th pooled n-gram (over all lengths)
// counts into output column ngram_indexes[j]. For every start position and every skip
// s <= max_skip_count, n-grams of tokens i, i+(s+1), ... are counted for n in
// [min_gram_length, max_gram_length] (1-grams once per position). Output float [cols] or
// [N, cols], cols = max(ngram_indexes) + 1; mode TF counts, IDF gives weight when present,
// TFIDF count * weight (weights default to 1).
class TfIdfKernel : public OpKernel {
 public:
  static Expected<std::unique_ptr<OpKernel>> Create(const KernelInit& init) {
    const Node& n = init.node;
    auto err = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), n); };
    auto k = std::unique_ptr<TfIdfKernel>(new TfIdfKernel());
    k->min_n_ = n.GetInt("min_gram_length", 0);
    k->max_n_ = n.GetInt("max_gram_length", 0);
    k->max_skip_ = n.GetInt("max_skip_count", 0);
    if (k->min_n_ < 1 || k->max_n_ < k->min_n_)
      return err("need 1 <= min_gram_length <= max_gram_length");
    if (k->max_skip_ < 0) return err("max_skip_count must be >= 0");
    const std::string mode = n.GetString("mode", "");
    if (mode == "TF") k->mode_ = Mode::kTf;
    else if (mode == "IDF") k->mode_ = Mode::kIdf;
    else if (mode == "TFIDF") k->mode_ = Mode::kTfIdf;
    else return err("mode must be TF, IDF or TFIDF, got '" + mode + "'");
    const std::vector<int64_t> counts = n.GetInts("ngram_counts");
    const std::vector<int64_t> indexes = n.GetInts("ngram_indexes");
    k->weights_ = n.GetFloats("weights");
    k->strings_ = n.FindAttr("pool_strings") != nullptr;
    const std::vector<int64_t> pool_i = n.GetInts("pool_int64s");
    const std::vector<std::string> pool_s = n.GetStrings("pool_strings");
    const int64_t pool_size = static_cast<int64_t>(k->strings_ ? pool_s.size() : pool_i.size());
    if (indexes.empty()) return err("ngram_indexes is required");
    if (!k->weights_.empty() && k->weights_.size() != indexes.size())
      return err("weights must have one entry per n-gram");
    k->cols_ = 0;
    for (int64_t ix : indexes) {
      if (ix < 0) return err("negative ngram_indexes entry");
      k->cols_ = std::max(k->cols_, ix + 1);
    }
    int64_t j = 0;  // running n-gram index across all lengths
    for (size_t len_i = 0; len_i < counts.size(); ++len_i) {
      const int64_t len = static_cast<int64_t>(len_i) + 1;
      const int64_t start = counts[len_i];
      const int64_t end = len_i + 1 < counts.size() ? counts[len_i + 1] : pool_size;
      if (start < 0 || end < start || end > pool_size || (end - start) % len != 0)
        return err("ngram_counts entry " + std::to_string(len_i) + " does not fit the pool");
      for (int64_t p = start; p < end; p += len, ++j) {
        if (j >= static_cast<int64_t>(indexes.size()))
          return err("more pooled n-grams than ngram_indexes entries");
        Key key;
        for (int64_t q = p; q < p + len; ++q) {
          if (k->strings_) key.s.push_back(pool_s[static_cast<size_t>(q)]);
          else key.i.push_back(pool_i[static_cast<size_t>(q)]);
        }
        k->pool_.emplace(std::move(key), j);
      }
    }
    k->indexes_ = indexes;
    return std::unique_ptr<OpKernel>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
    const bool is_str = x0.dtype() == DType::kString;
    if (!is_str && x0.dtype() != DType::kInt32 && x0.dtype() != DType::kInt64)
      return ctx.Error(std::string("input dtype ") + DTypeName(x0.dtype()) +
                       " must be int32, int64 or string");
    if (is_str != strings_)
      return ctx.Error(strings_ ? "pool holds strings but input is integer"
                                : "pool holds integers but input is string");
    if (x0.rank() != 1 && x0.rank() != 2)
      return ctx.Error("input must have rank 1 or 2, got " + ShapeToString(x0.shape()));
    Tensor x = x0.Contiguous();
    const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    const int64_t c = x.rank() == 2 ? x.dim(1) : x.dim(0);
    Tensor out = ctx.AllocOutput(0, DType::kFloat32, x.rank() == 2 ? Shape{rows, cols_} : Shape{cols_});
    float* o = out.mutable_data<float>();
    std::fill(o, o + out.numel(), 0.0f);
    std::vector<int64_t> counts(indexes_.size());
    Key key;
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(counts.begin(), counts.end(), 0);
      for (int64_t i = 0; i < c; ++i) {
        for (int64_t skip = 0; skip <= max_skip_; ++skip) {
          const int64_t step = skip + 1;
          // Larger skips only form 1-grams, which were counted at skip 0.
          if (skip > 0 && i + step >= c) break;
          key.i.clear();
          key.s.clear();
          for (int64_t len = 1; len <= max_n_; ++len) {
            const int64_t pos = i + (len - 1) * step;
            if (pos >= c) break;
            const int64_t flat = r * c + pos;
            if (is_str) key.s.push_back(x.data<std::string>()[flat]);
            else key.i.push_back(x.GetInt64(flat));
            // A 1-gram does not depend on the skip; count it once per position.
            if (len < min_n_ || (len == 1 && skip > 0)) continue;
            auto it = pool_.find(key);
            if (it != pool_.end()) ++counts[static_cast<size_t>(it->second)];
          }
        }
      }
      float* orow = o + r * cols_;
      for (size_t j = 0; j < counts.size(); ++j) {
        if (counts[j] == 0) continue;
        const float w = weights_.empty() ? 1.0f : weights_[j];
        float v = mode_ == Mode::kTf ? static_cast<float>(counts[j])
                  : mode_ == Mode::kIdf ? w
                                        : static_cast<float>(counts[j]) * w;
        orow[indexes_[j]] = v;
      }
    }
    return Status::Ok();
  }

 private:
  enum class Mode { kTf, kIdf, kTfIdf };
  struct Key {
    std::vector<int64_t> i;
    std::vector<std::string> s;
    bool operator<(const Key& o) const { return i != o.i ? i < o.i : s < o.s; }
  };
  int64_t min_n_ = 1, max_n_ = 1, max_skip_ = 0, cols_ = 0;
  Mode mode_ = Mode::kTf;
  bool strings_ = false;
  std::vector<int64_t> indexes_;
  std::vector<float> weights_;
  std::map<Key, int64_t> pool_;
};

VT_REGISTER_OP("", "StringNormalizer", 10, kMaxOpset, StringNormalizerCompute);
VT_REGISTER_OP("", "TfIdfVectorizer", 9, kMaxOpset, KernelFactory(TfIdfKernel::Create));

}  // namespace
}  // namespace vt::ops
