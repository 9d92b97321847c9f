/// \file
/// Why the sparse ops lack some parts, stated once for the op registry
/// (graph/op_registry.h; private to compiler/src/sparse).
#pragma once

#include <string_view>

namespace theano::sparse {

/// The graph ops (sparse/ops.h) never run as such.
inline constexpr std::string_view kExpanded = "replaced by sparse_expand's component ops before linking, in every mode";
/// The component ops (sparse/components.h) appear only after gradients.
inline constexpr std::string_view kAfterGrad =
    "made by sparse_expand after gradients are taken: the graph ops (sparse/ops.h) carry the structured gradients";
/// Neither has a device form.
inline constexpr std::string_view kHostKernels =
    "sparse kernels run on the host; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)";

}  // namespace theano::sparse
