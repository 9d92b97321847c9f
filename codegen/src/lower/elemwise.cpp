// Lowerings of Elemwise (any ScalarOp with a C expression, Composite included)
// and DimShuffle (a view). See lowering.h for the node function protocol.
//
// A Composite's inner values are locals, one `<compute type> t<j>` per inner
// node (Composite::c_program), so the loop body is linear in the inner graph:
// a chain of 10^4 ops nests no brackets, a value used twice is computed once.
// (Not `const`: clang tries to constant-evaluate a const local's initializer,
// recursing through every local it reads, which overflows its stack on long
// chains.)
//
// Elemwise computes in int64 when perform does (integer inputs and output) and
// in double otherwise, then converts to the output dtype, so results match
// perform within floating-point tolerance. Shape rule: a dimension broadcasts
// only where the input's type says size 1 (Theano's rule), checked at run time.
// A contiguous fast path (one flat loop the vectorizer sees) and a strided /
// broadcast path (nested loops, stride 0 where broadcast).
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <functional>

namespace theano::codegen::lower {
namespace {

using tensor::Dim;

/// The compute domain of an Elemwise node, following Elemwise::perform.
enum class Domain { Int, IntViaDouble, Double };

Domain domain_of(const Apply& node, const tensor::ScalarOp& op) {
  bool all_int = true;
  for (int k = 0; k < node.nout(); ++k) all_int = all_int && int_like(ttype(node.output(k)).dtype());
  for (const Var& in : node.inputs()) all_int = all_int && int_like(ttype(in).dtype());
  if (!all_int) return Domain::Double;
  std::vector<std::int64_t> probe(static_cast<std::size_t>(std::max(node.nin(), 2)), 1);
  try {
    if (op.nout() > 1) {
      std::vector<std::int64_t> outs(static_cast<std::size_t>(op.nout()));
      if (!static_cast<const tensor::Composite&>(op).eval_int_all(probe.data(), outs.data())) return Domain::IntViaDouble;
    } else if (!op.eval_int(probe.data())) {
      return Domain::IntViaDouble;
    }
  } catch (const Error&) {
  }
  return Domain::Int;
}

}  // namespace

ElemwiseExprs elemwise_exprs(const Apply& node) {
  const auto& op = static_cast<const tensor::Elemwise&>(*node.op());
  const tensor::ScalarOp& sop = *op.scalar_op();
  const auto* comp = dynamic_cast<const tensor::Composite*>(&sop);
  const int nin = node.nin();
  const Domain dom = domain_of(node, sop);
  ElemwiseExprs r;
  r.compute_type = dom == Domain::Int ? "int64_t" : "double";
  r.ns = dom == Domain::Int ? "theano_i" : "theano_f";
  // The values by template index: a0, a1, ..., then a Composite's locals.
  std::vector<std::string> args;
  for (int i = 0; i < nin; ++i) args.push_back("a" + str(i));
  // Each output's scalar expression over them (n-ary ops fold left, as
  // perform does), converted to its dtype.
  std::vector<std::string> exprs;
  if (comp) {
    const std::optional<tensor::Composite::CProgram> prog = comp->c_program();
    if (!prog) refuse(node, " (an op inside its Composite has no C expression)");
    for (const std::string& t : prog->locals) {
      const std::string name = "t" + str(static_cast<std::int64_t>(r.locals.size()));
      r.locals.push_back(r.compute_type + " " + name + " = " + expand(t, args) + ";");
      args.push_back(name);
    }
    for (const std::string& t : prog->outputs) exprs.push_back(expand(t, args));
  } else {
    const std::string expr_t = sop.c_expr();
    if (expr_t.empty()) refuse(node, " (its scalar op has no C expression)");
    if (sop.name() == "invert" && ttype(node.output(0)).dtype() == DType::Bool && dom == Domain::Int) {
      exprs.push_back("(!" + args[0] + ")");
    } else if (sop.nin() < 0 && nin > 2) {
      std::string expr = args[0];
      for (int i = 1; i < nin; ++i) expr = expand(expr_t, {expr, args[static_cast<std::size_t>(i)]});
      exprs.push_back(expr);
    } else {
      exprs.push_back(expand(expr_t, args));
    }
  }
  for (int k = 0; k < node.nout(); ++k) {
    const DType out_dt = ttype(node.output(k)).dtype();
    r.stores.push_back(std::string("(") + c_type(out_dt) + ")" + (dom == Domain::IntViaDouble ? "(int64_t)" : "") +
                       "(" + exprs[static_cast<std::size_t>(k)] + ")");
  }
  return r;
}

int ElemwiseExprs::cost() const {
  std::vector<std::string> all = locals;
  all.insert(all.end(), stores.begin(), stores.end());
  return expr_cost(all);
}

namespace {

void lower_elemwise(NodeLowering& L) {
  const Apply& node = L.node;
  const auto& op = static_cast<const tensor::Elemwise&>(*node.op());
  const int nd = L.out(0).ndim();
  const int nin = node.nin();
  const int nout = node.nout();
  const ElemwiseExprs ex = elemwise_exprs(node);
  const std::string& ct = ex.compute_type;
  const std::vector<std::string>& stores = ex.stores;
  L.ns = ex.ns;

  CodeWriter& w = L.body;
  w.line("int64_t shape[" + str(std::max(nd, 1)) + "];");
  for (int d = 0; d < nd; ++d) {
    const std::string ds = str(d);
    int decided = -1;
    for (int i = 0; i < nin; ++i) {
      const std::string xi = L.x(i);
      const Dim& s = L.in(i).shape()[static_cast<std::size_t>(d)];
      if (s && *s == 1) {
        w.line("if (" + xi + "->shape[" + ds + "] != 1) " +
               L.fail(kErrShape, "input " + str(i) + " is declared broadcastable (size 1) in dimension " + ds +
                                     " but has another size"));
        continue;
      }
      if (decided < 0) {
        w.line("shape[" + ds + "] = " + xi + "->shape[" + ds + "];");
        decided = i;
        continue;
      }
      w.line("if (" + xi + "->shape[" + ds + "] != shape[" + ds + "]) " +
             L.fail(kErrShape, "shape mismatch at dimension " + ds + " between input " + str(decided) +
                                   " and input " + str(i) + " (only dimensions whose type says size 1 broadcast)"));
    }
    if (decided < 0) w.line("shape[" + ds + "] = 1;");
  }
  w.line("int64_t n = 1;");
  for (int d = 0; d < nd; ++d) w.line("n *= shape[" + str(d) + "];");
  // No __restrict when an output overwrites an input (they alias).
  const bool inplace = !op.inplace_pattern().empty();
  const std::string restrict_kw = inplace ? "" : " __restrict";
  for (int k = 0; k < nout; ++k) {
    const std::string ok = L.o(k);
    for (int d = 0; d < nd; ++d) w.line(ok + "->shape[" + str(d) + "] = shape[" + str(d) + "];");
    if (auto it = op.inplace_pattern().find(k); it != op.inplace_pattern().end()) {
      // Inplace: the output is the destroyed input's buffer (same shape: the
      // inplace rewrite only picks an input that is not broadcast).
      const std::string xd = L.x(it->second);
      for (int d = 0; d < nd; ++d)
        w.line("if (" + xd + "->shape[" + str(d) + "] != shape[" + str(d) + "]) " +
               L.fail(kErrShape, "the input overwritten in place is broadcast in dimension " + str(d)));
      w.line(ok + "->data = " + xd + "->data;");
      w.line(ok + "->owner = " + xd + "->owner;");
      for (int d = 0; d < nd; ++d)
        w.line(ok + "->strides[" + str(d) + "] = " + xd + "->strides[" + str(d) + "];");
    } else {
      w.line(L.alloc(k));
    }
  }
  w.line("if (n == 0) return 0;");
  // Contiguous fast path: every input C-contiguous with the output's shape.
  std::string contiguous = "1";
  for (int i = 0; i < nin; ++i) {
    const std::string xi = L.x(i);
    std::string expect = str(static_cast<std::int64_t>(dtype_size(L.in(i).dtype())));
    for (int d = nd - 1; d >= 0; --d) {
      const std::string ds = str(d);
      contiguous += " && (shape[" + ds + "] == 1 || (" + xi + "->shape[" + ds + "] == shape[" + ds + "] && " + xi +
                    "->strides[" + ds + "] == " + expect + "))";
      expect += " * shape[" + ds + "]";
    }
  }
  // The contiguous loop over [lo, hi): one flat loop the vectorizer sees.
  auto emit_flat = [&](CodeWriter& c, const std::string& lo, const std::string& hi) {
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      c.line("const " + L.in_ctype(i) + "*" + restrict_kw + " p" + is + " = (const " + L.in_ctype(i) + "*)x" + is +
             "->data;");
    }
    for (int k = 0; k < nout; ++k) {
      const std::string ot = L.out_ctype(k);
      c.line(ot + "*" + restrict_kw + " po" + str(k) + " = (" + ot + "*)o" + str(k) + "->data;");
    }
    c.open("for (int64_t k = " + lo + "; k < " + hi + "; ++k)");
    for (int i = 0; i < nin; ++i) c.line(ct + " a" + str(i) + " = (" + ct + ")p" + str(i) + "[k];");
    for (const std::string& local : ex.locals) c.line(local);
    for (int k = 0; k < nout; ++k) c.line("po" + str(k) + "[k] = " + stores[static_cast<std::size_t>(k)] + ";");
    c.close();
  };
  // The strided / broadcast loops (byte strides, 0 where broadcast), the
  // outermost over [lo, hi), the others over the extents `ext(d)`. Not
  // vectorized: gathers rarely pay, and they cost compile time.
  auto emit_strided = [&](CodeWriter& c, const std::string& lo, const std::string& hi,
                          const std::function<std::string(int)>& ext) {
    for (int i = 0; i < nin; ++i)
      for (int d = 0; d < nd; ++d) {
        const Dim& sd = L.in(i).shape()[static_cast<std::size_t>(d)];
        c.line("const int64_t s" + str(i) + "_" + str(d) + " = " +
               ((sd && *sd == 1) ? std::string("0") : L.x(i) + "->strides[" + str(d) + "]") + ";");
      }
    for (int k = 0; k < nout; ++k)
      for (int d = 0; d < nd; ++d)
        c.line("const int64_t so" + str(k) + "_" + str(d) + " = o" + str(k) + "->strides[" + str(d) + "];");
    for (int d = 1; d < nd; ++d) c.line("const int64_t e" + str(d) + " = " + ext(d) + ";");
    for (int d = 0; d < nd; ++d) {
      const std::string ds = str(d);
      if (d == nd - 1) c.line("#pragma clang loop vectorize(disable)");
      c.open(d == 0 ? "for (int64_t i0 = " + lo + "; i0 < " + hi + "; ++i0)"
                    : "for (int64_t i" + ds + " = 0; i" + ds + " < e" + ds + "; ++i" + ds + ")");
    }
    auto offset = [&](const std::string& prefix) {
      std::string o;
      for (int d = 0; d < nd; ++d) o += " + i" + str(d) + " * " + prefix + str(d);
      return o;
    };
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      c.line(ct + " a" + is + " = (" + ct + ")*(const " + L.in_ctype(i) + "*)(x" + is + "->data" +
             offset("s" + is + "_") + ");");
    }
    for (const std::string& local : ex.locals) c.line(local);
    for (int k = 0; k < nout; ++k)
      c.line("*(" + L.out_ctype(k) + "*)(o" + str(k) + "->data" + offset("so" + str(k) + "_") + ") = " +
             stores[static_cast<std::size_t>(k)] + ";");
    for (int d = 0; d < nd; ++d) c.close();
  };

  // Large loops are split across the loop threads (theano_parallel): each
  // loop is then a file-scope part function over a range of its outermost
  // index, reading the node's arrays from a small struct. (Plain functions
  // and a struct cost the -O2 pipeline much less than lambdas.)
  const bool split = worth_optimizing(L) && nd > 0;
  if (!split) {
    w.open("if (" + contiguous + ")");
    emit_flat(w, "0", "n");
    w.line("return 0;");
    w.close();
    if (nd > 0) emit_strided(w, "0", "shape[0]", [](int d) { return "shape[" + str(d) + "]"; });
    w.line("return 0;");
    return;
  }
  const int cost = ex.cost();
  CodeWriter& f = L.file;
  const std::string args_t = L.fn + "_args";
  f.open("struct " + args_t);
  std::string init;
  for (int i = 0; i < nin; ++i) {
    f.line("const TheanoArray* x" + str(i) + ";");
    init += (i ? ", x" : "x") + str(i);
  }
  for (int k = 0; k < nout; ++k) {
    f.line("TheanoArray* o" + str(k) + ";");
    init += (nin + k ? ", o" : "o") + str(k);
  }
  f.close(";");
  auto open_part = [&](const std::string& name) {
    f.open("__attribute__((noinline)) static void " + L.fn + "_" + name +
           "(void* args_, int64_t lo, int64_t hi, int64_t)");
    f.line("const " + args_t + "* args = (const " + args_t + "*)args_;");
    for (int i = 0; i < nin; ++i) f.line("const TheanoArray* x" + str(i) + " = args->x" + str(i) + ";");
    for (int k = 0; k < nout; ++k) f.line("TheanoArray* o" + str(k) + " = args->o" + str(k) + ";");
  };
  open_part("flat");
  emit_flat(f, "lo", "hi");
  f.close();
  open_part("strided");
  emit_strided(f, "lo", "hi", [](int d) { return "o0->shape[" + str(d) + "]"; });
  f.close();
  w.line(args_t + " args = {" + init + "};");
  w.open("if (" + contiguous + ")");
  w.line("theano_parallel(ctx, n, " + str(min_part_elements(cost)) + ", &" + L.fn + "_flat, &args);");
  w.line("return 0;");
  w.close();
  w.line("theano_parallel(ctx, shape[0], " + min_part_expr(cost, "n / shape[0]") + ", &" + L.fn +
         "_strided, &args);");
  w.line("return 0;");
}

void lower_dimshuffle(NodeLowering& L) {
  L.cold = true;
  const auto& op = static_cast<const tensor::DimShuffle&>(*L.node.op());
  const int ind = op.input_ndim();
  const std::vector<int>& order = op.new_order();
  CodeWriter& w = L.body;
  for (int a = 0; a < ind; ++a) {
    if (std::find(order.begin(), order.end(), a) != order.end()) continue;
    w.line("if (x0->shape[" + str(a) + "] != 1) " +
           L.fail(kErrShape, "dimension " + str(a) + " must have size 1 to be dropped"));
  }
  w.line("o0->data = x0->data;");
  w.line("o0->owner = x0->owner;");
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string is = str(static_cast<std::int64_t>(i));
    if (order[i] == tensor::kNewAxis) {
      w.line("o0->shape[" + is + "] = 1;");
      w.line("o0->strides[" + is + "] = 0;");
    } else {
      const std::string as = str(order[i]);
      w.line("o0->shape[" + is + "] = x0->shape[" + as + "];");
      w.line("o0->strides[" + is + "] = x0->strides[" + as + "];");
    }
  }
  w.line("return 0;");
}

}  // namespace

void add_elemwise_lowerings(LoweringTable& t) {
  t[typeid(tensor::Elemwise)] = &lower_elemwise;
  t[typeid(tensor::DimShuffle)] = &lower_dimshuffle;
}

}  // namespace theano::codegen::lower
