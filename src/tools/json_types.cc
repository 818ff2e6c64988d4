#include "tools/json_types.h"

#include <fmt/core.h>

namespace vt::cli {

nlohmann::json ShapeJson(const Shape& s) {
  nlohmann::json j = nlohmann::json::array();
  for (int64_t d : s) j.push_back(d);
  return j;
}

nlohmann::json TypeJson(const TypeInfo& t) {
  nlohmann::json j = {{"type", t.ToString()}};
  if (t.kind != TypeInfo::Kind::kTensor) return j;
  j["elem_type"] = DTypeName(t.elem);
  if (!t.shape) {
    j["shape"] = nullptr;
    return j;
  }
  nlohmann::json dims = nlohmann::json::array();
  for (const Dim& d : *t.shape) {
    if (d.known()) dims.push_back(d.value);
    else if (!d.param.empty()) dims.push_back(d.param);
    else dims.push_back(nullptr);
  }
  j["shape"] = dims;
  return j;
}

void PrintJson(const nlohmann::json& j) { fmt::print("{}\n", j.dump(2)); }

}  // namespace vt::cli
