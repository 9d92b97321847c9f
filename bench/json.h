/// \file
/// A tiny JSON value and writer for the benchmark report (`bench/run --json`).
///
/// Only what the report needs: null, bool, number, string, array and object
/// (keys kept in insertion order, so the file reads like the table). Numbers
/// are written in the shortest form that reads back to the same double (whole
/// numbers below 2^53 as integers);
/// NaN and infinities, which JSON cannot hold, are written as null. Strings
/// are escaped per RFC 8259 (quote, backslash and every control character);
/// other bytes pass through, so the caller gives UTF-8.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace theano::bench {

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool b) : kind_(Kind::Bool), bool_(b) {}
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  Json(T v) : kind_(Kind::Number), number_(static_cast<double>(v)) {}
  Json(std::string s) : kind_(Kind::String), string_(std::move(s)) {}
  Json(const char* s) : kind_(Kind::String), string_(s) {}
  /// null when empty.
  template <class T>
  Json(const std::optional<T>& v) {
    if (v) *this = Json(*v);
  }

  static Json array() {
    Json j;
    j.kind_ = Kind::Array;
    return j;
  }
  static Json object() {
    Json j;
    j.kind_ = Kind::Object;
    return j;
  }
  /// A string, or null when `s` is empty.
  static Json string_or_null(const std::string& s) { return s.empty() ? Json() : Json(s); }

  Kind kind() const { return kind_; }

  /// Appends to an array.
  Json& push(Json v) {
    items_.emplace_back(std::string(), std::move(v));
    return *this;
  }
  /// Adds a member to an object (keys are not checked for duplicates).
  Json& set(std::string key, Json v) {
    items_.emplace_back(std::move(key), std::move(v));
    return *this;
  }

  /// The text; `indent` spaces per level (0: one line).
  std::string dump(int indent = 2) const {
    std::string out;
    write(out, indent, 0);
    out += '\n';
    return out;
  }

  static void escape(std::string& out, const std::string& s) {
    out += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += ch;
          }
      }
    }
    out += '"';
  }

 private:
  void newline(std::string& out, int indent, int depth) const {
    if (indent <= 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * depth), ' ');
  }

  void write(std::string& out, int indent, int depth) const {
    switch (kind_) {
      case Kind::Null: out += "null"; return;
      case Kind::Bool: out += bool_ ? "true" : "false"; return;
      case Kind::Number: {
        if (!std::isfinite(number_)) {
          out += "null";
          return;
        }
        char buf[32];
        // Whole numbers (counts, sizes) as integers; the rest in the shortest
        // form that reads back to the same double.
        const auto r = number_ == std::trunc(number_) && std::abs(number_) < 0x1p53
                           ? std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(number_))
                           : std::to_chars(buf, buf + sizeof buf, number_);
        out.append(buf, r.ptr);
        return;
      }
      case Kind::String: escape(out, string_); return;
      case Kind::Array:
      case Kind::Object: {
        const bool obj = kind_ == Kind::Object;
        out += obj ? '{' : '[';
        if (items_.empty()) {
          out += obj ? '}' : ']';
          return;
        }
        // Arrays of scalars stay on one line (checksums, ...).
        bool flat = !obj;
        for (const auto& [k, v] : items_)
          if (v.kind_ == Kind::Array || v.kind_ == Kind::Object) flat = false;
        for (std::size_t i = 0; i < items_.size(); ++i) {
          if (i) out += flat ? ", " : ",";
          if (!flat) newline(out, indent, depth + 1);
          if (obj) {
            escape(out, items_[i].first);
            out += indent > 0 ? ": " : ":";
          }
          items_[i].second.write(out, indent, depth + 1);
        }
        if (!flat) newline(out, indent, depth);
        out += obj ? '}' : ']';
        return;
      }
    }
  }

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<std::pair<std::string, Json>> items_;  // array items (empty keys) or object members
};

}  // namespace theano::bench
