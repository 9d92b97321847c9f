/// \file
/// C templates filled with argument texts: the scalar table's expressions
/// ("({0} + {1})"), which Composite builds its inner program from and the
/// code generator emits, and the code generator's larger code templates (the
/// CUDA kernels), where braces that are not `{<digits>}` are plain text.
#pragma once

#include <string>
#include <vector>

namespace theano::tensor {

/// `t` with {0}, {1}, ... replaced by `args` (the arguments are not scanned;
/// other braces are copied); InternalError for an index past `args`.
std::string expand_c_template(const std::string& t, const std::vector<std::string>& args);

}  // namespace theano::tensor
