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
#include <functional>
#include <limits>
#include <type_traits>

#include "lowering.h"
#include "random_code.h"

namespace theano::codegen::lower {

namespace {

std::string param_name(const tensor::RandomFunction& op, int k) {
  return std::string(tensor::distribution_spec(op.distribution()).params[static_cast<std::size_t>(k)]);
}

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
  const tensor::DistributionSpec& spec = tensor::distribution_spec(op.distribution());
  if (spec.generic || spec.core[0] > 0 || spec.core[1] > 0) {
    L.need("random_distributions", kernel_text("random_distributions.h"));
    L.need("random_discrete", kernel_text("random_discrete.h"));
  }
  // Parameter k's batch rank (its core axes, categorical's categories, left out).
  auto batch_nd = [&](int k) { return L.in(2 + k).ndim() - spec.core[static_cast<std::size_t>(k)]; };
  const int np = op.nparams();
  // The batch rank (a sample core axis, multinomial's or permutation's last, left out).
  const int nd = L.out(1).ndim() - (spec.sample_core ? 1 : 0);
  std::string names;  // "low and high", as perform words it
  for (int k = 0; k < np; ++k) names += (k == 0 ? "" : k + 1 == np ? " and " : ", ") + param_name(op, k);
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
    for (int k = 0; k < np; ++k) {
      const std::string xk = L.x(2 + k);
      const int pnd = batch_nd(k);
      for (int d = 0; d < pnd; ++d) {
        const std::string od = str(nd - pnd + d);
        w.open("");
        w.line("const int64_t v = " + xk + "->shape[" + str(d) + "];");
        w.line("if (v != 1 && shape[" + od + "] != 1 && shape[" + od + "] != v) " +
               L.fail(kErrShape, "parameters " + names + " do not broadcast together"));
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
  for (int k = 0; k < np; ++k) {
    const std::string xk = L.x(2 + k);
    const int pnd = batch_nd(k);
    const std::string ks = str(k);
    const int core = spec.core[static_cast<std::size_t>(k)];
    if (core == 0) {
      emit_broadcast_to_check(L, 2 + k, "shape", nd, false, "parameter " + param_name(op, k));
    } else {
      // The target: the sample shape, then the parameter's own core axes.
      const std::string t = "target" + ks;
      w.line("int64_t " + t + "[" + str(nd + core) + "];");
      for (int d = 0; d < nd; ++d) w.line(t + "[" + str(d) + "] = shape[" + str(d) + "];");
      for (int c = 0; c < core; ++c)
        w.line(t + "[" + str(nd + c) + "] = " + xk + "->shape[" + str(pnd + c) + "];");
      emit_broadcast_to_check(L, 2 + k, t, nd + core, false, "parameter " + param_name(op, k));
    }
    w.line("int64_t ps" + ks + "[" + nds + "];");
    for (int d = 0; d < nd; ++d) {
      const int pd = d - (nd - pnd);
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
  // A sample core axis: the core parameter's last axis.
  if (spec.sample_core) {
    const int cp = spec.core[0] > 0 ? 0 : 1;
    w.line("o1->shape[" + str(nd) + "] = " + L.x(2 + cp) + "->shape[" + str(L.in(2 + cp).ndim() - 1) + "];");
  }
  const int full = L.out(1).ndim();
  // The sample's size by the rule perform uses too (shape_rules.h), checked
  // before the state advances.
  w.line("int64_t n = 0, bad = 0;");
  w.line("const int rule = theano_shape_size(o1->shape, " + str(full) + ", " +
         str(static_cast<std::int64_t>(dtype_size(L.out(1).dtype()))) + ", &n, &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "invalid size: ", "bad"));
  // With a sample core axis of length k, n counts the rows (none when k = 0).
  if (spec.sample_core) w.line("n = o1->shape[" + str(nd) + "] == 0 ? 0 : n / o1->shape[" + str(nd) + "];");
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
  if (tensor::distribution_spec(op.distribution()).generic) {
    // The kernel file's rule over `p[]` (its failed rule in `rv_rule`), worded
    // by theano_rv_message as perform words it.
    const int np = op.nparams();
    std::string names;
    for (int k = 0; k < np; ++k) names += (k ? ", " : "") + c_string(param_name(op, k));
    c.emplace_back("(rv_bad = " + generic_kernel(op) + "_check(p, &rv_rule)) != 0",
                   "{ static const char* const names[" + str(np) + "] = {" + names +
                       "}; char msg[1024]; theano_rv_message(msg, 1024, " + c_string(L.label + ": ") +
                       ", names[rv_bad - 1], i, p[rv_bad - 1], rv_rule); return theano_fail(ctx, " + str(kErrValue) +
                       ", msg, all, " + str(L.nin()) + "); }");
    return c;
  }
  if (op.distribution() == tensor::Distribution::Multinomial) {
    // n's rule over `p[0]`, then the categorical row rule over p's row.
    c.emplace_back("(rv_bad = theano_rv_multinomial_check(p, &rv_rule)) != 0",
                   "{ char msg[1024]; theano_rv_message(msg, 1024, " + c_string(L.label + ": ") +
                       ", \"n\", i, p[0], rv_rule); return theano_fail(ctx, " + str(kErrValue) + ", msg, all, " +
                       str(L.nin()) + "); }");
  }
  if (op.distribution() == tensor::Distribution::Permutation) return c;
  if (op.distribution() == tensor::Distribution::Categorical ||
      op.distribution() == tensor::Distribution::Multinomial) {
    // The row rule over the element's row `rv_row` of `rv_k` weights, `rv_stride` apart.
    c.emplace_back("theano_rv_categorical_check_" + categorical_suffix(L) +
                       "(rv_row, rv_k, rv_stride, &rv_j, &rv_v, &rv_rule)",
                   "{ char msg[1024]; theano_rv_message_at(msg, 1024, " + c_string(L.label + ": ") +
                       ", \"p\", i, rv_j, rv_v, rv_rule); return theano_fail(ctx, " + str(kErrValue) + ", msg, all, " +
                       str(L.nin()) + "); }");
    return c;
  }
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
    default: {
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

std::string random_distributions_text() {
  return std::string(kernel_text("random_distributions.h")) + std::string(kernel_text("random_discrete.h"));
}

std::string categorical_suffix(const NodeLowering& L) {
  // (the weights: categorical's input 2, multinomial's input 3)
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const int w = op.distribution() == tensor::Distribution::Multinomial ? 3 : 2;
  return L.in(w).dtype() == DType::Float32 ? "f32" : "f64";
}

std::string generic_kernel(const tensor::RandomFunction& op) {
  return "theano_rv_" + std::string(tensor::distribution_name(op.distribution()));
}

void emit_generic_params(CodeWriter& w, const NodeLowering& L, const std::function<std::string(int)>& address) {
  const int np = static_cast<const tensor::RandomFunction&>(L.op).nparams();
  w.line("double p[" + str(np) + "];");
  for (int k = 0; k < np; ++k)
    w.line("p[" + str(k) + "] = (double)*(const " + L.in_ctype(2 + k) + "*)(" + address(k) + ");");
}

void emit_param_offsets(CodeWriter& w, const std::string& index, int nd, int np,
                        const std::function<std::string(int)>& extent,
                        const std::function<std::string(int, int)>& stride) {
  std::string offs;
  for (int k = 0; k < np; ++k) offs += ", off" + str(k) + " = 0";
  w.line("int64_t r = " + index + offs + ";");
  for (int d = nd - 1; d >= 0; --d) {
    const std::string e = extent(d);
    std::string adds;
    for (int k = 0; k < np; ++k) adds += " off" + str(k) + " += c * " + stride(k, d) + ";";
    w.line("{ const int64_t c = r % " + e + "; r /= " + e + ";" + adds + " }");
  }
  w.line("(void)r;");
}

std::string generic_store(const NodeLowering& L, const std::string& value) {
  const DType dt = L.out(1).dtype();
  if (dt == DType::Int64) return "theano_f2i64(" + value + ")";  // astype's conversion (NaN -> INT64_MIN)
  return "(" + std::string(c_type(dt)) + ")" + value;
}

namespace {

void lower_random(NodeLowering& L) {
  const auto& op = static_cast<const tensor::RandomFunction&>(*L.node.op());
  const tensor::Distribution dist = op.distribution();
  const bool sample_core = tensor::distribution_spec(dist).sample_core;
  const int nd = L.out(1).ndim() - (sample_core ? 1 : 0);  // the batch rank
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
  const int np = op.nparams();
  const bool generic = tensor::distribution_spec(dist).generic;
  w.line("int64_t idx[" + nds + "] = {0};");
  std::string offs;
  for (int k = 0; k < np; ++k) offs += (k ? ", off" : "off") + str(k) + " = 0";
  w.line("int64_t " + offs + ";");
  if (generic) w.line("const char* rv_rule = 0;");
  if (generic) w.line("int rv_bad = 0;");
  w.open("for (int64_t i = 0; i < n; ++i)");
  const bool categorical = dist == tensor::Distribution::Categorical;
  const bool multinomial = dist == tensor::Distribution::Multinomial;
  if (multinomial) {
    // n as p[0] (its rule's argument), the row of weights of p (input 3).
    const std::string last = str(L.in(3).ndim() - 1);
    w.line("double p[1];");
    w.line("p[0] = (double)*(const " + L.in_ctype(2) + "*)(x2->data + off0);");
    w.line("const char* rv_row = x3->data + off1;");
    w.line("const int64_t rv_k = x3->shape[" + last + "], rv_stride = x3->strides[" + last + "];");
    w.line("int64_t rv_j = 0;");
    w.line("double rv_v = 0;");
    w.line("const char* rv_rule = 0;");
    w.line("int rv_bad = 0;");
  } else if (categorical) {
    const std::string last = str(L.in(2).ndim() - 1);
    w.line("const char* rv_row = x2->data + off0;");
    w.line("const int64_t rv_k = x2->shape[" + last + "], rv_stride = x2->strides[" + last + "];");
    w.line("int64_t rv_j = 0;");
    w.line("double rv_v = 0;");
    w.line("const char* rv_rule = 0;");
  } else if (generic) {
    emit_generic_params(w, L, [&](int k) { return L.x(2 + k) + "->data + off" + str(k); });
  } else if (dist == tensor::Distribution::Permutation) {
    // (x's values are not read: only its last axis's length)
  } else {
    w.line("const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)(x2->data + off0);");
    w.line("const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)(x3->data + off1);");
  }
  for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
  if (multinomial) {
    // The row's k counts, one conditional binomial each, stored in order.
    const std::string suf = categorical_suffix(L);
    w.line("TheanoSubStream s;");
    w.line("theano_sub_init(&s, key, (uint64_t)i);");
    w.line("TheanoRvMultinomial m;");
    w.line("theano_rv_multinomial_init_" + suf + "(&m, p[0], rv_row, rv_k, rv_stride);");
    w.line("for (int64_t j = 0; j < rv_k; ++j) po[i * rv_k + j] = " +
           generic_store(L, "theano_rv_multinomial_next_" + suf + "(&m, &s, rv_row, j, rv_stride)") + ";");
  } else if (dist == tensor::Distribution::Permutation) {
    // The row's k indices, shuffled in place in the (int64) output.
    w.line("const int64_t rv_k = o1->shape[" + str(nd) + "];");
    w.line("TheanoSubStream s;");
    w.line("theano_sub_init(&s, key, (uint64_t)i);");
    w.line("theano_rv_permutation(&s, (char*)(po + i * rv_k), rv_k, (int64_t)sizeof(int64_t));");
  } else if (generic || categorical) {
    w.line("TheanoSubStream s;");
    w.line("theano_sub_init(&s, key, (uint64_t)i);");
    const std::string draw = categorical ? "theano_rv_categorical_" + categorical_suffix(L) +
                                               "(&s, rv_row, rv_k, rv_stride)"
                                         : generic_kernel(op) + "(&s, p)";
    w.line("po[i] = " + generic_store(L, draw) + ";");
  } else switch (dist) {
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
    default:
      THEANO_INTERNAL_CHECK(false) << L.label << ": no sampler";
  }
  // Advance the multi-index and the parameter offsets.
  for (int d = nd - 1; d >= 0; --d) {
    const std::string ds = str(d);
    std::string step, back;
    for (int k = 0; k < np; ++k) {
      const std::string ks = str(k);
      step += (k ? " off" : "off") + ks + " += ps" + ks + "[" + ds + "];";
      back += (k ? " off" : "off") + ks + " -= (shape[" + ds + "] - 1) * ps" + ks + "[" + ds + "];";
    }
    w.line("if (++idx[" + ds + "] < shape[" + ds + "]) { " + step + " continue; }");
    w.line(back + " idx[" + ds + "] = 0;");
  }
  w.close();
  w.line("(void)idx;");
  w.line("return 0;");
}

}  // namespace

void add_random_lowerings(LoweringTable& t) { t.add<tensor::RandomFunction>(Target::Cpu, &lower_random); }

}  // namespace theano::codegen::lower
