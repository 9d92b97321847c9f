/// \file
/// The scalar table's C expression templates ("({0} + {1})") filled with
/// argument texts: one implementation for Composite (which builds its inner
/// program from them) and the code generator (which emits them).
#pragma once

#include <string>
#include <vector>

namespace theano::tensor {

/// `t` with {0}, {1}, ... replaced by `args` (the arguments are not scanned);
/// InternalError for a malformed template or an index past `args`.
std::string expand_c_template(const std::string& t, const std::vector<std::string>& args);

}  // namespace theano::tensor
