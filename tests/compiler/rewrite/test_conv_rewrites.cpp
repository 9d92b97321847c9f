// local_abstractconv_corrmm and local_abstractconv_check (rewrite/conv.cpp):
// each abstract convolution becomes CorrMM / Corr3dMM with the filters (or,
// for the weights' gradient, the result) flipped by a view when filter_flip,
// as graph text before and after, in fast_run and fast_compile; the optimized
// function computes what the abstract ops' perform does; an abstract op left
// over (the rewrite excluded) is an error naming it.
#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/tensor/conv.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace nn = theano::tensor::nnet;

namespace {

std::string optimized(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::string& mode) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query(mode).excluding({"fusion", "inplace"}));
  return debugprint(fg);
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_abstractconv_corrmm: conv2d with and without filter_flip, before and after") {
    const Var x = T::tensor4("x", DType::Float64), w = T::tensor4("W", DType::Float64);
    const Var y = nn::conv2d(x, w, {.border_mode = nn::BorderMode::half(), .subsample = {2, 1}});
    CHECK(debugprint({y}) ==
          "AbstractConv2d{half,(2, 1),True,(1, 1),1} [id A] ''\n"
          " |x [id B]\n"
          " |W [id C]\n");
    CHECK(optimized({x, w}, {y}, "fast_run") ==
          "CorrMM{half,(2, 1),False,(1, 1),1} [id A] ''   1\n"
          " |x [id B]\n"
          " |Subtensor{::, ::, ::-1, ::-1} [id C] ''   0\n"
          "   |W [id D]\n");
    CHECK(optimized({x, w}, {y}, "fast_compile") ==
          "CorrMM{half,(2, 1),False,(1, 1),1} [id A] ''   1\n"
          " |x [id B]\n"
          " |Subtensor{::, ::, ::-1, ::-1} [id C] ''   0\n"
          "   |W [id D]\n");
    const Var z = nn::conv2d(x, w, {.filter_flip = false, .num_groups = 1});
    CHECK(optimized({x, w}, {z}, "fast_run") ==
          "CorrMM{valid,(1, 1),False,(1, 1),1} [id A] ''   0\n"
          " |x [id B]\n"
          " |W [id C]\n");
    // The same as a computation: CorrMM of the flipped view, and the values of the abstract op's perform.
    const T::Index rev(T::slice(T::none, T::none, -1)), all(T::all);
    const OpPtr corr(new nn::CorrMM(nn::ConvDirection::Forward, 2, nn::BorderMode::half(), {2, 1}, {1, 1}, 1, {}, {}));
    check_rewrite({x, w}, {y}, {corr->apply1({x, T::subtensor(w, {all, all, rev, rev})})});
  }

  TEST_CASE("local_abstractconv_corrmm: the gradient ops of conv3d") {
    const Var x = T::tensor(DType::Float64, T::StaticShape(5), "x"), w = T::tensor(DType::Float64, T::StaticShape(5), "W");
    const Var t = T::tensor(DType::Float64, T::StaticShape(5), "top");
    const Var gi = nn::conv3d_grad_wrt_inputs(t, w, T::shape(x), {.border_mode = 1});
    const Var gw = nn::conv3d_grad_wrt_weights(x, t, T::shape(w), {.border_mode = 1});
    CHECK(optimized({x, w, t}, {gi, gw}, "fast_run") ==
          "Corr3dMM_gradInputs{1,(1, 1, 1),False,(1, 1, 1),1} [id A] ''   8\n"
          " |Subtensor{::, ::, ::-1, ::-1, ::-1} [id B] ''   0\n"
          " | |W [id C]\n"
          " |top [id D]\n"
          " |Subtensor{2::} [id E] ''   7\n"
          "   |MakeVector{dtype='int64'} [id F] ''   6\n"
          "     |Shape_i{0} [id G] ''   1\n"
          "     | |x [id H]\n"
          "     |Shape_i{1} [id I] ''   2\n"
          "     | |x [id H]\n"
          "     |Shape_i{2} [id J] ''   3\n"
          "     | |x [id H]\n"
          "     |Shape_i{3} [id K] ''   4\n"
          "     | |x [id H]\n"
          "     |Shape_i{4} [id L] ''   5\n"
          "       |x [id H]\n"
          "Subtensor{::, ::, ::-1, ::-1, ::-1} [id M] ''   17\n"
          " |Corr3dMM_gradWeights{1,(1, 1, 1),False,(1, 1, 1),1} [id N] ''   16\n"
          "   |x [id H]\n"
          "   |top [id D]\n"
          "   |Subtensor{2::} [id O] ''   15\n"
          "     |MakeVector{dtype='int64'} [id P] ''   14\n"
          "       |Shape_i{0} [id Q] ''   9\n"
          "       | |W [id C]\n"
          "       |Shape_i{1} [id R] ''   10\n"
          "       | |W [id C]\n"
          "       |Shape_i{2} [id S] ''   11\n"
          "       | |W [id C]\n"
          "       |Shape_i{3} [id T] ''   12\n"
          "       | |W [id C]\n"
          "       |Shape_i{4} [id U] ''   13\n"
          "         |W [id C]\n");
  }

  TEST_CASE("local_abstractconv_check: an abstract conv left over names the node") {
    const Var x = T::tensor4("x", DType::Float64), w = T::tensor4("W", DType::Float64);
    FunctionGraph fg({x, w}, {nn::conv2d(x, w)});
    CHECK_THROWS_WITH_AS(
        rewrite::optimize(fg, rewrite::mode_query("fast_compile").excluding({"local_abstractconv_corrmm"})),
        doctest::Contains("AbstractConv2d{valid,(1, 1),True,(1, 1),1} computing"), MethodNotDefined);
  }
}
