/// \file
/// AddressSanitizer defaults for codegen_tests only: a small free-memory quarantine.
///
/// Why: the memory-growth test measures resident set size over hundreds of
/// compile/load/destroy cycles. ASan keeps freed blocks in a quarantine (256 MB by
/// default) that fills during such a loop and would read as a 250 MB "leak"; with
/// an 8 MB quarantine the RSS reflects real growth while use-after-free detection
/// still works. Setting it here (rather than in ctest's environment) makes running
/// the binary directly behave the same; ASAN_OPTIONS still overrides it.
#include "codegen/jit_test_util.h"  // THEANO_TESTS_SANITIZED

#ifdef THEANO_TESTS_SANITIZED
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=8"; }
#endif
