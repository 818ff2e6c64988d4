// The Python exceptions of the vtensor package (docs/python.md "Errors"): every vt::Status that
// reaches Python becomes one of them, carrying the status message unchanged, so Python sees the
// same text the command line prints after "error: ".
//
//   vtensor.Error            base class, a RuntimeError
//   vtensor.InvalidArgument  bad model or bad call (also a ValueError): kInvalidArgument,
//                            kOutOfRange, and every argument check of the package itself
//   vtensor.NoSuchFile       kNotFound (a missing model, data or payload file)
//   vtensor.NotImplemented   kUnimplemented (also a NotImplementedError): operator, type or
//                            feature vtensor does not support
//   vtensor.Fail             kIoError, kFailedPrecondition, kInternal
// The names follow ONNX Runtime's Python exceptions (onnxruntime_pybind11_state).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "vtensor/base/status.h"

namespace vt::python {

// Creates the exception classes as attributes of `m`.
void RegisterErrors(pybind11::module_& m);

// Raises the exception matching `s.code()` with `s.message()` (s must not be OK).
[[noreturn]] void ThrowStatus(const Status& s);
// Raises vtensor.InvalidArgument / vtensor.Error with `message`.
[[noreturn]] void ThrowInvalidArgument(const std::string& message);
[[noreturn]] void ThrowError(const std::string& message);

// The value of `e`, or raises its status.
template <typename T>
T ValueOrThrow(Expected<T>&& e) {
  if (!e.ok()) ThrowStatus(e.status());
  return std::move(e).value();
}

}  // namespace vt::python
