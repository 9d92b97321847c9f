/// \file
/// Reading and writing numpy's .npy format.
///
/// Why: test references and user constants come from numpy. Reading accepts format
/// versions 1.0, 2.0 and 3.0, C and Fortran order (Fortran files load as Fortran-strided
/// arrays, no copy), every DType (descr '<f2', '<c16', '|b1', ...) in little or big
/// endian ('>f8' is byteswapped on load). Writing produces version 1.0 (2.0 when the
/// header exceeds 65535 bytes), little endian, header padded to 64 bytes as numpy does;
/// a Fortran-contiguous array is written with fortran_order True, anything else in C order.
///
/// Errors: every malformed input (bad magic, truncated header, unparsable dict,
/// unsupported descr such as 'O' or '<U3', data shorter than the shape needs) throws
/// IOError saying what was expected and what was found; never reads out of bounds.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "theano/runtime/ndarray.h"

namespace theano {

NDArray load_npy(const std::string& path);
void save_npy(const std::string& path, const NDArray& a);
NDArray load_npy_bytes(std::span<const std::byte> bytes);
std::vector<std::byte> save_npy_bytes(const NDArray& a);

/// The descr string numpy writes for this dtype ("<f8", "|b1", "<c8", ...).
std::string npy_descr(DType dtype);

}  // namespace theano
