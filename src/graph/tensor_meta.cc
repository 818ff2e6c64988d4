#include "vtensor/graph/tensor_meta.h"

#include "vtensor/layout/layout_text.h"

namespace vt {

namespace {

const std::string* MetaString(const TensorSpec& spec, const std::string& key) {
  const MetaValue* v = spec.FindMeta(key);
  if (v == nullptr) return nullptr;
  return std::get_if<std::string>(v);
}

Expected<std::optional<Layout>> ParseMetaLayout(const TensorSpec& spec, const std::string& key) {
  const std::string* text = MetaString(spec, key);
  if (text == nullptr) return std::optional<Layout>();
  auto l = ParseLayout(*text);
  if (!l.ok()) return l.take_status().WithContext("metadata " + key);
  return std::optional<Layout>(std::move(*l));
}

}  // namespace

std::optional<Encoding> TensorEncoding(const TensorSpec& spec) {
  const std::string* s = MetaString(spec, kMetaEncoding);
  if (s == nullptr) return std::nullopt;
  return EncodingFromName(*s);
}

void SetTensorEncoding(TensorSpec& spec, Encoding e) {
  spec.SetMeta(kMetaEncoding, std::string(GetEncodingTraits(e).name));
}

Expected<std::optional<Layout>> TensorLayout(const TensorSpec& spec) {
  return ParseMetaLayout(spec, kMetaLayout);
}

void SetTensorLayout(TensorSpec& spec, const Layout& layout, std::string_view origin) {
  spec.SetMeta(kMetaLayout, LayoutToText(layout));
  spec.SetMeta(kMetaLayoutOrigin, std::string(origin));
}

std::string TensorLayoutOrigin(const TensorSpec& spec) {
  const std::string* s = MetaString(spec, kMetaLayoutOrigin);
  return s ? *s : std::string();
}

bool HasTensorLayout(const TensorSpec& spec) { return spec.FindMeta(kMetaLayout) != nullptr; }

std::optional<std::string> TensorAliasOf(const TensorSpec& spec) {
  const std::string* s = MetaString(spec, kMetaAliasOf);
  if (s == nullptr) return std::nullopt;
  return *s;
}

void SetTensorAliasOf(TensorSpec& spec, const std::string& name) {
  spec.SetMeta(kMetaAliasOf, name);
}

void SetCompiledLayout(TensorSpec& spec, std::string_view architecture, const Layout& layout) {
  spec.SetMeta(std::string(kMetaCompiledPrefix) + std::string(architecture), LayoutToText(layout));
}

Expected<std::optional<Layout>> CompiledLayout(const TensorSpec& spec,
                                               std::string_view architecture) {
  return ParseMetaLayout(spec, std::string(kMetaCompiledPrefix) + std::string(architecture));
}

std::vector<std::string> CompiledArchitectures(const TensorSpec& spec) {
  std::vector<std::string> out;
  const std::string prefix = kMetaCompiledPrefix;
  for (const auto& [k, v] : spec.metadata())  // std::map: already sorted
    if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0)
      out.push_back(k.substr(prefix.size()));
  return out;
}

}  // namespace vt
