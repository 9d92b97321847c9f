// The one doctest main shared by every suite. Test binaries run without a
// compile cache unless THEANO_FLAGS says otherwise (ctest passes
// compiledir=off too): results must not depend on what earlier runs left on
// disk, and tests that want a compiledir set their own.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  ::setenv("THEANO_FLAGS", "compiledir=off", /*overwrite=*/0);
  return doctest::Context(argc, argv).run();
}
