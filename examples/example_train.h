// What the classifier demos (mlp, lenet) share around their models: the
// opwise linker for a profiled training function, and the accuracy of a
// predict function on labelled data.
#pragma once

#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/runtime/ndarray.h>

#include <cstdint>
#include <optional>

namespace example {

/// While alive, functions compile with the opwise linker (the same generated
/// code, the host calling and timing one node at a time: per-node profiles),
/// unless the user chose a linker in THEANO_FLAGS. FunctionOptions has no
/// linker field, so this sets the flag for the compiles in its scope.
class OpwiseLinker {
 public:
  OpwiseLinker() {
    theano::Config c = theano::config();
    if (!c.flags.contains("linker")) c.flags["linker"] = "opwise";
    guard_.emplace(c);
  }

 private:
  std::optional<theano::ConfigGuard> guard_;
};

/// Percent of the rows of `x` whose predicted class (int64) equals `labels`' (int64).
inline double accuracy(const theano::Function& predict, const theano::NDArray& x, const theano::NDArray& labels) {
  const theano::NDArray guess = predict({x})[0];
  std::int64_t correct = 0;
  for (std::int64_t i = 0; i < labels.size(); ++i)
    correct += guess.data_as<std::int64_t>()[i] == labels.data_as<std::int64_t>()[i];
  return 100.0 * static_cast<double>(correct) / static_cast<double>(labels.size());
}

}  // namespace example
