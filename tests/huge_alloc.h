/// \file
/// kSkipHugeAllocations: whether tests that ask for an allocation of terabytes
/// (to see a MemoryError) must skip. Under AddressSanitizer such a request
/// ends the process ("requested allocation size exceeds maximum supported
/// size") instead of failing the allocation, so there is nothing to observe.
#pragma once

namespace theano::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSkipHugeAllocations = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSkipHugeAllocations = true;
#else
inline constexpr bool kSkipHugeAllocations = false;
#endif
#else
inline constexpr bool kSkipHugeAllocations = false;
#endif

}  // namespace theano::test
