#pragma once
// Result<T>: a value or an Error. Expected failures (a bad config key, a timed-out call,
// a malformed row) travel as values; exceptions are kept for bugs and are caught once per
// entry point. Plain value type; no thread rules beyond those of T.

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace parley {

struct Error {
  std::string message;  // one line, names the key / file / line where known
};

// The value of a Result that carries no data.
struct Ok {};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->checked(); }
  T& operator*() & { return checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->checked(); }
  T&& operator*() && { return std::move(checked()); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  T& checked() {
    if (!ok()) throw std::logic_error("Result::value() on an error: " + error().message);
    return std::get<T>(state_);
  }
  std::variant<T, Error> state_;
};

}  // namespace parley
