// Values between Python and vtensor (docs/python.md "Arrays"): numpy arrays <-> vt::Tensor,
// lists <-> ONNX sequences, None <-> an empty ONNX optional.
//
// Inputs: a C-contiguous, aligned, native-byte-order array is borrowed, not copied (the Tensor's
// Storage keeps a reference to the array; a read-only array gives read-only storage). Any other
// array (a strided view, another byte order) is copied into a dense native array first. Objects
// that are not arrays (lists, scalars) go through numpy.asarray with the declared element type.
// Outputs: a tensor whose heap storage nothing else references becomes the numpy array's memory
// (a capsule owns the Storage); anything else (a view of an initializer, a file map, storage
// shared with another output or borrowed from an input) is copied.
//
// Element types: numpy's bool, int8..int64, uint8..uint64, float16/32/64 and complex64/128 map
// to the ONNX type of the same name; str, bytes and object arrays of str/bytes are ONNX strings
// (outputs: object arrays of str). numpy has no bfloat16: a bfloat16 tensor is a uint16 array of
// its bit patterns (as ONNX's backend test data stores it); a float32 array given for a bfloat16
// input is rounded to nearest even.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/graph/type_info.h"
#include "vtensor/tensor/value.h"

namespace vt::python {

// The numpy module. The extension's initialisation calls it first: a later first call from two
// threads at once could deadlock (one holds the static's guard while the import lets go of the
// GIL, the other holds the GIL while it waits for the guard).
const pybind11::module_& Numpy();

// The ONNX element type of numpy dtype `dt`; nullopt for types ONNX has none of (datetime,
// structured, longdouble, ...).
std::optional<DType> DTypeOfNumpy(const pybind11::dtype& dt);
// The numpy dtype holding `t` (bfloat16: uint16; string: object). Errors: kUndefined.
pybind11::dtype NumpyDTypeOf(DType t);

// ONNX Runtime's spelling of a value type: "tensor(float)", "seq(tensor(int64))",
// "optional(tensor(float))"; "" for an unknown type.
std::string OrtTypeName(const TypeInfo& t);
// ONNX Runtime's shape list: ints, strings for symbolic dims, None for unknown dims; [] for an
// unknown rank or a non-tensor.
pybind11::list OrtShape(const TypeInfo& t);

// `obj` as a value of `declared` type (kUnknown: whatever `obj` is). `what` names it in errors
// ("input 'x'"). Errors: InvalidArgument for an object that is not the declared kind (a list
// for a tensor, None for a tensor, ...) or an element type ONNX lacks; Python errors raised by
// numpy.asarray propagate as exceptions.
Expected<Value> ValueFromPython(pybind11::handle obj, const TypeInfo& declared,
                                const std::string& what);

// `v` as a Python object: a numpy array, a list of arrays (sequence) or None (empty optional).
// Moves out of `v` so a sole owner's storage can be handed to numpy without a copy.
pybind11::object ValueToPython(Value&& v);

}  // namespace vt::python
