// Helpers shared by the printers (debugprint, pprint, Graphviz); not installed.
#pragma once

#include <string>
#include <string_view>

#include "theano/graph/basic.h"

namespace theano::printing_detail {

/// Whether `v` is a shared variable of the compile layer.
bool is_shared(const Var& v);

/// `s` without trailing blanks.
std::string rstrip(std::string s);

/// Python's `str()` of a ViewMap (`{0: [0]}`), as debugprint shows destroy/view maps.
std::string view_map_text(const ViewMap& m);

/// numpy's `str()` of an array (`[1. 2.]`), derived from NDArray::str (its repr).
std::string numpy_str(const NDArray& a);

/// The value of a constant as numpy's `str()` prints it (`2.0`, `[1 2]`).
std::string constant_value_text(const Constant& c);

/// Writes DOT text to `path`: as text for .dot/.gv, else rendered by Graphviz.
void write_dot(const std::string& path, const std::string& text);

}  // namespace theano::printing_detail
