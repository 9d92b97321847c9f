// The one doctest main shared by every suite. Test binaries run without a
// compile cache unless THEANO_FLAGS says otherwise (ctest passes
// compiledir=off too): results must not depend on what earlier runs left on
// disk, and tests that want a compiledir set their own.
//
// A run given a test-case filter that matches no test case fails: ctest
// runs each case by name (doctest_discover_tests), and a name the discovery
// mangles (it splits names at ';') would otherwise pass without running.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace {

std::atomic<int> g_cases_run{0};

/// Counts the test cases that start (doctest's reporters see every event).
struct CaseCounter : doctest::IReporter {
  explicit CaseCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++g_cases_run; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("case_counter", 1, CaseCounter);

int main(int argc, char** argv) {
  ::setenv("THEANO_FLAGS", "compiledir=off", /*overwrite=*/0);
  bool filtered = false, query = false;
  for (int i = 1; i < argc; ++i) {
    filtered = filtered || std::strncmp(argv[i], "--test-case=", 12) == 0 || std::strncmp(argv[i], "-tc=", 4) == 0;
    query = query || std::strncmp(argv[i], "--list", 6) == 0 || std::strncmp(argv[i], "-l", 2) == 0 ||
            std::strncmp(argv[i], "--count", 7) == 0 || std::strncmp(argv[i], "--help", 6) == 0;
  }
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (rc == 0 && filtered && !query && g_cases_run.load() == 0) {
    std::cerr << "no test case matches the --test-case filter (a name with ';' cannot be run by ctest: doctest's "
                 "discovery splits it)\n";
    return 1;
  }
  return rc;
}
