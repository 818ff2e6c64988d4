// Status and Expected<T>: errors are values, never exceptions across the public API.
// A Status carries a code, the message of the place that failed, and a context chain
// (innermost first) that is extended as the error travels up (VT_RETURN_IF_ERROR_CTX /
// WithContext). Adding context never changes the code.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace vt {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // malformed input: model, tensor, attribute, CLI flag
  kNotFound,         // missing file, tensor, initializer
  kUnimplemented,    // op / dtype / feature not supported
  kOutOfRange,       // index or size outside bounds
  kIoError,          // OS-level read/write/map failure
  kFailedPrecondition,
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The whole chain as one line, outermost context first:
  // "<context n>: ... : <context 1>: <original message>".
  std::string message() const;
  // The message of the place that failed, without any context.
  const std::string& original_message() const { return message_; }
  // Context entries, innermost (added first) to outermost.
  const std::vector<std::string>& context() const { return context_; }
  // True when `entry` is one of the context entries (exact match): lets a caller that names
  // a node or file check whether that name was already added instead of adding it twice.
  bool HasContext(std::string_view entry) const;

  // Appends `context` to the chain (it becomes the outermost entry); no-op on OK.
  Status& WithContext(std::string context) &;
  Status&& WithContext(std::string context) &&;

  // "<code name>: <message()>", or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::vector<std::string> context_;
};

Status InvalidArgument(std::string msg);
Status NotFound(std::string msg);
Status Unimplemented(std::string msg);
Status OutOfRange(std::string msg);
Status IoError(std::string msg);
Status FailedPrecondition(std::string msg);
Status Internal(std::string msg);

// Expected<T>: a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}                        // NOLINT
  Expected(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  Status take_status() { return ok() ? Status() : std::move(std::get<Status>(v_)); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace vt

#define VT_CONCAT_INNER(a, b) a##b
#define VT_CONCAT(a, b) VT_CONCAT_INNER(a, b)

#define VT_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::vt::Status _vt_st = (expr);         \
    if (!_vt_st.ok()) return _vt_st;      \
  } while (0)

#define VT_RETURN_IF_ERROR_CTX(expr, ctx)                     \
  do {                                                        \
    ::vt::Status _vt_st = (expr);                             \
    if (!_vt_st.ok()) return std::move(_vt_st).WithContext(ctx); \
  } while (0)
// NOLINTBEGIN(bugprone-macro-parentheses): tmp names a variable, lhs may declare one (auto x).
#define VT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.take_status();       \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
// VT_ASSIGN_OR_RETURN(auto x, FunctionReturningExpected());
#define VT_ASSIGN_OR_RETURN(lhs, expr) \
  VT_ASSIGN_OR_RETURN_IMPL(VT_CONCAT(_vt_exp_, __LINE__), lhs, expr)
