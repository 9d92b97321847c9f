/// \file
/// RandomFunction's shared code (emit/lower/random.cpp), used by its CPU lowering
/// and its GPU one (emit/lower/gpu_random.cpp): the checks and set-up perform runs
/// before sampling, the per-element parameter checks, and the kernels' text.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <theano/tensor/random.h>

#include "../kernel_builder.h"
#include "lowering.h"


namespace theano::codegen::lower {

/// Emits what precedes the element loop, as perform: the state check (x0, a
/// host uint64 vector {seed, counter}), the sample shape (from the size x1 or
/// the parameters' broadcast), each parameter's broadcast to it, with
/// `int64_t shape[]`, the parameters' walk strides `ps0[]` / `ps1[]` (bytes,
/// 0 where broadcast) and `n` (elements) declared; output 0 (the advanced
/// state) written, output 1 allocated (GPU memory for a GPU output); returns
/// early when n == 0; then `uint32_t key[2]`, the call's Philox key (the
/// random kernels are requested in the host translation unit).
void emit_random_prefix(NodeLowering& L);
/// Perform's per-element checks, in its order: (C condition over the
/// parameters `a`, `b` (generic: `p[]`) and the element index `i` that is true when the
/// element is bad, the statement failing the call with perform's message).
std::vector<std::pair<std::string, std::string>> random_checks(const NodeLowering& L);
/// The GPU form of the row distributions (categorical, multinomial,
/// permutation: a parameter with a core axis), one thread a row
/// (emit/lower/gpu_random_rows.cpp).
void lower_gpu_random_rows(NodeLowering& L);
/// The C types `a` and `b` are read as (int64_t or double).
std::pair<std::string, std::string> random_param_types(const NodeLowering& L);
/// theano/runtime/kernels/random_kernels.h, verbatim (the kernels perform runs).
std::string random_kernels_text();

// The distributions after Integers (DistributionSpec::generic): one
// kernel and one rule each in theano/runtime/kernels/random_distributions.h
// (continuous) or random_discrete.h (discrete, and the row samplers).
// Their element code declares `double p[nparams]` (the element's parameters),
// `const char* rv_rule` and `int rv_bad` (random_checks' condition sets them), and
// stores `theano_rv_<name>(&s, p)` from element i's substream.

/// random_distributions.h then random_discrete.h, verbatim (after
/// random_kernels.h in a unit).
std::string random_distributions_text();
/// "f64" / "f32": the instance of theano_rv_categorical(_check)_ for the type of p.
std::string categorical_suffix(const NodeLowering& L);
/// "theano_rv_<name>": the kernel of a generic distribution (its rule: "<kernel>_check").
std::string generic_kernel(const tensor::RandomFunction& op);
/// Declares and reads `double p[]`, parameter k at the byte address `address(k)`.
void emit_generic_params(CodeWriter& w, const NodeLowering& L, const std::function<std::string(int)>& address);
/// Declares `off0..off<np-1>`: the byte offsets of element (or row) `index`'s
/// parameters, from its C-order multi-index over the `nd` extents `extent(d)`
/// and parameter k's byte strides `stride(k, d)` (the GPU kernels and the
/// host re-check of a bad element walk the same way).
void emit_param_offsets(CodeWriter& w, const std::string& index, int nd, int np,
                        const std::function<std::string(int)>& extent,
                        const std::function<std::string(int, int)>& stride);
/// The GPU forms' leading kernel parameters (gpu_random.cpp,
/// gpu_random_rows.cpp), from the host variables emit_random_prefix declares:
/// the count `n` (elements or rows), the `nd`-dimensional batch `shape`
/// (rank at least 1: a 0-d sample walks a shape (1)) and each of the `np`
/// parameters' byte strides `ps<k>` (0 where broadcast).
struct RandomWalkParams {
  cuda::Param n, shape;
  std::vector<cuda::Param> strides;
};
RandomWalkParams random_walk_params(cuda::ParamBlock& pb, int nd, int np);
/// The disjunction of random_checks' conditions ("" when there are none): the
/// device check of a GPU form.
std::string random_bad_condition(const NodeLowering& L);
/// The GPU forms' tail (gpu_random.cpp, gpu_random_rows.cpp): adds kernel `k`
/// (one thread an element or row, `n` of them) to the unit and launches it
/// from the host body, which then returns 0. With `checked`, through
/// emit_device_check on the buffer `err`: for the first bad element (or row)
/// `i` the host declares its parameters' offsets off0.. (emit_param_offsets
/// over the `nd` dimensions of `shape`, strides `ps<k>`, `np` parameters)
/// and runs `recheck`'s statements (perform's rules on downloaded values).
void launch_random_kernel(NodeLowering& L, cuda::ParamBlock& pb, cuda::Kernel& k, const cuda::Param& n,
                          const cuda::Param& err, bool checked, int nd, int np,
                          const std::function<void(CodeWriter&)>& recheck);
/// `value` (a double) converted to the sample's C type as perform's astype does.
std::string generic_store(const NodeLowering& L, const std::string& value);

}  // namespace theano::codegen::lower
