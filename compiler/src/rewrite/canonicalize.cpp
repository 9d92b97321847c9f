/// \file
/// The Canonizer (PyTensor's AlgebraCanonizer: local_add_canonizer and
/// local_mul_canonizer) and the registration of the whole algebra family.
///
/// An add/sub/neg tree (or a mul/true_div/reciprocal tree) is flattened into
/// numerator and denominator terms; terms present in both cancel, uniform
/// constants merge into one, and the tree is rebuilt as
/// `(a + b + ... + k) - (z + ...)` or `(k * a * b ...) / (z * ...)`.
///
/// Invariants: it fires only at the root of a tree (a node whose single
/// client is not a node of the same family and dtype), flattens only through
/// nodes of the root's dtype with a single client (shared subexpressions stay
/// shared), keeps the output type and run-time shape exactly (`fit_exact`),
/// is deterministic (terms keep their order of appearance) and idempotent (a
/// tree already in canonical form is left alone, so it cannot cycle). Division
/// is flattened only for float roots; bool and complex roots are left alone.
#include <algorithm>
#include <cmath>
#include <limits>

#include "algebra.h"
#include "theano/graph/equality.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

struct Family {
  const char* main;     // add / mul
  const char* inverse;  // sub / true_div
  const char* unary;    // neg / reciprocal
  bool is_add;
};
constexpr Family kAdd{"add", "sub", "neg", true};
constexpr Family kMul{"mul", "true_div", "reciprocal", false};

DType dtype_of(const Var& v) { return T::tensor_type(v)->dtype(); }

// Whether `node` is an add/sub/neg (mul/true_div/reciprocal) node the root of
// dtype `dt` may flatten through.
bool in_family(const Apply* node, const Family& f, DType dt) {
  if (!node || node->nout() != 1 || !T::tensor_type(node->output(0)) || dtype_of(node->output(0)) != dt) return false;
  if (T::is_elemwise(node, f.main)) return true;
  if (!f.is_add && !is_float(dt)) return false;  // true_div/reciprocal have float outputs only
  return T::is_elemwise(node, f.inverse) || T::is_elemwise(node, f.unary);
}

struct Terms {
  std::vector<Var> num, den;
};

void collect(const FunctionGraph& fg, const Var& v, bool inverted, const Family& f, DType dt, bool root, Terms& t) {
  Apply* n = v.owner();
  if (!in_family(n, f, dt) || (!root && fg.clients(v).size() != 1)) {
    (inverted ? t.den : t.num).push_back(v);
    return;
  }
  if (T::is_elemwise(n, f.main)) {
    for (const Var& in : n->inputs()) collect(fg, in, inverted, f, dt, false, t);
  } else if (T::is_elemwise(n, f.inverse)) {
    collect(fg, n->input(0), inverted, f, dt, false, t);
    collect(fg, n->input(1), !inverted, f, dt, false, t);
  } else {
    collect(fg, n->input(0), !inverted, f, dt, false, t);
  }
}

// Whether `value` is exactly representable in integer dtype `dt`.
bool fits_integer(double value, DType dt) {
  if (value != std::floor(value)) return false;
  switch (dt) {
    case DType::Int8:
      return value >= -128 && value <= 127;
    case DType::Int16:
      return value >= -32768 && value <= 32767;
    case DType::Int32:
      return value >= -2147483648.0 && value <= 2147483647.0;
    case DType::UInt8:
      return value >= 0 && value <= 255;
    case DType::UInt16:
      return value >= 0 && value <= 65535;
    case DType::UInt32:
      return value >= 0 && value <= 4294967295.0;
    default:
      return std::abs(value) <= 9007199254740992.0;  // 2^53: exact in double
  }
}

// op(terms...), nested so that no node has more than kMaxInputs inputs (the
// limit fusion and the kernels keep; re-flattening rebuilds the same nesting).
constexpr std::size_t kMaxInputs = 32;
Var join(const std::vector<Var>& terms, const char* op) {
  if (terms.size() == 1) return terms[0];
  std::size_t i = std::min(terms.size(), kMaxInputs);
  Var acc = T::elemwise(op, std::vector<Var>(terms.begin(), terms.begin() + static_cast<std::ptrdiff_t>(i)));
  while (i < terms.size()) {
    std::vector<Var> chunk{acc};
    for (; i < terms.size() && chunk.size() < kMaxInputs; ++i) chunk.push_back(terms[i]);
    acc = T::elemwise(op, chunk);
  }
  return acc;
}

RewriteResult canonize(FunctionGraph& fg, Apply& node, const Family& f) {
  const Var out = node.output(0);
  const T::TensorType* ot = T::tensor_type(out);
  if (!ot) return RewriteResult::fail("not a tensor");
  const DType dt = ot->dtype();
  if (is_bool(dt) || is_complex(dt)) return RewriteResult::fail("bool and complex trees are left alone");
  if (!in_family(&node, f, dt)) return RewriteResult::fail("mixed dtypes");
  const auto& clients = fg.clients(out);
  if (clients.size() == 1 && !clients[0].is_output() && in_family(clients[0].node, f, dt))
    return RewriteResult::fail("not the root of its tree");

  Terms t;
  collect(fg, out, false, f, dt, true, t);
  std::vector<Var> leaves = t.num;
  leaves.insert(leaves.end(), t.den.begin(), t.den.end());

  // Merge the uniform constants into k.
  double k = f.is_add ? 0.0 : 1.0;
  auto take_constants = [&](std::vector<Var>& terms, bool den) {
    std::vector<Var> rest;
    for (const Var& v : terms) {
      std::optional<double> c = scalar_constant_value(v);
      if (!c) {
        rest.push_back(v);
        continue;
      }
      if (f.is_add)
        k += den ? -*c : *c;
      else
        k = den ? k / *c : k * *c;
    }
    terms = std::move(rest);
  };
  take_constants(t.num, false);
  take_constants(t.den, true);
  if (!is_float(dt) && !fits_integer(k, dt))
    return RewriteResult::fail("the merged constant is not exact in " + std::string(dtype_name(dt)));
  if (!is_float(dt)) {
    for (const Var& v : leaves)
      if (dtype_of(v) != dt && !v.is_constant()) return RewriteResult::fail("integer terms of mixed dtypes");
  }

  // Cancel terms present in both lists (first occurrence each).
  for (auto d = t.den.begin(); d != t.den.end();) {
    auto n = std::find(t.num.begin(), t.num.end(), *d);
    if (n == t.num.end()) {
      ++d;
      continue;
    }
    t.num.erase(n);
    d = t.den.erase(d);
  }

  // In a float tree, integer leaves are converted to the tree's dtype first:
  // the original converts them before adding or multiplying (its nodes have
  // float outputs), while a product or sum of integer terms alone would be
  // computed in integers and wrap: k0 / (k2 / x1) -> (k0 * x1) / k2 with int64
  // k0, x1 near 2^62 overflowed.
  if (is_float(dt)) {
    for (std::vector<Var>* terms : {&t.num, &t.den})
      for (Var& v : *terms)
        if (!is_float(dtype_of(v))) v = T::cast(v, dt);
  }

  // A product whose constants multiply to 0 is 0 (0 absorbs): zeros of the
  // output's dtype and of the broadcast shape of every term, the constants
  // included (`x * zeros(3)` with x of shape (1,) is zeros(3)). As in PyTensor
  // (its mul canonizer and local_mul_specialize), a NaN or inf factor no longer
  // turns the element into NaN: 0 * inf is 0 here.
  if (!f.is_add && k == 0) {
    Var zeros = fit_exact(constant_like(0, out), out, leaves);
    if (!zeros) return RewriteResult::fail("zeros cannot keep the output type " + out.type()->str());
    return zeros;
  }

  const double identity = f.is_add ? 0.0 : 1.0;
  std::vector<Var> num = t.num;
  if (k != identity) {
    if (f.is_add)
      num.push_back(constant_like(k, out));  // x + k
    else
      num.insert(num.begin(), constant_like(k, out));  // k * x
  }
  Var result;
  if (num.empty() && t.den.empty())
    result = constant_like(identity, out);
  else if (t.den.empty())
    result = join(num, f.main);
  else if (num.empty())
    result = T::elemwise(f.unary, {join(t.den, f.main)});
  else
    result = T::elemwise(f.inverse, {join(num, f.main), join(t.den, f.main)});

  Var fitted = fit_exact(result, out, leaves);
  if (!fitted) return RewriteResult::fail("the canonical form cannot keep the output type " + out.type()->str());
  if (equal_computations({fitted}, {out})) return RewriteResult::fail("already canonical");
  return fitted;
}

}  // namespace

// (a + b - a) - c -> b - c; x - x -> zeros; (x + 1) + 2 -> x + 3
NodeRewriterPtr local_add_canonizer() {
  static const NodeRewriterPtr r =
      make_node_rewriter("local_add_canonizer", {"Elemwise:add", "Elemwise:sub", "Elemwise:neg"},
                         "add/sub/neg tree -> (a + b + ... + k) - (z + ...), equal terms cancelled, constants merged",
                         [](FunctionGraph& fg, Apply& node) { return canonize(fg, node, kAdd); });
  return r;
}

// (x * y) / x -> y; x / x -> ones; (2 * x) * 3 -> 6 * x (division only for floats)
NodeRewriterPtr local_mul_canonizer() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_mul_canonizer", {"Elemwise:mul", "Elemwise:true_div", "Elemwise:reciprocal"},
      "mul/true_div/reciprocal tree -> (k * a * b ...) / (z * ...), equal factors cancelled, constants merged",
      [](FunctionGraph& fg, Apply& node) { return canonize(fg, node, kMul); });
  return r;
}

}  // namespace theano::rewrite::detail
