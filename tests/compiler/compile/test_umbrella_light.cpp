// theano/theano.hpp stays light to compile (issue 34; bench/build_time.sh
// measures it): it must not bring in the heavy standard headers, and what
// replaced them (FunctionRef for std::function, a declared-only std::complex,
// error messages streamed without <sstream>) must still serve a user program.
// Checked through libstdc++'s include guards, so theano.hpp comes first here.
#include <theano/theano.hpp>

#if defined(__GLIBCXX__)
#if defined(_GLIBCXX_FUNCTIONAL) || defined(_GLIBCXX_UNORDERED_MAP) || defined(_GLIBCXX_UNORDERED_SET) || \
    defined(_GLIBCXX_MAP) || defined(_GLIBCXX_VARIANT) || defined(_GLIBCXX_SSTREAM) || defined(_GLIBCXX_MUTEX) ||  \
    defined(_GLIBCXX_DEQUE) || defined(_GLIBCXX_COMPLEX)
#error "theano/theano.hpp brings in a heavy standard header (see the list in its header comment)"
#endif
#endif

#include <doctest/doctest.h>

#include <complex>
#include <ostream>
#include <string>
#include <vector>

namespace {

struct Celsius {
  double degrees;
};
std::ostream& operator<<(std::ostream& os, const Celsius& c) { return os << c.degrees << " C"; }

}  // namespace

TEST_CASE("the one-function program through the light umbrella header") {
  namespace T = theano::tensor;
  auto x = T::dvector("x");
  theano::Function f = theano::function({x}, x * 2.0);
  const theano::NDArray r = f(theano::NDArray::from_vector(std::vector<double>{1, 2, 3}, {3}));
  CHECK(r.at<double>({2}) == 6.0);
}

TEST_CASE("a complex element read with item<T> once the user includes <complex>") {
  const theano::NDArray c = theano::NDArray::scalar(std::complex<double>(1.5, -2.0));
  CHECK(c.item<std::complex<double>>() == std::complex<double>(1.5, -2.0));
  CHECK(c.item<double>() == 1.5);  // numpy's unsafe cast keeps the real part
  CHECK(c.item<std::complex<float>>() == std::complex<float>(1.5f, -2.0f));
  CHECK(theano::NDArray::scalar(std::int8_t{-3}).item<std::complex<double>>() == std::complex<double>(-3, 0));
}

TEST_CASE("error messages stream numbers, text, pointers and user types as an ostringstream would") {
  const int* p = nullptr;
  const std::string name = "w";
  try {
    THEANO_USER_CHECK(false, ValueError)
        << "shared " << name << ": " << 3 << " of " << 4u << ", " << -7LL << ", " << 0.5 << ", " << 1e-300 << ", "
        << 2.5f << ", " << true << ", " << 'c' << ", " << static_cast<unsigned char>('d') << ", " << p << ", "
        << Celsius{21.5} << ", " << theano::DType::Float32;
    FAIL("THEANO_USER_CHECK did not throw");
  } catch (const theano::ValueError& e) {
    CHECK(std::string(e.what()) == "shared w: 3 of 4, -7, 0.5, 1e-300, 2.5, 1, c, d, 0, 21.5 C, float32");
  }
  CHECK_THROWS_WITH_AS([] { THEANO_INTERNAL_CHECK(1 + 1 == 3) << "arithmetic"; }(),
                       "internal error (this is a bug in theano-cpp): arithmetic", theano::InternalError);
}
