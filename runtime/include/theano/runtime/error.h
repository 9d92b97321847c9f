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

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

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

/// The text of an error message, built with `<<` as with an ostringstream and
/// formatted exactly as one would (its stream lives in error.cpp, so this
/// header needs only <iosfwd>: every user translation unit includes it).
/// Text, characters, numbers and pointers have their own overloads; any other
/// value goes to the stream through its `operator<<(std::ostream&, const T&)`,
/// which needs only a declaration of std::ostream where it is used.
class MessageStream {
 public:
  MessageStream();
  ~MessageStream();
  MessageStream(const MessageStream&) = delete;
  MessageStream& operator=(const MessageStream&) = delete;

  MessageStream& operator<<(std::string_view text);
  MessageStream& operator<<(const char* text) { return *this << std::string_view(text ? text : "(null)"); }
  MessageStream& operator<<(const std::string& text) { return *this << std::string_view(text); }
  MessageStream& operator<<(char c);
  MessageStream& operator<<(signed char c) { return *this << static_cast<char>(c); }
  MessageStream& operator<<(unsigned char c) { return *this << static_cast<char>(c); }
  MessageStream& operator<<(double v);
  MessageStream& operator<<(float v) { return *this << static_cast<double>(v); }
  MessageStream& operator<<(long double v);
  MessageStream& operator<<(const void* p);
  /// bool prints as 0/1 and integers in decimal, as an ostream does by default.
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, signed char> &&
             !std::is_same_v<T, unsigned char>)
  MessageStream& operator<<(T v) {
    if constexpr (std::is_signed_v<T>) return put_signed(static_cast<long long>(v));
    else return put_unsigned(static_cast<unsigned long long>(v));
  }
  template <class T>
    requires(!std::is_arithmetic_v<T> && !std::is_convertible_v<const T&, std::string_view> &&
             !std::is_pointer_v<T>)
  MessageStream& operator<<(const T& v) {
    stream() << v;
    return *this;
  }
  /// Pointers other than text print as addresses.
  template <class T>
    requires(!std::is_same_v<std::remove_cv_t<T>, char>)
  MessageStream& operator<<(T* p) {
    return *this << static_cast<const void*>(p);
  }

  /// The stream behind the builder, for values with their own operator<<.
  std::ostream& stream();
  std::string str() const;

 private:
  MessageStream& put_signed(long long v);
  MessageStream& put_unsigned(unsigned long long v);
  std::ostream* os_;  // an ostringstream owned by this builder (error.cpp)
};

/// Collects a message with `<<` and throws `E` when it goes out of scope.
/// Used only through `THEANO_USER_CHECK` / `THEANO_INTERNAL_CHECK`, which construct it when the
/// condition fails, so the streaming cost is paid only on the error path.
template <class E>
class Thrower {
 public:
  explicit Thrower(const char* prefix) { if (prefix) message_ << std::string_view(prefix); }
  Thrower(const Thrower&) = delete;
  Thrower& operator=(const Thrower&) = delete;
  [[noreturn]] ~Thrower() noexcept(false) { throw E(message_.str()); }
  template <class T>
  Thrower& operator<<(const T& v) {
    message_ << v;
    return *this;
  }
  Thrower& operator<<(const char* text) {
    message_ << text;
    return *this;
  }

 private:
  MessageStream message_;
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
