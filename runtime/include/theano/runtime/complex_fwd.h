/// \file
/// A declaration of `std::complex` without its definition.
///
/// Why: dtype.h names std::complex<float> / std::complex<double> (the element
/// types of complex64 / complex128) and is included by every user translation
/// unit, but <complex> brings <sstream> and <cmath> (with its special
/// functions): about a seventh of what a user program's compile parsed
/// (docs: bench/build_time.sh). Public headers only name the type, never use
/// its members, so a declaration is enough; code that computes with complex
/// values includes <complex> itself.
///
/// The standard does not let a program declare std's templates itself, so the
/// declaration is written inside the library's own namespace macros for the
/// two standard libraries we build with (libstdc++, libc++); any other library
/// gets the whole <complex>.
#pragma once

#include <cstddef>  // defines __GLIBCXX__ / _LIBCPP_VERSION

#if defined(__GLIBCXX__)
namespace std _GLIBCXX_VISIBILITY(default) {
_GLIBCXX_BEGIN_NAMESPACE_VERSION
template <typename _Tp>
class complex;
_GLIBCXX_END_NAMESPACE_VERSION
}  // namespace std
#elif defined(_LIBCPP_VERSION)
_LIBCPP_BEGIN_NAMESPACE_STD
template <class _Tp>
class _LIBCPP_TEMPLATE_VIS complex;
_LIBCPP_END_NAMESPACE_STD
#else
#include <complex>
#endif
