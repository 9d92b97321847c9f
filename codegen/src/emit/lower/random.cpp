// Lowering of RandomFunction (uniform, normal, binomial, integers): the stream
// of theano/tensor/random.h reproduced in generated code (see lowering.h for the
// node function protocol).
//
// The kernels are theano/runtime/kernels/random_kernels.h, the very text perform
// includes (embedded by CMake): Philox4x32-10, the per-call key, the dense
// word layout (uniform, normal) and the per-element substreams (binomial:
// inversion / BTRS; integers: Lemire's method), with FMA contraction off, so
// uniform, integers and binomial give perform's values bit for bit and normal
// agrees to the last ulp of sin/cos/log (libm's on both sides).
//
// The node checks what perform checks, in the same order: the state length
// (ValueError), the size entries (ValueError) or the parameters' broadcast
// (ShapeError), each parameter's broadcast to the size (ShapeError), then the
// per-element parameter values (ValueError, the first bad element first). The
// parameters are walked with a multi-index (stride 0 where broadcast) in the
// sample's C order, which is the element order of the stream.
#include <theano/runtime/error.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include <complex>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "lowering.h"
#include "random_code.h"

namespace theano::codegen::lower {

namespace {

const char* const kParamNames[4][2] = {{"low", "high"}, {"avg", "std"}, {"n", "p"}, {"low", "high"}};

/// A double literal that reads back as exactly `v`.
std::string double_literal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

/// The smallest and largest values of integer dtype `d`, as doubles (perform's check).
std::pair<double, double> int_range(DType d) {
  std::pair<double, double> r{0.0, 0.0};
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      r = {static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max())};
  });
  return r;
}

}  // namespace

void emit_random_prefix(NodeLowering& L) {
  L.need("random_kernels", kernel_text("random_kernels.h"));  // the call's key (and the CPU's draws)
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const tensor::Distribution dist = op.distribution();
  const int di = static_cast<int>(dist);
  const int nd = L.out(1).ndim();
  const int pnd[2] = {L.in(2).ndim(), L.in(3).ndim()};
  const std::string nds = str(std::max(nd, 1));

  CodeWriter& w = L.body;
  // The state.
  w.line("if (x0->shape[0] != 2) " +
         L.fail_int(kErrValue, "the state must hold {seed, counter} (2 uint64 values), got a vector of length ",
                    "x0->shape[0]"));
  w.line("const uint64_t seed = *(const uint64_t*)x0->data;");
  w.line("const uint64_t counter = *(const uint64_t*)(x0->data + x0->strides[0]);");
  // The sample shape.
  w.line("int64_t shape[" + nds + "];");
  if (op.size_from_params()) {
    for (int d = 0; d < nd; ++d) w.line("shape[" + str(d) + "] = 1;");
    for (int k = 0; k < 2; ++k) {
      const std::string xk = L.x(2 + k);
      for (int d = 0; d < pnd[k]; ++d) {
        const std::string od = str(nd - pnd[k] + d);
        w.open("");
        w.line("const int64_t v = " + xk + "->shape[" + str(d) + "];");
        w.line("if (v != 1 && shape[" + od + "] != 1 && shape[" + od + "] != v) " +
               L.fail(kErrShape, std::string("parameters ") + kParamNames[di][0] + " and " + kParamNames[di][1] +
                                     " do not broadcast together"));
        w.line("if (v != 1) shape[" + od + "] = v;");
        w.close();
      }
    }
  } else {
    w.line(
        "if (x1->shape[0] != " + str(nd) + ") " +
        L.fail_int(kErrValue, "the size must have " + str(nd) + " entries (the sample's rank), got ", "x1->shape[0]"));
    const std::string zt = L.in_ctype(1);
    for (int d = 0; d < nd; ++d) {
      const std::string ds = str(d);
      w.line("shape[" + ds + "] = (int64_t)*(const " + zt + "*)(x1->data + " + ds + " * x1->strides[0]);");
      w.line("if (shape[" + ds + "] < 0) " +
             L.fail_int(kErrValue, "the size has a negative entry ", "shape[" + ds + "]"));
    }
  }
  // Each parameter broadcasts to the shape (numpy's rule, as perform checks
  // it); its walk strides (0 where broadcast).
  for (int k = 0; k < 2; ++k) {
    const std::string xk = L.x(2 + k);
    emit_broadcast_to_check(L, 2 + k, "shape", nd, false, std::string("parameter ") + kParamNames[di][k]);
    const std::string ks = str(k);
    w.line("int64_t ps" + ks + "[" + nds + "];");
    for (int d = 0; d < nd; ++d) {
      const int pd = d - (nd - pnd[k]);
      const std::string ds = str(d);
      if (pd < 0) {
        w.line("ps" + ks + "[" + ds + "] = 0;");
        continue;
      }
      const std::string ps = xk + "->shape[" + str(pd) + "]";
      w.line("ps" + ks + "[" + ds + "] = " + ps + " == 1 ? 0 : " + xk + "->strides[" + str(pd) + "];");
    }
  }
  for (int d = 0; d < nd; ++d) w.line("o1->shape[" + str(d) + "] = shape[" + str(d) + "];");
  // The sample's size by the rule perform uses too (shape_rules.h), checked
  // before the state advances.
  w.line("int64_t n = 0, bad = 0;");
  w.line("const int rule = theano_shape_size(o1->shape, " + str(nd) + ", " +
         str(static_cast<std::int64_t>(dtype_size(L.out(1).dtype()))) + ", &n, &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "invalid size: ", "bad"));
  // Outputs: the advanced state and the sample.
  if (op.inplace()) {
    // The advanced state overwrites the input state (destroy_map {0: [0]}).
    w.line("o0->data = x0->data;");
    w.line("o0->owner = x0->owner;");
    w.line("o0->shape[0] = 2;");
    w.line("o0->strides[0] = x0->strides[0];");
    w.line("*(uint64_t*)(o0->data + o0->strides[0]) = counter + 1;");
  } else {
    w.line("o0->shape[0] = 2;");
    w.line(L.alloc(0));
    w.line("((uint64_t*)o0->data)[0] = seed;");
    w.line("((uint64_t*)o0->data)[1] = counter + 1;");
  }
  w.line(L.alloc(1));
  w.line("if (n == 0) return 0;");
  w.line("uint32_t key[2];");
  w.line("theano_philox_call_key(seed, counter, key);");
}

std::vector<std::pair<std::string, std::string>> random_checks(const NodeLowering& L) {
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const DType out_dt = L.out(1).dtype();
  std::vector<std::pair<std::string, std::string>> c;
  switch (op.distribution()) {
    case tensor::Distribution::Uniform:
      break;
    case tensor::Distribution::Normal:
      c.emplace_back("!(b >= 0)", L.fail_int(kErrValue, "std must be >= 0; element ", "i", " is negative or NaN"));
      break;
    case tensor::Distribution::Binomial:
      c.emplace_back("a < 0", L.fail_int(kErrValue, "n must be >= 0, got ", "a"));
      c.emplace_back("!(b >= 0 && b <= 1)", L.fail_int(kErrValue, "p must be in [0, 1]; element ", "i", " is not"));
      break;
    case tensor::Distribution::Integers: {
      const auto [dmin, dmax] = int_range(out_dt);
      c.emplace_back("!(a < b)", L.fail_int(kErrValue, "low must be < high; element ", "i", " is not"));
      c.emplace_back("!((double)a >= " + double_literal(dmin) + " && (double)b - 1 <= " + double_literal(dmax) + ")",
                     L.fail_int(kErrValue, "the range [low, high) of element ", "i",
                                " does not fit dtype " + std::string(dtype_name(out_dt))));
      break;
    }
  }
  return c;
}

std::pair<std::string, std::string> random_param_types(const NodeLowering& L) {
  const tensor::Distribution dist = static_cast<const tensor::RandomFunction&>(L.op).distribution();
  const bool int_p0 = dist == tensor::Distribution::Integers || dist == tensor::Distribution::Binomial;
  const bool int_p1 = dist == tensor::Distribution::Integers;
  return {int_p0 ? "int64_t" : "double", int_p1 ? "int64_t" : "double"};
}

std::string random_kernels_text() { return std::string(kernel_text("random_kernels.h")); }

namespace {

void lower_random(NodeLowering& L) {
  const auto& op = static_cast<const tensor::RandomFunction&>(*L.node.op());
  const tensor::Distribution dist = op.distribution();
  const int nd = L.out(1).ndim();
  const DType out_dt = L.out(1).dtype();
  const std::string ot = c_type(out_dt);
  const std::string nds = str(std::max(nd, 1));
  emit_random_prefix(L);
  CodeWriter& w = L.body;
  w.line(ot + "* __restrict po = (" + ot + "*)o1->data;");

  // The element loop: i in C order, the parameters' byte offsets alongside.
  const auto [t0, t1] = random_param_types(L);
  const std::string single = out_dt == DType::Float64 ? "0" : "1";
  if (dist == tensor::Distribution::Uniform || dist == tensor::Distribution::Normal) {
    w.line("TheanoDenseWords dw;");
    w.line("theano_dense_init(&dw, key);");
  }
  if (dist == tensor::Distribution::Normal) w.line("double radius = 0, theta = 0;");
  w.line("int64_t idx[" + nds + "] = {0};");
  w.line("int64_t off0 = 0, off1 = 0;");
  w.open("for (int64_t i = 0; i < n; ++i)");
  w.line("const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)(x2->data + off0);");
  w.line("const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)(x3->data + off1);");
  for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
  switch (dist) {
    case tensor::Distribution::Uniform:
      w.line("po[i] = (" + ot + ")theano_uniform_one(&dw, i, a, b, " + single + ");");
      break;
    case tensor::Distribution::Normal:
      // A pair (2j, 2j + 1) shares its two uniforms; even i computes it.
      w.line("if ((i & 1) == 0) theano_normal_pair(&dw, i, " + single + ", &radius, &theta);");
      w.line("po[i] = (" + ot + ")theano_normal_one(a, b, radius, theta, (i & 1) != 0);");
      break;
    case tensor::Distribution::Binomial:
      w.line("TheanoSubStream s;");
      w.line("theano_sub_init(&s, key, (uint64_t)i);");
      w.line("po[i] = (" + ot + ")theano_binomial_one(&s, a, b);");
      break;
    case tensor::Distribution::Integers:
      w.line("TheanoSubStream s;");
      w.line("theano_sub_init(&s, key, (uint64_t)i);");
      w.line("po[i] = (" + ot + ")theano_integers_one(&s, a, b);");
      break;
  }
  // Advance the multi-index and the parameter offsets.
  for (int d = nd - 1; d >= 0; --d) {
    const std::string ds = str(d);
    w.line("if (++idx[" + ds + "] < shape[" + ds + "]) { off0 += ps0[" + ds + "]; off1 += ps1[" + ds +
           "]; continue; }");
    w.line("off0 -= (shape[" + ds + "] - 1) * ps0[" + ds + "]; off1 -= (shape[" + ds + "] - 1) * ps1[" + ds +
           "]; idx[" + ds + "] = 0;");
  }
  w.close();
  w.line("(void)idx;");
  w.line("return 0;");
}

}  // namespace

void add_random_lowerings(LoweringTable& t) { t.add<tensor::RandomFunction>(Target::Cpu, &lower_random); }

}  // namespace theano::codegen::lower
