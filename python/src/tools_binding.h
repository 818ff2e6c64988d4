// The tools half of the extension module (docs/python.md): compile (as `vtensor compile`) and
// check (as `vtensor check --json`).
#pragma once

#include <pybind11/pybind11.h>

namespace vt::python {

// Adds compile() and check() to `m`.
void BindTools(pybind11::module_& m);

}  // namespace vt::python
