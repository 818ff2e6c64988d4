// Weight profiles: which weight forms a session may use (docs/weight-forms.md, "Profiles").
//   exact    (default) lossless forms only: results equal the uncompiled model's.
//   compact  requantized forms allowed: results change by the quantization error,
//            deterministically (a cache hit computes what a miss computes).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vt {

enum class WeightProfile : uint8_t { kExact, kCompact };
const char* WeightProfileName(WeightProfile p);  // "exact", "compact"
// Inverse of WeightProfileName; nullopt for other names.
std::optional<WeightProfile> WeightProfileFromName(std::string_view name);
// True when `p` admits forms that are not lossless.
bool ProfileAllowsLossy(WeightProfile p);

}  // namespace vt
