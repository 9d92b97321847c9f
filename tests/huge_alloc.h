/// \file
/// kSkipHugeAllocations: whether tests that ask for an allocation of terabytes
/// (to see a MemoryError) must skip. Under AddressSanitizer such a request
/// ends the process ("requested allocation size exceeds maximum supported
/// size") instead of failing the allocation, so there is nothing to observe.
#pragma once

#include "sanitized.h"

namespace theano::test {

#ifdef THEANO_TESTS_SANITIZED
inline constexpr bool kSkipHugeAllocations = true;
#else
inline constexpr bool kSkipHugeAllocations = false;
#endif

}  // namespace theano::test
