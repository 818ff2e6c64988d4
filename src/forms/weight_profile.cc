#include "vtensor/forms/weight_profile.h"

namespace vt {

const char* WeightProfileName(WeightProfile p) {
  return p == WeightProfile::kCompact ? "compact" : "exact";
}

std::optional<WeightProfile> WeightProfileFromName(std::string_view name) {
  if (name == "exact") return WeightProfile::kExact;
  if (name == "compact") return WeightProfile::kCompact;
  return std::nullopt;
}

bool ProfileAllowsLossy(WeightProfile p) { return p == WeightProfile::kCompact; }

}  // namespace vt
