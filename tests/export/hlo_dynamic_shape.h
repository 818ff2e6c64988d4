// Test-only: run-time shapes of results whose StableHLO types have dynamic dims (`?`), for the
// reference interpreter (hlo_interpreter.h), from StableHLO's shape rules for the ops the
// export writes with dynamic types (docs/export.md, "Dynamic dims").
#pragma once

#include <string>
#include <vector>

#include "hlo_interpreter.h"
#include "hlo_text.h"
#include "vtensor/base/status.h"

namespace vt::testing {

// The shape of `op`'s result at run time given its operands; `declared` is the result type's
// shape with -1 for `?`; only its dynamic dims are filled in. Errors: InvalidArgument when they
// cannot be inferred.
Expected<Shape> RunTimeShape(const HOp& op, const std::vector<const HValue*>& in, Shape declared);

// `type` ("tensor<?x16xf32>") with its dims replaced by `shape`'s.
std::string StaticType(const std::string& type, const Shape& shape);

}  // namespace vt::testing
