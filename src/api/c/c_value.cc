// VtValue: tensors over caller memory, copies, and outputs read in place
// (include/vtensor/vtensor_c.h).
#include <cstring>
#include <memory>

#include "api/c/c_status.h"
#include "api/c/c_value.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/tensor/sub_byte_values.h"

namespace vt::capi {
namespace {

Expected<Shape> ShapeArg(const int64_t* dims, size_t rank) {
  if (rank > 0 && dims == nullptr)
    return InvalidArgument("dims is NULL with rank " + std::to_string(rank));
  return Shape(dims, dims + rank);
}

Expected<DType> DTypeArg(VtDType dtype) {
  if (dtype == VT_UNDEFINED || !IsKnownDType(static_cast<int32_t>(dtype)))
    return InvalidArgument("unknown dtype " + std::to_string(static_cast<int>(dtype)));
  return static_cast<DType>(dtype);
}

// The tensor of `v`, or an error naming `fn` when it is NULL or not a tensor.
VtStatus* TensorOf(const char* fn, const VtValue* v, const Tensor** out) {
  if (v == nullptr) return Invalid(fn, "value is NULL");
  if (!v->value.is_tensor())
    return Invalid(fn, v->value.is_sequence() ? "value is a sequence, not a tensor"
                                              : "value is an empty optional, not a tensor");
  *out = &v->value.tensor();
  return nullptr;
}

VtStatus* CreateValue(const char* fn, VtDType dtype, const int64_t* dims, size_t rank,
                      const void* data, size_t bytes, bool copy, VtValue** out) {
  if (out == nullptr) return Invalid(fn, "out is NULL");
  *out = nullptr;
  auto dt = DTypeArg(dtype);
  if (!dt.ok()) return FromStatus(fn, dt.status());
  auto shape = ShapeArg(dims, rank);
  if (!shape.ok()) return FromStatus(fn, shape.status());
  auto t = Tensor::Borrow(*dt, *shape, data, bytes);
  if (!t.ok()) return FromStatus(fn, t.status());
  if (Status st = CheckSubByteValues(*t); !st.ok()) return FromStatus(fn, st);
  Tensor tensor = copy ? t->Clone() : *std::move(t);
  *out = new VtValue{Value(std::move(tensor))};
  return nullptr;
}

}  // namespace
}  // namespace vt::capi

using vt::capi::Guard;
using vt::capi::Invalid;

extern "C" {

VtStatus* VtValueCreateBorrowed(VtDType dtype, const int64_t* dims, size_t rank,
                                const void* data, size_t bytes, VtValue** out) {
  return Guard("VtValueCreateBorrowed", [&] {
    return vt::capi::CreateValue("VtValueCreateBorrowed", dtype, dims, rank, data, bytes, false,
                                 out);
  });
}

VtStatus* VtValueCreateCopy(VtDType dtype, const int64_t* dims, size_t rank, const void* data,
                            size_t bytes, VtValue** out) {
  return Guard("VtValueCreateCopy", [&] {
    return vt::capi::CreateValue("VtValueCreateCopy", dtype, dims, rank, data, bytes, true, out);
  });
}

VtStatus* VtValueReadFile(const char* path, VtValue** out) {
  constexpr const char* fn = "VtValueReadFile";
  return Guard(fn, [&]() -> VtStatus* {
    if (out == nullptr) return Invalid(fn, "out is NULL");
    *out = nullptr;
    if (path == nullptr) return Invalid(fn, "path is NULL");
    auto v = vt::LoadValueFile(path, vt::TypeInfo());
    if (!v.ok()) return vt::capi::FromStatus(fn, v.status());
    *out = new VtValue{*std::move(v)};
    return nullptr;
  });
}

void VtValueRelease(VtValue* value) { delete value; }

VtStatus* VtValueGetDType(const VtValue* value, VtDType* dtype) {
  constexpr const char* fn = "VtValueGetDType";
  return Guard(fn, [&]() -> VtStatus* {
    if (value == nullptr) return Invalid(fn, "value is NULL");
    if (dtype == nullptr) return Invalid(fn, "dtype is NULL");
    *dtype = value->value.is_tensor() ? static_cast<VtDType>(value->value.tensor().dtype())
                                      : VT_UNDEFINED;
    return nullptr;
  });
}

VtStatus* VtValueGetShape(const VtValue* value, const int64_t** dims, size_t* rank) {
  constexpr const char* fn = "VtValueGetShape";
  return Guard(fn, [&]() -> VtStatus* {
    if (dims == nullptr) return Invalid(fn, "dims is NULL");
    if (rank == nullptr) return Invalid(fn, "rank is NULL");
    const vt::Tensor* t = nullptr;
    if (VtStatus* st = vt::capi::TensorOf(fn, value, &t)) return st;
    *dims = t->shape().data();
    *rank = t->shape().size();
    return nullptr;
  });
}

VtStatus* VtValueGetData(const VtValue* value, const void** data, size_t* bytes) {
  constexpr const char* fn = "VtValueGetData";
  return Guard(fn, [&]() -> VtStatus* {
    if (data == nullptr) return Invalid(fn, "data is NULL");
    if (bytes == nullptr) return Invalid(fn, "bytes is NULL");
    const vt::Tensor* t = nullptr;
    if (VtStatus* st = vt::capi::TensorOf(fn, value, &t)) return st;
    if (t->dtype() == vt::DType::kString)
      return Invalid(fn, "a string tensor holds no flat bytes; read it with VtValueGetString");
    // Session outputs and values made here are contiguous; a defensive check all the same.
    if (!t->is_contiguous())
      return vt::capi::MakeStatus(VT_INTERNAL, std::string(fn) + ": tensor is not contiguous");
    *data = t->raw_data();
    *bytes = t->nbytes();
    return nullptr;
  });
}

VtStatus* VtValueGetString(const VtValue* value, size_t index, const char** str,
                           size_t* length) {
  constexpr const char* fn = "VtValueGetString";
  return Guard(fn, [&]() -> VtStatus* {
    if (str == nullptr) return Invalid(fn, "str is NULL");
    const vt::Tensor* t = nullptr;
    if (VtStatus* st = vt::capi::TensorOf(fn, value, &t)) return st;
    if (t->dtype() != vt::DType::kString)
      return Invalid(fn, std::string("value is a ") + vt::DTypeName(t->dtype()) +
                             " tensor, not a string tensor");
    if (index >= static_cast<size_t>(t->numel()))
      return vt::capi::MakeStatus(VT_OUT_OF_RANGE, std::string(fn) + ": index " +
                                                       std::to_string(index) + " >= " +
                                                       std::to_string(t->numel()) + " elements");
    const std::string& s = t->data<std::string>()[index];
    *str = s.c_str();
    if (length != nullptr) *length = s.size();
    return nullptr;
  });
}

}  // extern "C"
