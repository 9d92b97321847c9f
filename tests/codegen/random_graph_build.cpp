// The graph builder of the random-graph generator (random_graph_build.h): the
// inputs, one build_step per Program step (random_graph_step.cpp), the outputs
// and the gradient.
#include "codegen/random_graph_build.h"

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gradient.h>
#include <theano/graph/toposort.h>
#include <theano/printing.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <theano/theano.hpp>

namespace theano::fuzz::detail {

using namespace theano::tensor;

namespace {

const char* const kKindNames[kKinds] = {"unary",     "unary",  "unary",     "binary",         "binary",
                                        "binary",    "switch", "transpose", "reduce",         "reduce_all",
                                        "slice",     "index",  "join",      "reshape",        "dot",
                                        "softmax",   "cast",   "argmax",    "advanced_index", "newaxis",
                                        "alloc",     "arange", "eye",       "split",          "set_inc_subtensor",
                                        "int_arith", "shape_i",   "cast_f32",       "scan",
                                        "ifelse_chain"};

}  // namespace

Built build(const Program& p, CheckStats* stats) {
  Built r;
  std::vector<Entry> pool;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    StaticShape st;
    for (std::size_t d = 0; d < in.shape.size(); ++d)
      st.push_back(in.declared[d] ? Dim(in.shape[d]) : Dim(std::nullopt));
    Var v = tensor::tensor(in.dtype, st, "x" + std::to_string(i));
    r.inputs.push_back(v);
    pool.push_back({v, in.shape, false, false, std::nullopt});
    if (in.dtype == DType::Float32) r.any_float32 = true;
  }
  for (std::size_t i = 0; i < p.sizes.size(); ++i) {
    Var k = tensor::tensor(DType::Int64, {}, "k" + std::to_string(i));
    r.inputs.push_back(k);
    pool.push_back({k, {}, false, false, p.sizes[i]});
  }
  const std::size_t n_inputs = pool.size();

  for (const Step& s : p.steps) {
    Entry out = build_step(s, pool);
    if (!out.v || !tensor_type(out.v) || out.v.ndim() > 3) continue;
    if (!out.poison && static_cast<std::size_t>(out.v.ndim()) != out.shape.size()) continue;  // oracle disagrees
    if (out.poison) out.shape.resize(static_cast<std::size_t>(out.v.ndim()), 1);
    // An empty result with a huge dimension whose strides no longer fit (a
    // cast to a wider dtype, a join): both linkers must refuse it.
    if (!element_count(out.shape, dtype_size(dtype_of(out.v)))) out.poison = true;
    if (dtype_of(out.v) == DType::Float32) r.any_float32 = true;
    if (stats) {
      ++stats->steps_built;
      ++stats->built[std::string(kKindNames[s.kind % kKinds]) + (out.poison ? "(bad)" : "")];
    }
    pool.push_back(std::move(out));
  }
  if (pool.size() == n_inputs) {
    // Nothing was built: the output is the first input doubled.
    Entry e = pool[0];
    if (dtype_of(e.v) == DType::Bool) e.v = cast(e.v, DType::Int8);
    e.v = e.v + e.v;
    pool.push_back(e);
  }
  const Entry& last = pool.back();
  r.outputs.push_back(last.v);
  r.fuzzy.push_back(last.fuzzy);
  if (pool.size() > n_inputs + 2) {
    const Entry& other = pool[n_inputs + p.out_pick % (pool.size() - n_inputs)];
    r.outputs.push_back(other.v);
    r.fuzzy.push_back(other.fuzzy);
  }
  // The gradient graph's intermediates are not followed by the oracle: with a
  // huge (empty) dimension anywhere, a reduction in it could be a terabyte
  // array of zeros (sum over the empty axis of a (2^37, 0) array), so no
  // gradient there.
  bool huge = false;
  for (const Entry& e : pool)
    if (!e.poison)
      for (std::int64_t d : e.shape) huge = huge || d > kMaxElements;
  if (p.grad && !huge) {
    std::vector<Var> terms, wrt;
    for (const Var& o : r.outputs)
      if (is_float(dtype_of(o))) terms.push_back(cast(o, DType::Float64).sum());
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      if (is_float(p.inputs[i].dtype)) wrt.push_back(r.inputs[i]);
    if (!terms.empty() && !wrt.empty()) {
      try {
        GradOptions go;
        go.disconnected_inputs = DisconnectedInputs::Ignore;
        const std::vector<Var> g = grad(terms.size() == 1 ? terms[0] : add(terms), wrt, go);
        for (const Var& x : g) {
          r.outputs.push_back(x);
          r.fuzzy.push_back(true);
          ++r.n_grads;
        }
      } catch (const Error&) {
      }
    }
  }
  return r;
}

// Input values ---------------------------------------------------------------

}  // namespace theano::fuzz::detail
