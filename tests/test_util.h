// Shared test helpers: doctest printing of std::vector so failing CHECKs show
// both sides.
#pragma once

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

namespace doctest {
template <class T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& v) {
    std::ostringstream os;
    os << "{";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) os << ", ";
      if constexpr (std::is_same_v<T, std::string>)
        os << '"' << v[i] << '"';
      else if constexpr (std::is_same_v<T, bool>)
        os << (v[i] ? "true" : "false");
      else
        os << StringMaker<T>::convert(v[i]).c_str();
    }
    os << "}";
    return String(os.str().c_str());
  }
};
}  // namespace doctest
