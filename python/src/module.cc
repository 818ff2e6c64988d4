// The extension module `vtensor._vtensor`; the package's Python files (python/vtensor) build the
// ONNX Runtime-style API on it (docs/python.md).
#include <pybind11/pybind11.h>

#include "errors.h"
#include "numpy_value.h"
#include "session_binding.h"
#include "tools_binding.h"

PYBIND11_MODULE(_vtensor, m) {
  m.doc() = "vtensor's C++ runtime (runtime/session.h) for Python";
  m.attr("__version__") = VTENSOR_VERSION;
  vt::python::Numpy();  // before any thread can ask for it (numpy_value.h)
  vt::python::RegisterErrors(m);
  vt::python::BindSession(m);
  vt::python::BindTools(m);
}
