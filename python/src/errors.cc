#include "errors.h"

namespace vt::python {

namespace py = pybind11;

namespace {
// Owned by the module object (attributes), which outlives every call into it.
PyObject* g_error = nullptr;
PyObject* g_invalid_argument = nullptr;
PyObject* g_no_such_file = nullptr;
PyObject* g_not_implemented = nullptr;
PyObject* g_fail = nullptr;

PyObject* NewError(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("vtensor.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(type));  // steals nothing: add_object increments
  return type;
}

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}
}  // namespace

void RegisterErrors(py::module_& m) {
  g_error = NewError(m, "Error", py::make_tuple(py::handle(PyExc_RuntimeError)),
                     "Base class of every error vtensor raises.");
  g_invalid_argument = NewError(
      m, "InvalidArgument", py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError)),
      "A bad model or a bad call: wrong input name, dtype or shape, unknown option value.");
  g_no_such_file = NewError(m, "NoSuchFile", py::make_tuple(py::handle(g_error)),
                            "A model, data or payload file that does not exist.");
  g_not_implemented = NewError(
      m, "NotImplemented",
      py::make_tuple(py::handle(g_error), py::handle(PyExc_NotImplementedError)),
      "An operator, element type or feature vtensor does not support.");
  g_fail = NewError(m, "Fail", py::make_tuple(py::handle(g_error)),
                    "An I/O or internal failure.");
}

void ThrowStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      Raise(g_invalid_argument, s.message());
    case StatusCode::kNotFound:
      Raise(g_no_such_file, s.message());
    case StatusCode::kUnimplemented:
      Raise(g_not_implemented, s.message());
    default:
      Raise(g_fail, s.message());
  }
}

void ThrowInvalidArgument(const std::string& message) { Raise(g_invalid_argument, message); }
void ThrowError(const std::string& message) { Raise(g_error, message); }

}  // namespace vt::python
