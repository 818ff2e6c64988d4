// libFuzzer target: the layout text parser. Besides "never crash", checks the
// round-trip contract of docs/layout-text-format.md: parse(print(x)) == x and print is stable.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/layout/layout_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto l = vt::ParseLayout(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!l.ok()) {
    if (l.status().message().find("column ") == std::string::npos) __builtin_trap();
    return 0;
  }
  const std::string text = vt::LayoutToText(*l);
  auto back = vt::ParseLayout(text);
  if (!back.ok() || *back != *l || vt::LayoutToText(*back) != text || back->Hash() != l->Hash())
    __builtin_trap();
  (void)l->StorageBytes();
  (void)l->block_order();
  if (l->numel() > 0) {
    std::vector<int64_t> idx(static_cast<size_t>(l->rank()), 0);
    (void)l->Locate(idx.data());
    for (int d = 0; d < l->rank(); ++d) idx[static_cast<size_t>(d)] = l->dim(d) - 1;
    (void)l->Locate(idx.data());
    std::vector<int64_t> rev(static_cast<size_t>(l->rank()));
    for (int d = 0; d < l->rank(); ++d) rev[static_cast<size_t>(d)] = l->rank() - 1 - d;
    auto t = l->Transpose(rev);
    if (!t.ok() && l->is_strided()) __builtin_trap();  // strided transposes always succeed
  }
  return 0;
}
