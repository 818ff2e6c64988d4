// Internal to the C API (include/vtensor/vtensor_c.h): status objects and the guard every
// entry point runs its body in, so that no C++ exception crosses the C boundary.
#pragma once

#include <new>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/vtensor_c.h"

struct VtStatus {
  VtStatusCode code;
  std::string message;
};

namespace vt::capi {

// A new status (the caller of the C function frees it). Never throws: when the status itself
// cannot be allocated, a static out-of-memory status (which VtStatusRelease leaves alone) is
// returned instead.
VtStatus* MakeStatus(VtStatusCode code, const std::string& message) noexcept;
// `st` (not OK) as a status whose message starts with the C function's name.
VtStatus* FromStatus(const char* fn, const Status& st) noexcept;
// VT_INVALID_ARGUMENT "fn: msg".
VtStatus* Invalid(const char* fn, const std::string& msg) noexcept;
// The static status returned when even a status cannot be allocated.
VtStatus* OutOfMemoryStatus() noexcept;

// Runs `body` (returning VtStatus*), turning any exception into a status: std::bad_alloc into
// VT_OUT_OF_MEMORY, anything else into VT_INTERNAL naming `fn`.
template <typename F>
VtStatus* Guard(const char* fn, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return MakeStatus(VT_OUT_OF_MEMORY, std::string(fn) + ": out of memory");
  } catch (const std::exception& e) {
    return MakeStatus(VT_INTERNAL, std::string(fn) + ": unexpected exception: " + e.what());
  } catch (...) {
    return MakeStatus(VT_INTERNAL, std::string(fn) + ": unexpected exception");
  }
}

}  // namespace vt::capi
