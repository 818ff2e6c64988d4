#include "vtensor/base/status.h"

namespace vt {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kIoError: return "IO_ERROR";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

std::string Status::message() const {
  std::string m;
  for (auto it = context_.rbegin(); it != context_.rend(); ++it) m += *it + ": ";
  return m + message_;
}

bool Status::HasContext(std::string_view entry) const {
  for (const std::string& c : context_)
    if (c == entry) return true;
  return false;
}

Status& Status::WithContext(std::string context) & {
  if (!ok()) context_.push_back(std::move(context));
  return *this;
}

Status&& Status::WithContext(std::string context) && {
  if (!ok()) context_.push_back(std::move(context));
  return std::move(*this);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message();
}

Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
Status Unimplemented(std::string msg) { return {StatusCode::kUnimplemented, std::move(msg)}; }
Status OutOfRange(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
Status IoError(std::string msg) { return {StatusCode::kIoError, std::move(msg)}; }
Status FailedPrecondition(std::string msg) { return {StatusCode::kFailedPrecondition, std::move(msg)}; }
Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

}  // namespace vt
