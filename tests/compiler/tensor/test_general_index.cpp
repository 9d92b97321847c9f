// NumPy's indexing rules in full (subtensor/general_index.cpp): a table of
// index expressions mixing integer arrays with slices, newaxis and ellipsis,
// adjacent and not, boolean masks of several ranks and scalars beside arrays,
// against the NumPy fixtures of
// tests/data/general_index/gen_general_index_fixtures.py: values, shapes, set
// (x[idx] = y) and inc (numpy.add.at: repeats accumulate), infer_shape,
// gradients, and the errors for bad indices.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using theano::test::error_of;

namespace {

std::string dir() { return std::string(THEANO_TEST_DATA_DIR) + "/general_index/"; }
NDArray load(const std::string& name) { return load_npy(dir() + name); }

struct Case {
  std::string name, expr;
  int rank = 3;
};

std::vector<Case> cases() {
  std::ifstream in(dir() + "cases.txt");
  REQUIRE(in.good());
  std::vector<Case> r;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto a = line.find('|'), b = line.find('|', a + 1);
    r.push_back({line.substr(0, a), line.substr(b + 1), std::stoi(line.substr(a + 1, b - a - 1))});
  }
  return r;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Bound bound(const std::string& s) { return s.empty() ? Bound() : Bound(static_cast<std::int64_t>(std::stoll(s))); }

/// The case's index variables and values, and its expression as an index list.
struct Parsed {
  std::vector<Index> idx;
  std::vector<Var> vars;
  std::vector<NDArray> values;
};

Parsed parse(const Case& c) {
  Parsed p;
  std::stringstream ss(c.expr);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    tok = trim(tok);
    if (tok == "None") {
      p.idx.emplace_back(newaxis);
    } else if (tok == "...") {
      p.idx.emplace_back(ellipsis);
    } else if (tok[0] == 'I' || tok[0] == 'B') {
      NDArray v = load(c.name + "_" + tok + ".npy");
      if (tok[0] == 'B') v = v.astype(DType::Bool);
      // An integer array broadcasts where its type says 1 (Theano's rule);
      // a mask's shape is left unknown, so its run-time check runs.
      StaticShape st;
      for (std::int64_t d : v.shape()) st.push_back(tok[0] == 'I' && d == 1 ? Dim(1) : Dim());
      const Var var = tensor::tensor(v.dtype(), st, tok);
      p.idx.emplace_back(var);
      p.vars.push_back(var);
      p.values.push_back(v);
    } else if (tok.find(':') != std::string::npos) {
      std::vector<std::string> parts;
      std::stringstream ps(tok);
      std::string part;
      while (std::getline(ps, part, ':')) parts.push_back(part);
      while (parts.size() < 3) parts.emplace_back();
      p.idx.emplace_back(slice(bound(parts[0]), bound(parts[1]), bound(parts[2])));
    } else {
      p.idx.emplace_back(static_cast<std::int64_t>(std::stoll(tok)));
    }
  }
  return p;
}

}  // namespace

TEST_CASE("x[general index] against NumPy: values, shapes, set, inc (repeats accumulate), infer_shape") {
  const std::vector<Case> all_cases = cases();
  CHECK(all_cases.size() >= 20);
  for (const Case& c : all_cases) {
    CAPTURE(c.name);
    CAPTURE(c.expr);
    const NDArray xv = load("x" + std::to_string(c.rank) + ".npy");
    const NDArray want = load(c.name + "_out.npy"), yv = load(c.name + "_y.npy");
    const Var x = tensor::tensor(DType::Float64, StaticShape(static_cast<std::size_t>(c.rank), std::nullopt), "x");
    const Var y = tensor::tensor(DType::Float64, StaticShape(static_cast<std::size_t>(want.ndim()), std::nullopt), "y");
    const Parsed p = parse(c);
    const Var sub = x[p.idx];
    REQUIRE(tensor_type(sub)->ndim() == want.ndim());
    std::vector<Var> ins{x, y};
    ins.insert(ins.end(), p.vars.begin(), p.vars.end());
    std::vector<NDArray> args{xv, yv};
    args.insert(args.end(), p.values.begin(), p.values.end());
    Function f = function(std::vector<In>(ins.begin(), ins.end()),
                          std::vector<Out>{sub, set_subtensor(sub, y), inc_subtensor(sub, y)});
    const std::vector<NDArray> got = f(args);
    CHECK(got[0].shape() == want.shape());
    CHECK(array_equal(got[0], want));
    CHECK(array_equal(got[1], load(c.name + "_set.npy")));
    CHECK(allclose(got[2], load(c.name + "_inc.npy"), 1e-14, 1e-14));
    testing::check_infer_shape(ins, {sub, inc_subtensor(sub, y)}, args);
  }
}

TEST_CASE("x[general index]: the reference linker and DebugMode agree with the generated code") {
  for (const Case& c : cases()) {
    if (c.name != "nonadjacent" && c.name != "mask_and_array" && c.name != "basic_newaxis_int") continue;
    CAPTURE(c.name);
    const NDArray xv = load("x" + std::to_string(c.rank) + ".npy");
    const Var x = tensor::tensor(DType::Float64, StaticShape(static_cast<std::size_t>(c.rank), std::nullopt), "x");
    const Parsed p = parse(c);
    std::vector<Var> ins{x};
    ins.insert(ins.end(), p.vars.begin(), p.vars.end());
    std::vector<NDArray> args{xv};
    args.insert(args.end(), p.values.begin(), p.values.end());
    const Var sub = x[p.idx];
    for (const char* mode : {"debugmode", "fast_compile"}) {
      CAPTURE(mode);
      FunctionOptions o;
      o.mode = mode;
      Function f = function(std::vector<In>(ins.begin(), ins.end()), std::vector<Out>{sub, inc_subtensor(sub, 1.0)}, o);
      const std::vector<NDArray> got = f(args);
      CHECK(array_equal(got[0], load(c.name + "_out.npy")));
    }
  }
}

TEST_CASE("x[general index]: gradients (a scatter through the index) and the IndexExpression marker removed") {
  const NDArray xv = load("x3.npy");
  const NDArray i0 = load("nonadjacent_I0.npy"), i1 = load("nonadjacent_I1.npy");
  const NDArray mask = load("mask_2d_B0.npy").astype(DType::Bool);
  testing::verify_grad([&](const std::vector<Var>& in) { return tanh(in[0][{constant(i0), all, constant(i1)}]); },
                       {xv});
  testing::verify_grad([&](const std::vector<Var>& in) { return in[0][{constant(mask)}] * 2.0; }, {xv});
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return inc_subtensor(in[0][{newaxis, constant(i0), slice(1, 4)}], in[1]); },
      {xv, NDArray::from_list<double>({0.5, -1, 2, 0.25, 1.5, -2}, {6})});
  // The compiled graph holds no IndexExpression (canonicalize removes it).
  const Var x = dtensor3("x");
  Function f = function({x}, x[{slice(1, none), constant(i0), newaxis}]);
  CHECK(debugprint(f).find("IndexExpression") == std::string::npos);
  CHECK(debugprint(x[{slice(1, none), constant(i0), newaxis}]).find("IndexExpression") != std::string::npos);
}

TEST_CASE("x[general index]: bad indices are errors naming the index, the axis and the sizes") {
  const Var x = dtensor3("x");
  const Var m = tensor::tensor(DType::Bool, {std::nullopt, std::nullopt}, "m");
  const Var i = lvector("i"), j = lvector("j");
  const NDArray xv = load("x3.npy");
  // A mask of the wrong shape: checked when the graph is built where the types know the sizes, else at run time.
  CHECK_THROWS_WITH_AS(tensor::tensor(DType::Float64, {4, 5, 6}, "x")[{constant(NDArray::zeros({3}, DType::Bool))}],
                       doctest::Contains("did not match the indexed array along axis 0"), IndexError);
  Function fm = function({x, m}, x[m]);
  CHECK(error_of([&] { fm({xv, NDArray::zeros({4, 4}, DType::Bool)}); })
            .find("the boolean index did not match the indexed array along axis 1: the axis has size 5, the boolean "
                  "index 4") != std::string::npos);
  // A name with braces adds no value place to the message.
  const Var braced = dtensor3("w{}");
  Function fb = function({braced, m}, braced[m]);
  CHECK(error_of([&] { fb({xv, NDArray::zeros({4, 4}, DType::Bool)}); })
            .find("x[...] on w(): the boolean index did not match the indexed array along axis 1: the axis has size 5") !=
        std::string::npos);
  // An array out of range for its own axis, also when the flat position would be in range.
  Function fi = function({x, i, j}, x[{i, all, j}]);
  const std::string e = error_of([&] {
    fi({xv, NDArray::from_list<std::int64_t>({0}, {1}), NDArray::from_list<std::int64_t>({6}, {1})});
  });
  CHECK(e.find("out of bounds for axis 2 with size 6") != std::string::npos);
  CHECK(error_of([&] {
          fi({xv, NDArray::from_list<std::int64_t>({-5}, {1}), NDArray::from_list<std::int64_t>({0}, {1})});
        }).find("out of bounds for axis 0 with size 4") != std::string::npos);
  // Arrays that do not broadcast.
  CHECK(!error_of([&] {
           fi({xv, NDArray::from_list<std::int64_t>({0, 1}, {2}), NDArray::from_list<std::int64_t>({0, 1, 2}, {3})});
         }).empty());
  CHECK_THROWS_WITH_AS((x[{ellipsis, 0, ellipsis}]), doctest::Contains("a single ellipsis"), IndexError);
  CHECK_THROWS_WITH_AS((x[{0, 0, 0, 0}]), doctest::Contains("too many indices"), IndexError);
  CHECK_THROWS_WITH_AS((x[{i, newaxis, 0, 0, 0}]), doctest::Contains("too many indices"), IndexError);
  CHECK_THROWS_WITH_AS((x[{constant(NDArray::scalar<bool>(true))}]), doctest::Contains("0-d boolean"), TypeError);
  CHECK_THROWS_WITH_AS((x[{dvector("f")}]), doctest::Contains("must be an integer scalar, an integer array or a boolean"),
                       TypeError);
}
