// The generated code of index_ops.h's ops (Nonzero: output sized at run time;
// SearchSorted) and of the graphs built on them (unique, bincount, boolean
// masks and NumPy's general indexing with its set / inc forms), checked
// against perform (which tests/compiler/tensor/test_index_ops.cpp and
// test_general_index.cpp check against NumPy) with no perform fallback, on
// contiguous and strided inputs, and the same errors.
#include <doctest/doctest.h>

#include <theano/theano.hpp>

#include "lowering_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_CASE("Nonzero and SearchSorted: generated code agrees with perform, also strided, errors alike") {
  std::mt19937_64 rng(38);
  const Var x = any_tensor(DType::Float64, 3, "x");
  const NDArray xv = random_array(rng, {3, 4, 5}, DType::Float64, -1, 2);  // integers -1, 0, 1
  const Var b = any_tensor(DType::Bool, 2, "b");
  check_sets({x, b}, {stack(nonzero(x)), flatnonzero(x), argwhere(x), flatnonzero(b)},
             {{xv, NDArray::zeros({2, 3}, DType::Bool)},
              {NDArray::zeros({3, 0, 2}), random_array(rng, {4, 4}, DType::Int64, 0, 2).astype(DType::Bool)}});
  const Var a = dvector("a"), v = dmatrix("v"), s = lvector("s");
  NDArray av = random_array(rng, {9}, DType::Float64, -3, 3);
  const NDArray sorted = function({a}, sort(a))({av})[0];
  const NDArray vv = random_array(rng, {3, 4}, DType::Float64, -4, 4);
  check_lowering({a, v, s}, {searchsorted(a, v), searchsorted(a, v, "right"), searchsorted(a, v, "left", s)},
                 {sorted, vv, function({a}, argsort(a))({av})[0]});
  const Var f = fvector("f"), fv = fvector("fv");
  check_lowering({f, fv}, {searchsorted(f, fv, "right")},
                 {NDArray::from_list<float>({0, 1, 1, 2}, {4}), NDArray::from_list<float>({1, -1, 3}, {3})});
  check_error<ValueError>({a, v, s}, {searchsorted(a, v, "left", s)},
                          {sorted, vv, ivec({0, 1, 2, 3, 4, 5, 6, 7, 9})}, "SearchSorted",
                          "sorter[8] = 9 is out of range for a of length 9");
}

TEST_CASE("unique, bincount, compress, choose: generated code agrees with perform") {
  std::mt19937_64 rng(380);
  const Var u = any_tensor(DType::Int64, 2, "u");
  const NDArray uv = random_array(rng, {5, 6}, DType::Int64, 0, 5);
  check_lowering({u}, unique(u, true, true, true), {uv});
  const Var rows = tensor::tensor(DType::Int64, {std::nullopt, 2}, "rows");
  check_lowering({rows}, unique(rows, true, true, true, 0), {random_array(rng, {7, 2}, DType::Int64, 0, 2)});
  const Var i = lvector("i"), w = dvector("w");
  check_lowering({i, w}, {bincount(i), bincount(i, w, 9)},
                 {random_array(rng, {20}, DType::Int64, 0, 6), random_array(rng, {20}, DType::Float64, -1, 1)});
  const Var c = any_tensor(DType::Bool, 1, "c"), m = dmatrix("m");
  check_lowering({c, m}, {compress(c, m, 1)},
                 {ivec({1, 0, 1}).astype(DType::Bool), random_array(rng, {3, 4}, DType::Float64, -1, 1)});
  const Var k = lmatrix("k");
  check_lowering({k, m}, {choose(k, {m, m * 2.0, 1.5}, "clip")},
                 {random_array(rng, {3, 4}, DType::Int64, -1, 4), random_array(rng, {3, 4}, DType::Float64, -1, 1)});
}

TEST_CASE("general indexing and boolean masks: generated code agrees with perform, with set and inc") {
  std::mt19937_64 rng(3838);
  const Var x = any_tensor(DType::Float64, 3, "x");
  const NDArray xv = random_array(rng, {4, 5, 6}, DType::Float64, -1, 1);
  const Var i = lvector("i"), j = lvector("j");
  const Var mask = any_tensor(DType::Bool, 2, "mask");
  const NDArray iv = ivec({1, -1, 3}), jv = ivec({0, 5, 5}), mv = random_array(rng, {4, 5}, DType::Int64, 0, 2).astype(DType::Bool);
  const Var na = x[{i, all, j}];         // non-adjacent: the broadcast axis first
  const Var nx = x[{newaxis, slice(1, none), i, 2}];  // newaxis, a slice, adjacent array and scalar
  const Var bm = x[mask];               // a 2-d mask over the leading axes
  const Var bl = x[{ellipsis, constant(NDArray::from_list<bool>({true, false, true, true, false, true}, {6}))}];
  check_lowering({x, i, j, mask},
                 {na, nx, bm, bl, set_subtensor(na, 1.5), inc_subtensor(na, x[{0, slice(0, 5), 0}]),
                  inc_subtensor(bm, 2.0), set_subtensor(nx, -1.0)},
                 {xv, iv, jv, mv});
  check_error<AssertionError>({x, i, j}, {na}, {xv, ivec({0}), ivec({6})}, "Assert", "out of bounds for axis 2 with size 6");
}
