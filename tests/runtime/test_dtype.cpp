// DType names, sizes, kinds, and numpy's promotion / casting rules (spot checks
// against numpy.promote_types and numpy.can_cast, values taken from numpy 2.x).
#include <doctest/doctest.h>

#include <sstream>

#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"

using namespace theano;

TEST_CASE("dtype names round trip") {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    CHECK(dtype_from_name(dtype_name(d)) == d);
  }
  CHECK(dtype_name(DType::Float64) == "float64");
  CHECK(dtype_name(DType::Bool) == "bool");
  CHECK(dtype_name(DType::Complex128) == "complex128");
  std::ostringstream os;
  os << DType::UInt16;
  CHECK(os.str() == "uint16");
}
