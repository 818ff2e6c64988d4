#include "vtensor/export/layout_attr.h"

#include <cctype>
#include <cstdlib>
#include <memory>

namespace vt {

namespace {

std::string Ints(const std::vector<int64_t>& v) {
  if (v.empty()) return "array<i64>";
  std::string s = "array<i64: ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ">";
}

std::string Str(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

struct DictEntry;

// A parsed attribute value (the subset the writer produces, plus what mlir-opt re-prints).
struct Attr {
  enum class Kind { kString, kInt, kBool, kInts, kList, kDict } kind = Kind::kString;
  std::string s;
  int64_t i = 0;
  bool b = false;
  std::vector<int64_t> ints;
  std::vector<Attr> list;
  // A std::pair<std::string, Attr> here would need Attr complete (clang rejects it).
  std::vector<DictEntry> dict;
  const Attr* Find(const std::string& k) const;
};

struct DictEntry {
  std::string key;
  Attr value;
};

const Attr* Attr::Find(const std::string& k) const {
  for (const auto& [key, v] : dict)
    if (key == k) return &v;
  return nullptr;
}

class Parser {
 public:
  Parser(std::string_view t, size_t p) : t_(t), p_(p) {}
  size_t pos() const { return p_; }

  Expected<Attr> Value() {
    Skip();
    if (p_ >= t_.size()) return Err("expected a value, found the end");
    const char c = t_[p_];
    if (c == '"') {
      Attr a;
      VT_ASSIGN_OR_RETURN(a.s, String());
      return a;
    }
    if (c == '{') return Dict();
    if (c == '[') {
      Attr a;
      a.kind = Attr::Kind::kList;
      ++p_;
      Skip();
      if (Peek(']')) {
        ++p_;
        return a;
      }
      for (;;) {
        VT_ASSIGN_OR_RETURN(Attr v, Value());
        a.list.push_back(std::move(v));
        Skip();
        if (Peek(',')) {
          ++p_;
          continue;
        }
        if (Peek(']')) {
          ++p_;
          return a;
        }
        return Err("expected ',' or ']'");
      }
    }
    if (Match("array<i64")) {
      Attr a;
      a.kind = Attr::Kind::kInts;
      Skip();
      if (Peek(':')) {
        ++p_;
        for (;;) {
          VT_ASSIGN_OR_RETURN(int64_t v, Int());
          a.ints.push_back(v);
          Skip();
          if (Peek(',')) {
            ++p_;
            continue;
          }
          break;
        }
      }
      Skip();
      if (!Peek('>')) return Err("expected '>' closing array<i64");
      ++p_;
      return a;
    }
    if (Match("true") || Match("false")) {
      Attr a;
      a.kind = Attr::Kind::kBool;
      a.b = t_[p_ - 1] == 'e' && t_.substr(p_ - 4, 4) == "true";
      return a;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      Attr a;
      a.kind = Attr::Kind::kInt;
      VT_ASSIGN_OR_RETURN(a.i, Int());
      Skip();
      if (Peek(':')) {  // optional ": i64" type
        ++p_;
        Skip();
        while (p_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[p_]))) ++p_;
      }
      return a;
    }
    return Err("unexpected character '" + std::string(1, c) + "'");
  }

  Expected<Attr> Dict() {
    Skip();
    if (!Peek('{')) return Err("expected '{'");
    ++p_;
    Attr a;
    a.kind = Attr::Kind::kDict;
    Skip();
    if (Peek('}')) {
      ++p_;
      return a;
    }
    for (;;) {
      Skip();
      std::string key;
      if (Peek('"')) {
        VT_ASSIGN_OR_RETURN(key, String());
      } else {
        const size_t start = p_;
        while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' ||
                                  t_[p_] == '.' || t_[p_] == '$' || t_[p_] == '-'))
          ++p_;
        if (p_ == start) return Err("expected a key");
        key = std::string(t_.substr(start, p_ - start));
      }
      Skip();
      if (!Peek('=')) return Err("expected '=' after key '" + key + "'");
      ++p_;
      VT_ASSIGN_OR_RETURN(Attr v, Value());
      a.dict.push_back(DictEntry{std::move(key), std::move(v)});
      Skip();
      if (Peek(',')) {
        ++p_;
        continue;
      }
      if (Peek('}')) {
        ++p_;
        return a;
      }
      return Err("expected ',' or '}'");
    }
  }

 private:
  void Skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool Peek(char c) const { return p_ < t_.size() && t_[p_] == c; }
  bool Match(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  Status Err(const std::string& msg) const {
    return InvalidArgument("layout attribute, offset " + std::to_string(p_) + ": " + msg);
  }
  Expected<std::string> String() {
    ++p_;  // opening quote
    std::string s;
    while (p_ < t_.size() && t_[p_] != '"') {
      if (t_[p_] == '\\' && p_ + 1 < t_.size()) {
        const char n = t_[p_ + 1];
        if (n == '"' || n == '\\') {
          s += n;
          p_ += 2;
          continue;
        }
        if (p_ + 2 < t_.size() && std::isxdigit(static_cast<unsigned char>(n))) {
          s += static_cast<char>(std::strtol(std::string(t_.substr(p_ + 1, 2)).c_str(), nullptr, 16));
          p_ += 3;
          continue;
        }
      }
      s += t_[p_++];
    }
    if (p_ >= t_.size()) return Err("unterminated string");
    ++p_;
    return s;
  }
  Expected<int64_t> Int() {
    Skip();
    const size_t start = p_;
    if (Peek('-')) ++p_;
    while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    if (p_ == start || (p_ == start + 1 && t_[start] == '-')) return Err("expected an integer");
    return static_cast<int64_t>(std::strtoll(std::string(t_.substr(start, p_ - start)).c_str(), nullptr, 10));
  }

  std::string_view t_;
  size_t p_;
};

Status Need(const Attr& d, const char* key, Attr::Kind kind, const Attr** out) {
  const Attr* v = d.Find(key);
  if (v == nullptr) return InvalidArgument(std::string("layout attribute: missing key '") + key + "'");
  if (v->kind != kind) return InvalidArgument(std::string("layout attribute: key '") + key + "' has the wrong type");
  *out = v;
  return Status::Ok();
}

Expected<LayoutFacts> FactsFromAttr(const Attr& d) {
  if (d.kind != Attr::Kind::kDict) return InvalidArgument("layout attribute: not a dictionary");
  LayoutFacts f;
  const Attr* v = nullptr;
  VT_RETURN_IF_ERROR(Need(d, "version", Attr::Kind::kInt, &v));
  f.version = v->i;
  VT_RETURN_IF_ERROR(Need(d, "shape", Attr::Kind::kInts, &v));
  f.shape = v->ints;
  VT_RETURN_IF_ERROR(Need(d, "encoding", Attr::Kind::kString, &v));
  f.encoding = v->s;
  VT_RETURN_IF_ERROR(Need(d, "block_elems", Attr::Kind::kInt, &v));
  f.block_elems = v->i;
  VT_RETURN_IF_ERROR(Need(d, "block_bytes", Attr::Kind::kInt, &v));
  f.block_bytes = v->i;
  VT_RETURN_IF_ERROR(Need(d, "block_order", Attr::Kind::kString, &v));
  f.block_order = v->s;
  VT_RETURN_IF_ERROR(Need(d, "form", Attr::Kind::kString, &v));
  f.form = v->s;
  if (f.form == "strided") {
    VT_RETURN_IF_ERROR(Need(d, "strides", Attr::Kind::kInts, &v));
    f.strides = v->ints;
  }
  VT_RETURN_IF_ERROR(Need(d, "levels", Attr::Kind::kList, &v));
  for (const Attr& l : v->list) {
    if (l.kind != Attr::Kind::kInts || l.ints.size() != 3)
      return InvalidArgument("layout attribute: a level is not array<i64: dim, tile, stride>");
    f.levels.push_back({static_cast<int32_t>(l.ints[0]), l.ints[1], l.ints[2]});
  }
  VT_RETURN_IF_ERROR(Need(d, "padded", Attr::Kind::kInts, &v));
  f.padded = v->ints;
  VT_RETURN_IF_ERROR(Need(d, "offset", Attr::Kind::kInt, &v));
  f.offset = v->i;
  if ((v = d.Find("text")) != nullptr && v->kind == Attr::Kind::kString) f.text = v->s;
  if ((v = d.Find("scale_placement")) != nullptr && v->kind == Attr::Kind::kString) f.scale_placement = v->s;
  if ((v = d.Find("scale_type")) != nullptr && v->kind == Attr::Kind::kString) f.scale_type = v->s;
  if ((v = d.Find("zero_point")) != nullptr && v->kind == Attr::Kind::kBool) f.zero_point = v->b;
  if ((v = d.Find("storage_bytes")) != nullptr && v->kind == Attr::Kind::kInt) f.storage_bytes = v->i;
  return f;
}

}  // namespace

std::string LayoutFactsToMlir(const LayoutFacts& f) {
  std::string s = "{version = " + std::to_string(f.version) + " : i64, text = " + Str(f.text) +
                  ", shape = " + Ints(f.shape) + ", encoding = " + Str(f.encoding) +
                  ", block_elems = " + std::to_string(f.block_elems) +
                  " : i64, block_bytes = " + std::to_string(f.block_bytes) +
                  " : i64, scale_placement = " + Str(f.scale_placement) +
                  ", scale_type = " + Str(f.scale_type) + ", zero_point = " +
                  (f.zero_point ? "true" : "false") + ", block_order = " + Str(f.block_order) +
                  ", form = " + Str(f.form);
  if (f.form == "strided") s += ", strides = " + Ints(f.strides);
  s += ", levels = [";
  for (size_t i = 0; i < f.levels.size(); ++i)
    s += (i ? ", " : "") + Ints({f.levels[i].dim, f.levels[i].tile, f.levels[i].stride});
  s += "], padded = " + Ints(f.padded) + ", offset = " + std::to_string(f.offset) +
       " : i64, storage_bytes = " + std::to_string(f.storage_bytes) + " : i64}";
  return s;
}

Expected<LayoutFacts> LayoutFactsFromMlir(std::string_view dict) {
  Parser p(dict, 0);
  VT_ASSIGN_OR_RETURN(Attr a, p.Dict());
  return FactsFromAttr(a);
}

Expected<std::map<std::string, Layout>> ReadTensorLayouts(std::string_view mlir) {
  std::map<std::string, Layout> out;
  const std::string_view key = "vt.tensor_layouts";
  size_t at = mlir.find(key);
  if (at == std::string_view::npos) return out;
  at += key.size();
  while (at < mlir.size() && std::isspace(static_cast<unsigned char>(mlir[at]))) ++at;
  if (at >= mlir.size() || mlir[at] != '=') return InvalidArgument("vt.tensor_layouts: expected '='");
  Parser p(mlir, at + 1);
  VT_ASSIGN_OR_RETURN(Attr d, p.Dict());
  for (const auto& [name, v] : d.dict) {
    auto facts = FactsFromAttr(v);
    if (!facts.ok()) return facts.take_status().WithContext("vt.tensor_layouts['" + name + "']");
    auto l = LayoutFromFacts(*facts);
    if (!l.ok()) return l.take_status().WithContext("vt.tensor_layouts['" + name + "']");
    out.emplace(name, std::move(*l));
  }
  return out;
}

Expected<std::vector<Layout>> ReadTypeLayouts(std::string_view mlir) {
  std::vector<Layout> out;
  const std::string_view key = "#vt.layout<";
  for (size_t at = mlir.find(key); at != std::string_view::npos; at = mlir.find(key, at + 1)) {
    Parser p(mlir, at + key.size());
    VT_ASSIGN_OR_RETURN(Attr d, p.Dict());
    VT_ASSIGN_OR_RETURN(LayoutFacts f, FactsFromAttr(d));
    VT_ASSIGN_OR_RETURN(Layout l, LayoutFromFacts(f));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace vt
