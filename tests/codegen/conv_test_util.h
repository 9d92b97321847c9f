// What the convolution tests of codegen_tests share (test_lower_conv.cpp,
// test_cuda_conv.cpp): the forward output's spatial size by the tests' own
// arithmetic, not by the rule under test (kernels/conv.h).
#pragma once

#include <theano/tensor/conv.h>

#include <cstdint>

namespace theano::test {

/// Theano's output length of one spatial axis: input `in`, kernel `k`,
/// stride `s`, dilation `d`, the border mode's padding (an explicit one
/// taken from its first entry).
inline std::int64_t conv_out_size(const tensor::nnet::BorderMode& b, std::int64_t in, std::int64_t k, std::int64_t s,
                                  std::int64_t d) {
  using Kind = tensor::nnet::BorderMode::Kind;
  const std::int64_t span = d * (k - 1) + 1;
  const std::int64_t pad = b.kind == Kind::Full    ? span - 1
                           : b.kind == Kind::Half  ? span / 2
                           : b.kind == Kind::Valid ? 0
                                                   : b.pad[0];
  return (in + 2 * pad - span) / s + 1;
}

}  // namespace theano::test
