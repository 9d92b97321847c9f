// The out-of-line half of error.h's MessageStream: the ostringstream behind
// every error message, kept here so that error.h (included by every user
// translation unit) needs only <iosfwd>.
#include "theano/runtime/error.h"

#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

namespace theano::detail {

MessageStream::MessageStream() : os_(new std::ostringstream) {}
MessageStream::~MessageStream() { delete static_cast<std::ostringstream*>(os_); }

std::ostream& MessageStream::stream() { return *os_; }
std::string MessageStream::str() const { return static_cast<const std::ostringstream*>(os_)->str(); }

MessageStream& MessageStream::operator<<(std::string_view text) {
  *os_ << text;
  return *this;
}
MessageStream& MessageStream::operator<<(char c) {
  *os_ << c;
  return *this;
}
MessageStream& MessageStream::operator<<(double v) {
  *os_ << v;
  return *this;
}
MessageStream& MessageStream::operator<<(long double v) {
  *os_ << v;
  return *this;
}
MessageStream& MessageStream::operator<<(const void* p) {
  *os_ << p;
  return *this;
}
MessageStream& MessageStream::put_signed(long long v) {
  *os_ << v;
  return *this;
}
MessageStream& MessageStream::put_unsigned(unsigned long long v) {
  *os_ << v;
  return *this;
}

}  // namespace theano::detail
