// Which device the examples' compiled functions run on (THEANO_FLAGS device:
// cpu, cuda, cuda<N>, auto or emulated; gpu/context.h), printed by each demo,
// and how many of a function's nodes compute on the GPU.
#pragma once

#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gpu/context.h>
#include <theano/gpu/type.h>

#include <cstddef>
#include <string>

namespace example {

/// "device: cpu" or "device: cuda0 (THEANO_FLAGS device)"; ValueError when
/// the flag names a GPU that cannot be used (the reason is in the message).
inline std::string device_line() {
  const std::optional<std::string> ctx = theano::gpu::selected_context();
  return ctx ? "device: " + *ctx + " (THEANO_FLAGS device; " +
                   (*ctx == "emulated" ? std::string("the CUDA kernels run on the host-emulated GPU") :
                                         std::string("the CUDA kernels run on the GPU")) +
                   ")"
             : "device: cpu";
}

/// The nodes of `f` whose outputs are GPU arrays (transfers to the host excluded).
inline std::size_t gpu_nodes(const theano::Function& f) {
  std::size_t n = 0;
  for (const theano::Apply* node : f.fgraph().toposort()) {
    bool gpu = false;
    for (const theano::Var& v : node->outputs()) gpu = gpu || theano::gpu::gpu_type(v) != nullptr;
    n += gpu;
  }
  return n;
}

}  // namespace example
