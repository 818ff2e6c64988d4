// StringSplit (ONNX Operators.md "StringSplit", opset 20). X strings -> Y [*X.shape, P] pieces
// padded with "" (P = the largest piece count) and Z [*X.shape] int64 piece counts.
// A non-empty `delimiter` splits at every occurrence (consecutive delimiters delimit empty
// strings, "" gives one empty piece); an unset or empty one splits on runs of whitespace and
// drops leading and trailing whitespace ("" and all-blank strings give no piece). At most
// `maxsplit` splits are made; the rest of the string is the last piece (in whitespace mode with
// its leading whitespace removed and its trailing whitespace kept, as in ONNX's reference, which
// is Python's str.split). A negative maxsplit, like an unset one, means no limit. Whitespace is
// Python's ASCII set (space, \t \n \v \f \r, \x1c-\x1f); multi-byte UTF-8 spaces are not split on.
#include <algorithm>
#include <string_view>

#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }

std::vector<std::string_view> SplitOn(std::string_view s, std::string_view delim, int64_t max) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (max < 0 || static_cast<int64_t>(out.size()) < max) {
    const size_t at = s.find(delim, start);
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(start, at - start));
    start = at + delim.size();
  }
  out.push_back(s.substr(start));
  return out;
}

std::vector<std::string_view> SplitWhitespace(std::string_view s, int64_t max) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i == s.size()) break;
    if (max >= 0 && static_cast<int64_t>(out.size()) == max) {
      out.push_back(s.substr(i));
      break;
    }
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

Status StringSplitCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (x0.dtype() != DType::kString)
    return ctx.Error(std::string("input 'X' (0) has element type ") + DTypeName(x0.dtype()) +
                     ", expected string");
  const std::string delim = ctx.node().GetString("delimiter", "");
  const int64_t max = ctx.node().GetInt("maxsplit", -1);
  const Tensor x = x0.Contiguous();
  const std::string* xs = x.data<std::string>();
  std::vector<std::vector<std::string_view>> pieces(static_cast<size_t>(x.numel()));
  int64_t widest = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    auto& p = pieces[static_cast<size_t>(i)];
    p = delim.empty() ? SplitWhitespace(xs[i], max) : SplitOn(xs[i], delim, max);
    widest = std::max(widest, static_cast<int64_t>(p.size()));
  }
  Shape yshape = x.shape();
  yshape.push_back(widest);
  Tensor y = ctx.AllocOutput(0, DType::kString, yshape);
  Tensor z = ctx.AllocOutput(1, DType::kInt64, x.shape());
  std::string* ys = y.mutable_data<std::string>();
  int64_t* zs = z.mutable_data<int64_t>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto& p = pieces[static_cast<size_t>(i)];
    zs[i] = static_cast<int64_t>(p.size());
    for (int64_t j = 0; j < widest; ++j)
      ys[i * widest + j] = j < zs[i] ? std::string(p[static_cast<size_t>(j)]) : std::string();
  }
  return Status::Ok();
}

VT_REGISTER_OP("", "StringSplit", 20, kMaxOpset, StringSplitCompute);

}  // namespace
}  // namespace vt::ops
