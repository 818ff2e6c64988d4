#include "numpy_value.h"

#include <bit>
#include <cstring>
#include <memory>
#include <vector>

#include "vtensor/tensor/sub_byte_values.h"

namespace vt::python {

namespace py = pybind11;

const py::module_& Numpy() {
  static const auto* np = new py::module_(py::module_::import("numpy"));  // lives to exit
  return *np;
}

namespace {

// numpy's type numbers (numpy/ndarraytypes.h, NPY_TYPES); stable across numpy versions.
constexpr int kNpyBool = 0, kNpyInt8 = 1, kNpyUInt8 = 2, kNpyInt16 = 3, kNpyUInt16 = 4,
              kNpyInt32 = 5, kNpyUInt32 = 6, kNpyInt64 = 9, kNpyUInt64 = 10, kNpyFloat32 = 11,
              kNpyFloat64 = 12, kNpyComplex64 = 14, kNpyComplex128 = 15, kNpyObject = 17,
              kNpyFloat16 = 23;

int NpyTypeOf(DType t) {
  switch (t) {
    case DType::kBool: return kNpyBool;
    case DType::kInt8: return kNpyInt8;
    case DType::kUInt8: return kNpyUInt8;
    case DType::kInt16: return kNpyInt16;
    case DType::kUInt16: return kNpyUInt16;
    case DType::kInt32: return kNpyInt32;
    case DType::kUInt32: return kNpyUInt32;
    case DType::kInt64: return kNpyInt64;
    case DType::kUInt64: return kNpyUInt64;
    case DType::kFloat16: return kNpyFloat16;
    case DType::kFloat32: return kNpyFloat32;
    case DType::kBFloat16: return kNpyUInt16;  // the bit patterns
    case DType::kFloat64: return kNpyFloat64;
    case DType::kComplex64: return kNpyComplex64;
    case DType::kComplex128: return kNpyComplex128;
    case DType::kString: return kNpyObject;
    // numpy has no float8 / float4 / int4: their codes (float8, float4e2m1) or values (int4,
    // uint4: one element per byte, as vtensor holds them; docs/dtypes.md) in 8-bit arrays.
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat4E2M1:
    case DType::kUInt4: return kNpyUInt8;
    case DType::kInt4: return kNpyInt8;
    case DType::kUndefined: break;
  }
  return -1;
}

bool NativeByteOrder(const py::dtype& dt) {
  const char order = dt.byteorder();
  if (order == '=' || order == '|') return true;
  return order == (std::endian::native == std::endian::little ? '<' : '>');
}

std::string DTypeText(const py::dtype& dt) { return py::str(py::handle(dt)).cast<std::string>(); }

Shape ShapeOf(const py::array& a) {
  Shape shape(static_cast<size_t>(a.ndim()));
  for (size_t i = 0; i < shape.size(); ++i) shape[i] = a.shape(static_cast<py::ssize_t>(i));
  return shape;
}

// A string tensor from an array of str, bytes or objects that are str or bytes.
Expected<Tensor> StringTensorFromArray(const py::array& a, const std::string& what) {
  const Shape shape = ShapeOf(a);
  py::list items = a.attr("ravel")().attr("tolist")();
  Tensor t = Tensor::Empty(DType::kString, shape);
  auto* out = t.mutable_data<std::string>();
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* item = items[i].ptr();
    if (PyUnicode_Check(item)) {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(item, &n);
      if (s == nullptr) throw py::error_already_set();
      out[i].assign(s, static_cast<size_t>(n));
    } else if (PyBytes_Check(item)) {
      out[i].assign(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item)));
    } else {
      return InvalidArgument(what + ": element " + std::to_string(i) + " of a string tensor is a " +
                             Py_TYPE(item)->tp_name + ", not str or bytes");
    }
  }
  return t;
}

// float32 values rounded to bfloat16 (numpy has no bfloat16 type).
Tensor BFloat16FromFloat32(const py::array& a) {
  auto dense = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
  Tensor t = Tensor::Empty(DType::kBFloat16, ShapeOf(dense));
  const float* src = dense.data();
  auto* dst = t.mutable_data<uint16_t>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = FloatToBFloat16(src[i]);
  return t;
}

// The array's bytes as tensor storage: borrowed when dense, aligned and native; else a dense
// native copy made by numpy (which the storage then borrows).
Tensor BorrowArray(py::array a, DType dtype) {
  constexpr int kDirect = static_cast<int>(py::array::c_style) |
                          static_cast<int>(py::detail::npy_api::NPY_ARRAY_ALIGNED_);
  if ((a.flags() & kDirect) != kDirect || !NativeByteOrder(a.dtype()))
    a = Numpy().attr("ascontiguousarray")(a, a.dtype().attr("newbyteorder")("="));
  const Shape shape = ShapeOf(a);
  const void* data = a.data();
  const size_t bytes = static_cast<size_t>(a.nbytes());
  const bool read_only = !a.writeable();
  // The storage owns one reference to the array; it may be dropped on a thread that does not
  // hold the GIL (the end of a run), hence the acquire.
  std::shared_ptr<const void> keep_alive(a.release().ptr(), [](const void* p) {
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(p)));
  });
  return Tensor(dtype, Layout::Contiguous(shape),
                Storage::Borrow(data, bytes, std::move(keep_alive), read_only));
}

// A float8 / 4-bit input from the 8-bit array NumpyDTypeOf names for it: float8 codes as they
// are; 4-bit values checked against the type's range (float4e2m1: codes 0..15).
Expected<Tensor> SmallTypeFromArray(py::array a, DType declared, const std::string& what) {
  const py::dtype want = NumpyDTypeOf(declared);
  if (!a.dtype().is(want) && !a.dtype().equal(want))
    return InvalidArgument(what + ": a " + std::string(DTypeName(declared)) + " input takes a " +
                           DTypeText(want) + " array (its codes or values), not " +
                           DTypeText(a.dtype()));
  Tensor t = BorrowArray(std::move(a), declared);
  VT_RETURN_IF_ERROR_CTX(CheckSubByteValues(t), what);
  return t;
}

Expected<Tensor> TensorFromPython(py::handle obj, DType declared, const std::string& what) {
  if (obj.is_none()) return InvalidArgument(what + ": None where a tensor is expected");
  py::array a;
  if (py::isinstance<py::array>(obj)) {
    a = py::reinterpret_borrow<py::array>(obj);
  } else if (declared != DType::kUndefined && declared != DType::kString) {
    a = Numpy().attr("asarray")(obj, NumpyDTypeOf(declared));
  } else {
    a = Numpy().attr("asarray")(obj);
  }
  const py::dtype dt = a.dtype();
  const auto dtype = DTypeOfNumpy(dt);
  if (!dtype)
    return InvalidArgument(what + ": numpy dtype " + DTypeText(dt) + " has no ONNX element type");
  if (*dtype == DType::kString) {
    if (declared != DType::kString && declared != DType::kUndefined)
      return InvalidArgument(what + ": dtype " + DTypeText(dt) + " does not match declared " +
                             DTypeName(declared));
    return StringTensorFromArray(a, what);
  }
  if (declared == DType::kBFloat16 && *dtype == DType::kFloat32) return BFloat16FromFloat32(a);
  if (declared == DType::kBFloat16 && *dtype == DType::kUInt16)
    return BorrowArray(std::move(a), DType::kBFloat16);  // bit patterns, as numpy has no bfloat16
  if (IsFloat8DType(declared) || IsSubByteDType(declared))
    return SmallTypeFromArray(std::move(a), declared, what);
  // Any other mismatch is left to Session::Run, whose message the command line prints too.
  return BorrowArray(std::move(a), *dtype);
}

py::object StringsToPython(const Tensor& t) {
  const Tensor dense = t.Contiguous();
  const auto* s = dense.data<std::string>();
  py::list items(static_cast<size_t>(dense.numel()));
  for (int64_t i = 0; i < dense.numel(); ++i) {
    PyObject* u = PyUnicode_DecodeUTF8(s[i].data(), static_cast<Py_ssize_t>(s[i].size()),
                                       "surrogateescape");
    if (u == nullptr) throw py::error_already_set();
    items[static_cast<size_t>(i)] = py::reinterpret_steal<py::object>(u);
  }
  py::object flat = Numpy().attr("array")(items, py::dtype(kNpyObject));
  py::tuple shape(dense.shape().size());
  for (size_t i = 0; i < dense.shape().size(); ++i) shape[i] = py::int_(dense.shape()[i]);
  return flat.attr("reshape")(shape);
}

py::object TensorToPython(Tensor t) {
  if (!t.defined()) return py::none();
  if (t.dtype() == DType::kString) return StringsToPython(t);
  const std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  const py::dtype dt = NumpyDTypeOf(t.dtype());
  const std::shared_ptr<Storage>& st = t.storage();
  if (st->kind() == Storage::Kind::kHeap && !st->read_only() && st.use_count() == 1 &&
      t.is_contiguous() && t.numel() > 0) {
    // Sole owner: numpy gets the storage itself, kept alive by the capsule.
    void* data = t.raw_mutable_data();
    auto* holder = new std::shared_ptr<Storage>(st);
    t = Tensor();
    py::capsule owner(holder, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
    return py::array(dt, shape, {}, data, owner);
  }
  py::array out(dt, shape);
  if (t.numel() > 0) CopyToContiguous(t, out.mutable_data());
  return out;
}

}  // namespace

std::optional<DType> DTypeOfNumpy(const py::dtype& dt) {
  const auto size = dt.itemsize();
  switch (dt.kind()) {
    case 'b':
      return DType::kBool;
    case 'i':
      if (size == 1) return DType::kInt8;
      if (size == 2) return DType::kInt16;
      if (size == 4) return DType::kInt32;
      if (size == 8) return DType::kInt64;
      break;
    case 'u':
      if (size == 1) return DType::kUInt8;
      if (size == 2) return DType::kUInt16;
      if (size == 4) return DType::kUInt32;
      if (size == 8) return DType::kUInt64;
      break;
    case 'f':
      if (size == 2) return DType::kFloat16;
      if (size == 4) return DType::kFloat32;
      if (size == 8) return DType::kFloat64;
      break;
    case 'c':
      if (size == 8) return DType::kComplex64;
      if (size == 16) return DType::kComplex128;
      break;
    case 'U':
    case 'S':
    case 'O':
      return DType::kString;
    default:
      break;
  }
  return std::nullopt;
}

py::dtype NumpyDTypeOf(DType t) {
  const int num = NpyTypeOf(t);
  if (num < 0) throw py::value_error("no numpy dtype for an undefined element type");
  return py::dtype(num);
}

std::string OrtTypeName(const TypeInfo& t) {
  switch (t.kind) {
    case TypeInfo::Kind::kTensor:
      switch (t.elem) {
        case DType::kFloat32: return "tensor(float)";
        case DType::kFloat64: return "tensor(double)";
        case DType::kUndefined: return "tensor(undefined)";
        default: return std::string("tensor(") + DTypeName(t.elem) + ")";
      }
    case TypeInfo::Kind::kSequence:
      return "seq(" + (t.inner ? OrtTypeName(*t.inner) : std::string()) + ")";
    case TypeInfo::Kind::kOptional:
      return "optional(" + (t.inner ? OrtTypeName(*t.inner) : std::string()) + ")";
    case TypeInfo::Kind::kMap:
      return "map";
    case TypeInfo::Kind::kUnknown:
      break;
  }
  return "";
}

py::list OrtShape(const TypeInfo& t) {
  py::list out;
  if (t.kind != TypeInfo::Kind::kTensor || !t.shape) return out;
  for (const Dim& d : *t.shape) {
    if (d.known()) out.append(d.value);
    else if (!d.param.empty()) out.append(d.param);
    else out.append(py::none());
  }
  return out;
}

Expected<Value> ValueFromPython(py::handle obj, const TypeInfo& declared, const std::string& what) {
  switch (declared.kind) {
    case TypeInfo::Kind::kSequence: {
      if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
        return InvalidArgument(what + ": expected a list of arrays (the input is " +
                               OrtTypeName(declared) + "), got " + Py_TYPE(obj.ptr())->tp_name);
      const DType elem = declared.inner ? declared.inner->elem : DType::kUndefined;
      std::vector<Tensor> items;
      size_t i = 0;
      for (py::handle item : obj) {
        auto t = TensorFromPython(item, elem, what + " item " + std::to_string(i++));
        if (!t.ok()) return t.status();
        items.push_back(std::move(*t));
      }
      return Value::Sequence(elem, std::move(items));
    }
    case TypeInfo::Kind::kOptional: {
      const TypeInfo inner = declared.inner ? *declared.inner : TypeInfo();
      if (obj.is_none()) {
        const bool seq = inner.kind == TypeInfo::Kind::kSequence;
        const DType elem = seq ? (inner.inner ? inner.inner->elem : DType::kUndefined) : inner.elem;
        return Value::NoneOf(seq, elem);
      }
      return ValueFromPython(obj, inner, what);
    }
    case TypeInfo::Kind::kMap:
      return Unimplemented(what + ": map inputs are not supported");
    case TypeInfo::Kind::kTensor:
    case TypeInfo::Kind::kUnknown:
      break;
  }
  auto t = TensorFromPython(obj, declared.elem, what);
  if (!t.ok()) return t.status();
  return Value(std::move(*t));
}

py::object ValueToPython(Value&& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return py::none();
    case Value::Kind::kSequence: {
      py::list out;
      for (Tensor& t : v.sequence()) out.append(TensorToPython(std::move(t)));
      v = Value();
      return out;
    }
    case Value::Kind::kTensor:
      break;
  }
  Tensor t = std::move(v.tensor());
  v = Value();
  return TensorToPython(std::move(t));
}

}  // namespace vt::python
