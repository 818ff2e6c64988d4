#include "vtensor/graph/type_info.h"

namespace vt {

std::string SymShapeToString(const SymShape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    if (s[i].known()) r += std::to_string(s[i].value);
    else if (!s[i].param.empty()) r += s[i].param;
    else r += "?";
  }
  return r + "]";
}

std::string TypeInfo::ToString() const {
  switch (kind) {
    case Kind::kTensor:
      return std::string("tensor(") + DTypeName(elem) + ")" + (shape ? SymShapeToString(*shape) : "");
    case Kind::kSequence: return "seq(" + (inner ? inner->ToString() : "?") + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->ToString() : "?") + ")";
    case Kind::kMap: return "map";
    case Kind::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<std::string> TensorSpec::identity() const {
  const MetaValue* v = FindMeta("vt.identity");
  if (v == nullptr || !std::holds_alternative<std::string>(*v)) return std::nullopt;
  return std::get<std::string>(*v);
}

}  // namespace vt
