// VtStatus, element types and the version (include/vtensor/vtensor_c.h).
#include "api/c/c_status.h"

#include "vtensor/layout/dtype.h"

namespace vt::capi {
namespace {

VtStatus g_out_of_memory{VT_OUT_OF_MEMORY, "out of memory (the status could not be allocated)"};

VtStatusCode CodeOf(StatusCode c) {
  switch (c) {
    case StatusCode::kOk: return VT_OK;
    case StatusCode::kInvalidArgument: return VT_INVALID_ARGUMENT;
    case StatusCode::kNotFound: return VT_NOT_FOUND;
    case StatusCode::kUnimplemented: return VT_UNIMPLEMENTED;
    case StatusCode::kOutOfRange: return VT_OUT_OF_RANGE;
    case StatusCode::kIoError: return VT_IO_ERROR;
    case StatusCode::kFailedPrecondition: return VT_FAILED_PRECONDITION;
    case StatusCode::kInternal: return VT_INTERNAL;
  }
  return VT_INTERNAL;
}

}  // namespace

VtStatus* OutOfMemoryStatus() noexcept { return &g_out_of_memory; }

VtStatus* MakeStatus(VtStatusCode code, const std::string& message) noexcept {
  try {
    return new VtStatus{code, message};
  } catch (...) {
    return OutOfMemoryStatus();
  }
}

VtStatus* FromStatus(const char* fn, const Status& st) noexcept {
  try {
    return MakeStatus(CodeOf(st.code()), std::string(fn) + ": " + st.message());
  } catch (...) {
    return OutOfMemoryStatus();
  }
}

VtStatus* Invalid(const char* fn, const std::string& msg) noexcept {
  try {
    return MakeStatus(VT_INVALID_ARGUMENT, std::string(fn) + ": " + msg);
  } catch (...) {
    return OutOfMemoryStatus();
  }
}

}  // namespace vt::capi

extern "C" {

VtStatusCode VtStatusGetCode(const VtStatus* status) { return status ? status->code : VT_OK; }

const char* VtStatusGetMessage(const VtStatus* status) {
  return status ? status->message.c_str() : "";
}

void VtStatusRelease(VtStatus* status) {
  if (status != vt::capi::OutOfMemoryStatus()) delete status;
}

const char* VtStatusCodeName(VtStatusCode code) {
  switch (code) {
    case VT_OK: return "OK";
    case VT_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case VT_NOT_FOUND: return "NOT_FOUND";
    case VT_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case VT_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case VT_IO_ERROR: return "IO_ERROR";
    case VT_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case VT_INTERNAL: return "INTERNAL";
    case VT_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
  }
  return "UNKNOWN";
}

const char* VtVersion(void) { return VTENSOR_VERSION; }

size_t VtDTypeSize(VtDType dtype) {
  if (dtype == VT_STRING || !vt::IsKnownDType(static_cast<int32_t>(dtype))) return 0;
  return vt::DTypeSize(static_cast<vt::DType>(dtype));
}

const char* VtDTypeName(VtDType dtype) {
  if (!vt::IsKnownDType(static_cast<int32_t>(dtype))) return "undefined";
  return vt::DTypeName(static_cast<vt::DType>(dtype));
}

}  // extern "C"
