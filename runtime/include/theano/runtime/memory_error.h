/// \file
/// MemoryError: memory for a result could not be allocated (the sizes were
/// valid, the allocation failed), and the one wording of its message.
///
/// Why one type: out of memory used to surface four ways (a ValueError from
/// generated code, an InternalError wrapping std::bad_alloc under linker=py,
/// raw std::bad_alloc / std::length_error from the sparse conversions and
/// load_npz). Every such path (generated code, NDArray::empty and so
/// `perform`, the sparse conversions, the loaders) now throws this, naming
/// the op or loader, the shape and the bytes asked for. It derives from
/// Error like the types of error.h (kept in its own header so that adding it
/// did not touch the header every file includes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"

namespace theano {

class MemoryError : public Error {
 public:
  using Error::Error;
};

/// "<what>: out of memory: cannot allocate <bytes> bytes for a <dtype> array
/// of shape (..)" (generated code words it the same, without the dtype).
std::string out_of_memory_message(std::string_view what, const std::vector<int64_t>& shape, DType dtype,
                                  std::size_t bytes);

}  // namespace theano
