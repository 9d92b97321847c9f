/// \file
/// THEANO_TESTS_SANITIZED: defined when the test program runs under
/// AddressSanitizer, for the tests that must know (shorter soaks, requests
/// the sanitizer's allocator cannot answer, fork with its locks). One test
/// rule for every test source: the sanitizer tree compiles the test sources
/// themselves without instrumentation (tests/CMakeLists.txt) and says so with
/// THEANO_TEST_SANITIZED_BUILD; a source compiled with -fsanitize=address
/// (the compilers' own macros) counts too.
#pragma once

#if defined(THEANO_TEST_SANITIZED_BUILD) || defined(__SANITIZE_ADDRESS__)
#define THEANO_TESTS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define THEANO_TESTS_SANITIZED 1
#endif
#endif
