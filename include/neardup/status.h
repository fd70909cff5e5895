// Copyright neardup authors. Licensed under Apache-2.0.
//
// Status and Result<T>: the one error model of neardup. No exception crosses
// a module boundary; functions that can fail return a [[nodiscard]] Status or
// Result<T>. Codes follow leveldb's Status.
#ifndef NEARDUP_STATUS_H_
#define NEARDUP_STATUS_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace neardup {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound,         // a file, URL or key does not exist
    kCorruption,       // input bytes do not follow their format
    kInvalidArgument,  // a caller's option or argument is wrong
    kIOError,          // the operating system refused a read or write
    kNotSupported,     // a valid input using a feature neardup lacks
    kResourceExhausted,// a configured limit (memory, record size) was hit
    kFailedPrecondition,  // the object is not in a state that allows the call
    kCancelled,        // the caller asked the operation to stop (progress callback)
  };

  // A default-constructed Status is OK. Copying is cheap (message string).
  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status ResourceExhausted(std::string_view msg) {
    return Status(Code::kResourceExhausted, msg);
  }
  static Status FailedPrecondition(std::string_view msg) { return Status(Code::kFailedPrecondition, msg); }
  static Status Cancelled(std::string_view msg) { return Status(Code::kCancelled, msg); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsResourceExhausted() const { return code_ == Code::kResourceExhausted; }
  bool IsFailedPrecondition() const { return code_ == Code::kFailedPrecondition; }
  bool IsCancelled() const { return code_ == Code::kCancelled; }
  // The message alone, without the code name.
  const std::string& message() const { return message_; }
  // "OK" or "<code name>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Result<T> holds either a value or a non-OK Status (stands in for C++23
// std::expected). Accessing value() of an error Result aborts.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) {
      std::fprintf(stderr, "neardup: Result constructed from an OK Status\n");
      std::abort();
    }
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    CheckOk();
    return *value_;
  }
  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  void CheckOk() const {
    if (!status_.ok()) {
      std::fprintf(stderr, "neardup: value() of a failed Result: %s\n",
                   status_.ToString().c_str());
      std::abort();
    }
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace neardup

#define NEARDUP_CONCAT_INNER_(a, b) a##b
#define NEARDUP_CONCAT_(a, b) NEARDUP_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function if `expr` is not OK.
#define NEARDUP_RETURN_IF_ERROR(expr)           \
  do {                                          \
    ::neardup::Status _neardup_st = (expr);     \
    if (!_neardup_st.ok()) return _neardup_st;  \
  } while (0)

// `lhs = value of expr`, or return its Status from the enclosing function.
#define NEARDUP_ASSIGN_OR_RETURN(lhs, expr) \
  NEARDUP_ASSIGN_OR_RETURN_IMPL_(NEARDUP_CONCAT_(_neardup_res_, __LINE__), lhs, expr)
#define NEARDUP_ASSIGN_OR_RETURN_IMPL_(res, lhs, expr) \
  auto res = (expr);                                   \
  if (!res.ok()) return res.status();                  \
  lhs = std::move(res).value()

// Internal invariant: aborts with file and line when `cond` is false, in every
// build type (faiss FAISS_ASSERT). Not for input validation.
#define NEARDUP_CHECK(cond)                                                      \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "neardup: check failed at %s:%d: %s\n", __FILE__,     \
                   __LINE__, #cond);                                             \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

#endif  // NEARDUP_STATUS_H_
