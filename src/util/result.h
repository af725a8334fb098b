// The one error convention of muster.
//
// Anything that touches the outside world (files, processes, sockets, remote nodes, user input) returns
// Result<T>: either a value or an Error. An Error has a Kind, which the CLI layer maps to an exit code,
// and a message written for the user: it names the thing that failed (file:line, host, command) and,
// where possible, what to do about it. Invariants are asserted, never returned as errors.
//
// g++ 12 has no std::expected and Debian 12 packages no tl-expected, so this is a deliberately small
// subset of its interface: has_value/operator bool, value/operator*/operator->, error().
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace muster {

enum class ErrorKind {
  usage,        // the user asked for something malformed (bad flag, bad hostfile): exit 2
  parse,        // input text did not parse; message carries file:line:column
  io,           // a local system call failed
  timeout,      // something did not answer in time
  unreachable,  // a node could not be reached (ssh, dns, connect)
  protocol,     // a peer spoke something other than the agent protocol
  remote,       // a node reported a failure of its own
  unsupported,  // not built yet / not available here
  interrupted,  // the user stopped muster (Ctrl-C) before it finished
  internal,     // a bug in muster
};

const char* error_kind_name(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;
  int sys = 0;  // the errno of a failed system call (src/posix sets it; 0 otherwise), for callers that must tell
                // "missing" from "in the way" from other failures
};

template <typename... Args>
Error make_error(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  return Error{kind, fmt::format(format, std::forward<Args>(args)...)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & {
    assert(has_value());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(has_value());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(has_value());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!has_value());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace muster
