/// \file
/// The exception types every layer of theano-cpp throws, and the `THEANO_USER_CHECK` /
/// `THEANO_INTERNAL_CHECK` builders that make a failed precondition read like a sentence.
///
/// Why: users need errors that name the variable, the op and what was expected
/// (docs/architecture.md, "Errors"). A user error (TypeError, ShapeError, ValueError, ...) carries
/// a message written for the person who built the graph; an InternalError says
/// "this is a bug". Generated code never throws: it returns a code and a message
/// that the runtime turns into one of these.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace theano {

/// Base of every exception theano-cpp throws on purpose.
class Error : public std::exception {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  /// Appends a paragraph of context (e.g. the Apply node that failed) while
  /// keeping the exception's dynamic type: catch by reference, add, `throw;`.
  void add_context(const std::string& context) {
    message_ += "\n";
    message_ += context;
  }

 private:
  std::string message_;
};

/// A value or variable has the wrong type (dtype, ndim, Type class).
class TypeError : public Error {
 public:
  using Error::Error;
};
/// A value is of the right type but unacceptable (bad argument, bad option).
class ValueError : public Error {
 public:
  using Error::Error;
};
/// Shapes do not agree (broadcasting, reshape, call-time shape checks).
class ShapeError : public ValueError {
 public:
  using ValueError::ValueError;
};
/// An index is out of range.
class IndexError : public Error {
 public:
  using Error::Error;
};
/// A file could not be read or written, or its contents are malformed.
class IOError : public Error {
 public:
  using Error::Error;
};
/// A graph needs a variable that was not given as an input.
class MissingInputError : public Error {
 public:
  using Error::Error;
};
/// An optional method (grad, infer_shape, perform, ...) is not provided by an op.
class MethodNotDefined : public Error {
 public:
  using Error::Error;
};
/// A FunctionGraph change was refused by a Feature (e.g. DestroyHandler).
class InconsistencyError : public Error {
 public:
  using Error::Error;
};
/// A broken invariant inside theano-cpp itself.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {

/// Collects a message with `<<` and throws `E` when it goes out of scope.
/// Used only through `THEANO_USER_CHECK` / `THEANO_INTERNAL_CHECK`, which construct it when the
/// condition fails, so the streaming cost is paid only on the error path.
template <class E>
class Thrower {
 public:
  explicit Thrower(const char* prefix) { if (prefix) os_ << prefix; }
  Thrower(const Thrower&) = delete;
  Thrower& operator=(const Thrower&) = delete;
  [[noreturn]] ~Thrower() noexcept(false) { throw E(os_.str()); }
  template <class T>
  Thrower& operator<<(T&& v) {
    os_ << std::forward<T>(v);
    return *this;
  }

 private:
  std::ostringstream os_;
};

}  // namespace detail
}  // namespace theano

/// `THEANO_USER_CHECK(cond, TypeError) << "expected ...";` throws TypeError with the
/// streamed message when `cond` is false. (A `while` rather than `if/else`, so
/// the macro nests under an unbraced `if` without a dangling else: the body
/// runs at most once, since the Thrower's destructor throws.)
#define THEANO_USER_CHECK(cond, ErrorType) \
  while (!(cond)) ::theano::detail::Thrower<::theano::ErrorType>(nullptr)

/// `THEANO_INTERNAL_CHECK(cond) << "..."` throws InternalError marked as a bug.
#define THEANO_INTERNAL_CHECK(cond) \
  while (!(cond)) ::theano::detail::Thrower<::theano::InternalError>("internal error (this is a bug in theano-cpp): ")
