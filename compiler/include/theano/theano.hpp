/// \file
/// The public umbrella header of theano-cpp: everything a user needs to build
/// graphs, compile and call functions, and take gradients (`namespace theano`,
/// tensors in `theano::tensor`, sparse matrices in `theano::sparse`).
///
/// It leaves out what only Op authors and rewrite writers need (the Features of
/// a FunctionGraph, the rewriters and optdb, view_roots, pprint's printer
/// table, clone_get_equiv, stack_search, io_toposort): those are in
/// `theano/extending.hpp`, or include the one header you use. Every header
/// here is included by each user translation unit, so keep it light to compile
/// (bench/build_time.sh measures it): none of <functional>, <map>,
/// <unordered_map>, <variant>, <sstream>, <mutex>, <deque>, <complex> (only
/// declared, runtime/complex_fwd.h); std::function's role is played by
/// theano/function_ref.h, std::map's by graph/small_map.h.
#pragma once

#include "theano/config.h"
#include "theano/compile/function.h"
#include "theano/compile/shared.h"
#include "theano/control/ifelse.h"
#include "theano/control/scan.h"
#include "theano/distributed/collectives.h"
#include "theano/distributed/distributed.h"
#include "theano/fgraph/function_graph.h"
#include "theano/gradient.h"
#include "theano/graph/as_string.h"
#include "theano/graph/basic.h"
#include "theano/graph/clone.h"
#include "theano/graph/equality.h"
#include "theano/graph/op.h"
#include "theano/graph/traversal.h"
#include "theano/graph/type.h"
#include "theano/printing.h"
#include "theano/runtime/dlpack.h"
#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"
#include "theano/runtime/memory_error.h"
#include "theano/runtime/ndarray.h"
#include "theano/runtime/npy.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/axes.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/bn.h"
#include "theano/tensor/conv.h"
#include "theano/tensor/einsum.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/extra_ops.h"
#include "theano/tensor/index.h"
#include "theano/tensor/join.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_eig.h"
#include "theano/tensor/linalg_expm.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/pool.h"
#include "theano/tensor/random.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"
#include "theano/tensor/special.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"
#include "theano/testing.h"
