#include "hlo_text.h"

#include <cctype>
#include <map>
#include <string>

namespace vt::testing {

// ---------------------------------------------------------------- text helpers

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitLines(std::string_view t) {
  std::vector<std::string_view> out;
  size_t p = 0;
  while (p < t.size()) {
    size_t e = t.find('\n', p);
    if (e == std::string_view::npos) e = t.size();
    out.push_back(t.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// Index of the bracket closing the one at `open` (same kind), skipping quoted strings.
size_t Matching(std::string_view s, size_t open) {
  const char o = s[open], c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  bool quoted = false;
  for (size_t i = open; i < s.size(); ++i) {
    if (quoted) {
      if (s[i] == '\\') ++i;
      else if (s[i] == '"') quoted = false;
      continue;
    }
    if (s[i] == '"') quoted = true;
    else if (s[i] == o) ++depth;
    else if (s[i] == c && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Splits at top-level commas (brackets of every kind balanced, '->' ignored).
std::vector<std::string> SplitTop(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '{' || c == '[' || c == '<') ++depth;
    else if (c == ')' || c == '}' || c == ']' || (c == '>' && (i == 0 || s[i - 1] != '-'))) --depth;
    else if (c == ',' && depth == 0) {
      out.emplace_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!Trim(s.substr(start)).empty()) out.emplace_back(Trim(s.substr(start)));
  return out;
}

Expected<std::pair<DType, Shape>> ParseType(std::string_view t) {
  t = Trim(t);
  if (t.substr(0, 7) != "tensor<") return InvalidArgument("not a tensor type: " + std::string(t));
  std::string_view body = t.substr(7);
  const size_t end = body.find_first_of(",>");
  body = body.substr(0, end);
  Shape shape;
  size_t p = 0;
  for (;;) {
    const size_t x = body.find('x', p);
    if (x == std::string_view::npos) break;
    if (body[p] == '?' && x == p + 1) {  // a dynamic dim
      shape.push_back(-1);
    } else {
      if (!std::isdigit(static_cast<unsigned char>(body[p]))) break;
      shape.push_back(std::stoll(std::string(body.substr(p, x - p))));
    }
    p = x + 1;
  }
  const std::string elem(body.substr(p));
  static const std::map<std::string, DType> k = {
      {"f32", DType::kFloat32}, {"f16", DType::kFloat16}, {"bf16", DType::kBFloat16},
      {"f64", DType::kFloat64}, {"i1", DType::kBool},     {"i8", DType::kInt8},
      {"i16", DType::kInt16},   {"i32", DType::kInt32},   {"i64", DType::kInt64},
      {"ui8", DType::kUInt8},   {"ui16", DType::kUInt16}, {"ui32", DType::kUInt32},
      {"ui64", DType::kUInt64}};
  auto it = k.find(elem);
  if (it == k.end()) return InvalidArgument("unknown element type " + elem);
  return std::make_pair(it->second, shape);
}

std::vector<int64_t> ParseIntList(std::string_view s) {
  std::vector<int64_t> v;
  size_t p = 0;
  while (p < s.size()) {
    while (p < s.size() && !(std::isdigit(static_cast<unsigned char>(s[p])) || s[p] == '-')) ++p;
    if (p >= s.size()) break;
    size_t e = p + 1;
    while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
    v.push_back(std::stoll(std::string(s.substr(p, e - p))));
    p = e;
  }
  return v;
}

size_t FindKey(std::string_view attrs, const std::string& key) {
  size_t p = 0;
  while ((p = attrs.find(key + " = ", p)) != std::string_view::npos) {
    if (p == 0 || attrs[p - 1] == ' ' || attrs[p - 1] == '{' || attrs[p - 1] == '<' || attrs[p - 1] == ',')
      return p + key.size() + 3;
    p += key.size();
  }
  return std::string_view::npos;
}

std::vector<int64_t> ArrayAttr(std::string_view attrs, const std::string& key, bool* found) {
  const size_t p = FindKey(attrs, key);
  if (found) *found = p != std::string_view::npos;
  if (p == std::string_view::npos) return {};
  const size_t e = attrs.find('>', p);
  std::string_view body = attrs.substr(p, e - p);
  const size_t colon = body.find(':');
  return colon == std::string_view::npos ? std::vector<int64_t>{} : ParseIntList(body.substr(colon + 1));
}

std::vector<int64_t> ListAttr(std::string_view attrs, const std::string& key) {
  const size_t p = FindKey(attrs, key);
  if (p == std::string_view::npos) return {};
  return ParseIntList(attrs.substr(p + 1, attrs.find(']', p) - p - 1));
}

int64_t IntAttr(std::string_view attrs, const std::string& key, int64_t def) {
  const size_t p = FindKey(attrs, key);
  if (p == std::string_view::npos) return def;
  return ParseIntList(attrs.substr(p, 24)).at(0);
}

double FloatAttr(std::string_view attrs, const std::string& key) {
  const size_t p = FindKey(attrs, key);
  return std::strtod(std::string(attrs.substr(p, 32)).c_str(), nullptr);
}

// [[a, b], [c, d]] of a dense<...> matrix attribute.
std::vector<std::pair<int64_t, int64_t>> PairsAttr(std::string_view attrs, const std::string& key) {
  const size_t p = FindKey(attrs, key);
  std::vector<std::pair<int64_t, int64_t>> out;
  if (p == std::string_view::npos) return out;
  const size_t e = attrs.find(':', p);
  std::vector<int64_t> v = ParseIntList(attrs.substr(p, e - p));
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back({v[i], v[i + 1]});
  return out;
}

namespace {

// ---------------------------------------------------------------- parsing ops

Expected<HOp> ParseOpHead(std::string_view line, std::string_view* rest) {
  HOp op;
  line = Trim(line);
  if (!line.empty() && line[0] == '%') {
    const size_t eq = line.find(" = ");
    std::string_view res = line.substr(0, eq);
    const size_t colon = res.find(':');
    if (colon == std::string_view::npos) {
      op.results.emplace_back(res);
    } else {
      const int n = std::stoi(std::string(res.substr(colon + 1)));
      for (int i = 0; i < n; ++i) op.results.push_back(std::string(res.substr(0, colon)) + "#" + std::to_string(i));
    }
    line = line.substr(eq + 3);
  }
  if (line.empty() || line[0] != '"') return InvalidArgument("expected an op: " + std::string(line.substr(0, 80)));
  const size_t q = line.find('"', 1);
  op.name = std::string(line.substr(1, q - 1));
  const size_t open = q + 1;
  const size_t close = Matching(line, open);
  for (const auto& o : SplitTop(line.substr(open + 1, close - open - 1))) op.operands.push_back(o);
  *rest = line.substr(close + 1);
  return op;
}

// " {attrs} : (types) -> result" after operands or regions.
void ParseTail(std::string_view rest, HOp* op) {
  rest = Trim(rest);
  if (!rest.empty() && rest[0] == '{') {
    const size_t e = Matching(rest, 0);
    op->attrs = std::string(rest.substr(1, e - 1));
    rest = rest.substr(e + 1);
  }
  const size_t arrow = rest.rfind("->");
  std::string_view r = Trim(rest.substr(arrow + 2));
  if (!r.empty() && r[0] == '(') r = r.substr(1, r.size() - 2);
  op->result_types = SplitTop(r);
}

Expected<HOp> ParseOp(const std::vector<std::string_view>& lines, size_t* i) {
  std::string_view rest;
  VT_ASSIGN_OR_RETURN(HOp op, ParseOpHead(lines[*i], &rest));
  ++*i;
  rest = Trim(rest);
  if (rest.substr(0, 2) == "({") {
    for (;;) {
      VT_ASSIGN_OR_RETURN(HRegion r, ParseRegion(lines, i, false));
      op.regions.push_back(std::move(r));
      if (*i >= lines.size()) return InvalidArgument("unterminated region");
      std::string_view end = Trim(lines[*i]);
      ++*i;
      if (end.substr(0, 4) == "}, {") continue;
      if (end.substr(0, 2) == "})") {
        ParseTail(end.substr(2), &op);
        break;
      }
      return InvalidArgument("unexpected region end: " + std::string(end.substr(0, 40)));
    }
  } else {
    ParseTail(rest, &op);
  }
  return op;
}

}  // namespace

Expected<HRegion> ParseRegion(const std::vector<std::string_view>& lines, size_t* i, bool top) {
  HRegion r;
  while (*i < lines.size()) {
    std::string_view l = Trim(lines[*i]);
    if (l.empty()) {
      ++*i;
      continue;
    }
    if (l.substr(0, 2) == "})" || l.substr(0, 4) == "}, {" || (top && l == "}")) return r;
    if (l.substr(0, 4) == "^bb0") {
      HOp marker;
      marker.name = "^bb0";
      const std::string_view args = l.substr(5, l.rfind(')') - 5);
      for (const auto& a : SplitTop(args)) marker.block_args.push_back(a.substr(0, a.find(':')));
      r.push_back(marker);
      ++*i;
      continue;
    }
    VT_ASSIGN_OR_RETURN(HOp op, ParseOp(lines, i));
    r.push_back(std::move(op));
  }
  return r;
}


}  // namespace vt::testing
