// The session half of the extension module (docs/python.md): SessionOptions,
// GraphOptimizationLevel, NodeArg, ModelMetadata and the session handle that vtensor's
// InferenceSession (python/vtensor/session.py) wraps, over vt::Session (runtime/session.h).
#pragma once

#include <pybind11/pybind11.h>

namespace vt::python {

// Adds the classes above to `m`.
void BindSession(pybind11::module_& m);

}  // namespace vt::python
