/// \file
/// Whether an array is one element repeated, byte for byte. The function
/// request's text and the function record write such a constant once, as
/// "fill" and that element (docs/jit-and-cache.md, "Function records"); both
/// ask this one predicate, so they cannot disagree on what a fill is.
#pragma once

#include <cstddef>
#include <cstring>

#include "theano/runtime/ndarray.h"

namespace theano {

/// True when `a` is C-contiguous, has more than one element, and every
/// element's bytes equal the first's (-0.0 is not 0.0, NaNs by their bits).
/// The check: the bytes equal themselves shifted by one element.
inline bool repeats_one_element(const NDArray& a) {
  if (!a.defined() || !a.on_host() || !a.is_c_contiguous()) return false;
  const auto n = static_cast<std::size_t>(a.nbytes()), item = a.itemsize();
  const auto* p = static_cast<const char*>(a.data());
  return n > item && std::memcmp(p, p + item, n - item) == 0;
}

}  // namespace theano
