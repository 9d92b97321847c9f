// Lowerings of Elemwise (any ScalarOp with a C expression, Composite included)
// and DimShuffle (a view). See lowering.h for the node function protocol; the
// loop body's expressions (locals, stores, helpers) come from
// elemwise_exprs.cpp. Shape rule: a dimension broadcasts only where the
// input's type says size 1 (Theano's rule), checked at run time by
// theano_broadcast_rule (shape_rules.h), the function perform calls.
// A node compiles one loop the vectorizer sees: the flat loop, or, when an
// input is broadcast by its type, the row loop; operands outside its layout
// are copied into contiguous scratch arrays first (docs/jit-and-cache.md,
// "Loop variants"). Small nodes keep an inline flat loop and a strided /
// broadcast one (nested loops, stride 0 where broadcast).
#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <functional>

#include "lowering.h"
#include "parallel_part.h"

namespace theano::codegen::lower {

using tensor::Dim;

std::string emit_loop_args(CodeWriter& f, const std::string& args_t, int nin, int nout) {
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
  return init;
}

void emit_elemwise_shape(NodeLowering& L, int nd) {
  const int nin = L.nin();
  CodeWriter& w = L.body;
  // The output shape by the broadcasting rule perform uses (shape_rules.h).
  w.line("int64_t shape[" + str(std::max(nd, 1)) + "];");
  if (nd > 0) {
    std::string shapes, declared;
    for (int i = 0; i < nin; ++i) {
      shapes += (i ? ", " : "") + L.x(i) + "->shape";
      for (int d = 0; d < nd; ++d) {
        const Dim& s = L.in(i).shape()[static_cast<std::size_t>(d)];
        declared += (i || d ? ", " : "") + std::string(s && *s == 1 ? "1" : "0");
      }
    }
    w.line("const int64_t* in_shapes[" + str(nin) + "] = {" + shapes + "};");
    w.line("static const unsigned char declared_one[" + str(static_cast<std::int64_t>(nin) * nd) + "] = {" + declared +
           "};");
    w.line("int64_t bad_input = 0, bad_dim = 0, bad_other = 0;");
    w.line("if (int rule = theano_broadcast_rule(" + str(nin) + ", " + str(nd) +
           ", in_shapes, declared_one, shape, &bad_input, &bad_dim, &bad_other)) return theano_fail_broadcast(ctx, "
           "rule, " +
           c_string(L.label + ": ") + ", bad_input, bad_dim, bad_other, all, " + str(nin) + ");");
  }
  w.line("int64_t n = 1;");
  for (int d = 0; d < nd; ++d) w.line("n *= shape[" + str(d) + "];");
}

std::string elemwise_contiguous_condition(const NodeLowering& L, int nd) {
  std::string contiguous = "1";
  for (int i = 0; i < L.nin(); ++i) {
    const std::string xi = L.x(i);
    std::string expect = str(static_cast<std::int64_t>(dtype_size(L.in(i).dtype())));
    for (int d = nd - 1; d >= 0; --d) {
      const std::string ds = str(d);
      contiguous += " && (shape[" + ds + "] == 1 || (" + xi + "->shape[" + ds + "] == shape[" + ds + "] && " + xi +
                    "->strides[" + ds + "] == " + expect + "))";
      expect += " * shape[" + ds + "]";
    }
  }
  return contiguous;
}

std::string elemwise_input_stride(const NodeLowering& L, int i, int d) {
  const Dim& sd = L.in(i).shape()[static_cast<std::size_t>(d)];
  return (sd && *sd == 1) ? std::string("0") : L.x(i) + "->strides[" + str(d) + "]";
}

void emit_dimshuffle_view(NodeLowering& L, int ind, const std::vector<int>& order) {
  L.cold = true;
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

namespace {

void lower_elemwise(NodeLowering& L) {
  const Apply& node = L.node;
  const auto& op = static_cast<const tensor::Elemwise&>(*node.op());
  const int nd = L.out(0).ndim();
  const int nin = node.nin();
  const int nout = node.nout();
  const ElemwiseExprs ex = elemwise_exprs(node);
  const std::vector<std::string>& stores = ex.stores;
  L.ns = ex.ns;
  for (const auto& [key, code] : ex.support) L.need(key, code);

  CodeWriter& w = L.body;
  emit_elemwise_shape(L, nd);
  // No __restrict when an output overwrites an input (they alias).
  const bool inplace = !op.inplace_pattern().empty();
  const std::string restrict_kw = inplace ? "" : " __restrict";
  // The output each input is overwritten by (-1: none), where their C types
  // match: the loops read such an input through the output's pointer (the
  // same address: the output is the input's buffer with its strides). Read
  // through its own pointer, the vectorizer could not prove the two equal,
  // checked at run time that they do not overlap, and, since they do, ran
  // the scalar loop: tanh(X W + b) in place after a gemm took 1.2 ms for
  // 256 x 512 doubles instead of 0.12 (a scalar exp per element).
  std::vector<int> overwritten_by(static_cast<std::size_t>(nin), -1);
  for (const auto& [k, i] : op.inplace_pattern())
    if (L.in_ctype(i) == L.out_ctype(k)) overwritten_by[static_cast<std::size_t>(i)] = k;
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
      for (int d = 0; d < nd; ++d) w.line(ok + "->strides[" + str(d) + "] = " + xd + "->strides[" + str(d) + "];");
    } else {
      w.line(L.alloc(k));
    }
  }
  w.line("if (n == 0) return 0;");
  if (ex.locals.size() > kBlockedLocals) {
    emit_elemwise_blocked(L, ex);
    return;
  }
  // Contiguous fast path: every input C-contiguous with the output's shape.
  const std::string contiguous = elemwise_contiguous_condition(L, nd);
  // The contiguous loop over [lo, hi): one flat loop the vectorizer sees.
  auto emit_flat = [&](CodeWriter& c, const std::string& lo, const std::string& hi) {
    for (int k = 0; k < nout; ++k) {
      const std::string ot = L.out_ctype(k);
      c.line(ot + "*" + restrict_kw + " po" + str(k) + " = (" + ot + "*)o" + str(k) + "->data;");
    }
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      const int by = overwritten_by[static_cast<std::size_t>(i)];
      c.line("const " + L.in_ctype(i) + "*" + restrict_kw + " p" + is + " = (const " + L.in_ctype(i) + "*)" +
             (by >= 0 ? "po" + str(by) : "x" + is + "->data") + ";");
    }
    c.open("for (int64_t k = " + lo + "; k < " + hi + "; ++k)");
    for (int i = 0; i < nin; ++i) {
      const std::string& ct = ex.arg_types[static_cast<std::size_t>(i)];
      c.line(ct + " a" + str(i) + " = (" + ct + ")p" + str(i) + "[k];");
    }
    for (const std::string& local : ex.locals) c.line(local);
    for (int k = 0; k < nout; ++k) c.line("po" + str(k) + "[k] = " + stores[static_cast<std::size_t>(k)] + ";");
    c.close();
  };
  // The strided / broadcast loops (byte strides, 0 where broadcast), the
  // outermost over [lo, hi), the others over the extents `ext(d)`. Not
  // vectorized: gathers rarely pay, and they cost compile time.
  // Shared by the strided and the row loops, over the first `dims`
  // dimensions: the byte strides s<input>_<d> (0 where broadcast) and
  // so<output>_<d>, the extents e<d> = ext(d) for d >= 1; the loop nest
  // (i0 over [lo, hi), i<d> over e<d>; the innermost not vectorized when
  // asked); an operand's byte offset at (i0, ..).
  auto emit_strides = [&](CodeWriter& c, int dims, const std::function<std::string(int)>& ext) {
    for (int i = 0; i < nin; ++i)
      for (int d = 0; d < dims; ++d)
        c.line("const int64_t s" + str(i) + "_" + str(d) + " = " + elemwise_input_stride(L, i, d) + ";");
    for (int k = 0; k < nout; ++k)
      for (int d = 0; d < dims; ++d)
        c.line("const int64_t so" + str(k) + "_" + str(d) + " = o" + str(k) + "->strides[" + str(d) + "];");
    for (int d = 1; d < dims; ++d) c.line("const int64_t e" + str(d) + " = " + ext(d) + ";");
  };
  auto open_loops = [&](CodeWriter& c, int dims, const std::string& lo, const std::string& hi, bool scalar_inner) {
    for (int d = 0; d < dims; ++d) {
      const std::string ds = str(d);
      if (scalar_inner && d == dims - 1) c.line("#pragma clang loop vectorize(disable)");
      c.open(d == 0 ? "for (int64_t i0 = " + lo + "; i0 < " + hi + "; ++i0)"
                    : "for (int64_t i" + ds + " = 0; i" + ds + " < e" + ds + "; ++i" + ds + ")");
    }
  };
  auto loop_offset = [](int dims, const std::string& prefix) {
    std::string o;
    for (int d = 0; d < dims; ++d) o += " + i" + str(d) + " * " + prefix + str(d);
    return o;
  };
  auto emit_strided = [&](CodeWriter& c, const std::string& lo, const std::string& hi,
                          const std::function<std::string(int)>& ext) {
    emit_strides(c, nd, ext);
    open_loops(c, nd, lo, hi, /*scalar_inner=*/true);
    auto offset = [&](const std::string& prefix) { return loop_offset(nd, prefix); };
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      const std::string& ct = ex.arg_types[static_cast<std::size_t>(i)];
      c.line(ct + " a" + is + " = (" + ct + ")*(const " + L.in_ctype(i) + "*)(x" + is + "->data" +
             offset("s" + is + "_") + ");");
    }
    for (const std::string& local : ex.locals) c.line(local);
    for (int k = 0; k < nout; ++k)
      c.line("*(" + L.out_ctype(k) + "*)(o" + str(k) + "->data" + offset("so" + str(k) + "_") +
             ") = " + stores[static_cast<std::size_t>(k)] + ";");
    for (int d = 0; d < nd; ++d) c.close();
  };

  // Rows: the loop for inputs broadcast by their type (a bias row added to
  // every row of a matrix, a column scaling every column): when every
  // operand's last dimension is contiguous or broadcast, the outer
  // dimensions are walked as in the strided loop, and each row is one
  // vectorizable loop over typed row pointers, an input broadcast along the
  // row loaded once. The strided loop above stays scalar (gathers rarely
  // pay), so without this tanh(X + b) ran one element at a time.
  auto broadcast_in = [&](int i, int d) {
    const Dim& sd = L.in(i).shape()[static_cast<std::size_t>(d)];
    return sd && *sd == 1;
  };
  const int last = nd - 1;
  // The part over [lo, hi): of rows (of the outermost index) when nd >= 2,
  // of the single row's elements when nd == 1.
  auto emit_rows = [&](CodeWriter& c) {
    emit_strides(c, last, [](int d) { return "o0->shape[" + str(d) + "]"; });
    if (nd >= 2) c.line("const int64_t m = o0->shape[" + str(last) + "];");
    open_loops(c, last, "lo", "hi", /*scalar_inner=*/false);
    auto offset = [&](const std::string& prefix) { return loop_offset(last, prefix); };
    for (int k = 0; k < nout; ++k)
      c.line(L.out_ctype(k) + "*" + restrict_kw + " ro" + str(k) + " = (" + L.out_ctype(k) + "*)(o" + str(k) +
             "->data" + offset("so" + str(k) + "_") + ");");
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      const std::string& ct = ex.arg_types[static_cast<std::size_t>(i)];
      const int by = overwritten_by[static_cast<std::size_t>(i)];
      if (broadcast_in(i, last))
        c.line("const " + ct + " b" + is + " = (" + ct + ")*(const " + L.in_ctype(i) + "*)(x" + is + "->data" +
               offset("s" + is + "_") + ");");
      else if (by >= 0)  // the output's row: the same address (its strides are the input's)
        c.line("const " + L.in_ctype(i) + "* r" + is + " = (const " + L.in_ctype(i) + "*)ro" + str(by) + ";");
      else
        c.line("const " + L.in_ctype(i) + "*" + restrict_kw + " r" + is + " = (const " + L.in_ctype(i) + "*)(x" + is +
               "->data" + offset("s" + is + "_") + ");");
    }
    c.open(nd >= 2 ? std::string("for (int64_t j = 0; j < m; ++j)") : std::string("for (int64_t j = lo; j < hi; ++j)"));
    for (int i = 0; i < nin; ++i) {
      const std::string is = str(i);
      const std::string& ct = ex.arg_types[static_cast<std::size_t>(i)];
      c.line(ct + " a" + is + " = " + (broadcast_in(i, last) ? "b" + is : "(" + ct + ")r" + is + "[j]") + ";");
    }
    for (const std::string& local : ex.locals) c.line(local);
    for (int k = 0; k < nout; ++k) c.line("ro" + str(k) + "[j] = " + stores[static_cast<std::size_t>(k)] + ";");
    c.close();
    for (int d = 0; d < last; ++d) c.close();
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
  L.loops_outlined = true;  // the loop is a part function; the copies are the host's
  const int cost = ex.cost();
  const std::size_t item = widest_item(L);
  CodeWriter& f = L.file;
  const std::string args_t = L.fn + "_args";
  const std::string init = emit_loop_args(f, args_t, nin, nout);
  auto part = [&](const std::string& name) {
    ParallelPart pp{L.fn + "_" + name, args_t};
    pp.noinline = true;
    return pp;
  };
  auto open_part = [&](const ParallelPart& pp) {
    pp.open(f);
    for (int i = 0; i < nin; ++i) f.line("const TheanoArray* x" + str(i) + " = args->x" + str(i) + ";");
    for (int k = 0; k < nout; ++k) f.line("TheanoArray* o" + str(k) + " = args->o" + str(k) + ";");
  };
  // One loop a node (docs/jit-and-cache.md, "Loop variants"): the flat loop
  // when every operand has the output's shape (no input broadcast by its
  // type along a dimension the output's type does not fix at 1), else the
  // row loop. An operand outside that loop's layout (a transposed or sliced
  // view, an output computed in place into one) is first copied into a
  // C-contiguous scratch array by one call into the host (scratch_inputs),
  // the loop runs on the copies, and an output computed in a copy is copied
  // back. Before, a
  // node compiled the flat, the strided and (broadcast) the row loop: the
  // flat loop of a bias add ran only when its rows had one element, and the
  // strided loops, scalar, were a tenth of a unit's -O2 time.
  bool live_broadcast = false;
  for (int i = 0; i < nin; ++i)
    for (int d = 0; d < nd; ++d) {
      const Dim& od = L.out(0).shape()[static_cast<std::size_t>(d)];
      live_broadcast = live_broadcast || (broadcast_in(i, d) && !(od && *od == 1));
    }
  const bool by_rows = live_broadcast;
  const ParallelPart loop = part(by_rows ? "rows" : "flat");
  open_part(loop);
  if (by_rows)
    emit_rows(f);
  else
    emit_flat(f, "lo", "hi");
  f.close();
  // Whether input `a` (of `item` bytes) is in the loop's layout: C-contiguous
  // (flat), its last dimension contiguous (rows; an input broadcast along it
  // always is).
  auto in_layout = [&](const std::string& a, std::int64_t item, bool bcast_last) -> std::string {
    if (!by_rows) return "theano_c_contiguous(" + a + ", " + str(item) + ")";
    if (bcast_last) return "1";
    return a + "->strides[" + str(last) + "] == " + str(item);
  };
  std::string fits = "1";
  for (int i = 0; i < nin; ++i) {
    const std::int64_t item = static_cast<std::int64_t>(dtype_size(L.in(i).dtype()));
    const std::string c = in_layout(L.x(i), item, broadcast_in(i, last));
    if (c != "1") fits += " && " + c;
  }
  std::vector<int> destroyed_of(static_cast<std::size_t>(nout), -1);
  for (const auto& [k, i] : op.inplace_pattern()) destroyed_of[static_cast<std::size_t>(k)] = i;
  w.line(args_t + " args = {" + init + "};");
  auto run = [&](const std::string& a) {
    return by_rows ? (nd >= 2 ? loop.run("shape[0]", min_part_expr(cost, "n / shape[0]", item), a)
                              : loop.run("n", str(min_part_elements(cost, item)), a))
                   : loop.run("n", str(min_part_elements(cost, item)), a);
  };
  w.open("if (" + fits + ")");
  w.line(run("args") + ";");
  w.line("return 0;");
  w.close();
  // The copies (the host's theano_scratch_inputs: inputs outside the layout,
  // one call); an output in place is computed in its input's copy. (A fresh
  // output is C-contiguous: host_alloc.)
  std::string ins, modes, items;
  for (int i = 0; i < nin; ++i) {
    const std::int64_t item = static_cast<std::int64_t>(dtype_size(L.in(i).dtype()));
    const std::string sep = i ? ", " : "";
    ins += sep + L.x(i);
    modes += sep + std::string(!by_rows ? "1" : broadcast_in(i, last) ? "0" : "2");
    items += sep + str(item);
  }
  const std::string ns = str(nin);
  w.line("const TheanoArray* in[" + ns + "] = {" + ins + "};");
  w.line("TheanoArray tmp[" + ns + "];");
  w.line("static const unsigned char modes[" + ns + "] = {" + modes + "};");
  w.line("static const int64_t items[" + ns + "] = {" + items + "};");
  w.line("if (ctx->kernels->scratch_inputs(ctx, in, tmp, " + ns + ", modes, items) != 0) " +
         L.fail(kErrValue, "could not allocate a contiguous copy of an input"));
  std::string copies_init;
  for (int i = 0; i < nin; ++i) copies_init += (i ? ", in[" : "in[") + str(i) + "]";
  for (int k = 0; k < nout; ++k) {
    const int di = destroyed_of[static_cast<std::size_t>(k)];
    copies_init += di >= 0 ? ", in[" + str(di) + "] != " + L.x(di) + " ? (TheanoArray*)in[" + str(di) + "] : " + L.o(k)
                           : ", " + L.o(k);
  }
  w.line(args_t + " copies = {" + copies_init + "};");
  w.line(run("copies") + ";");
  for (int k = 0; k < nout; ++k) {
    if (destroyed_of[static_cast<std::size_t>(k)] < 0) continue;
    const std::string ks = str(k);
    w.line("if (copies.o" + ks + " != " + L.o(k) + ") theano_copy(ctx, " + L.o(k) + ", copies.o" + ks + ", " +
           str(static_cast<std::int64_t>(dtype_size(L.out(k).dtype()))) + ");");
  }
  w.line("return 0;");
}

void lower_dimshuffle(NodeLowering& L) {
  const auto& op = static_cast<const tensor::DimShuffle&>(L.op);
  emit_dimshuffle_view(L, op.input_ndim(), op.new_order());
}

}  // namespace

void add_elemwise_lowerings(LoweringTable& t) {
  t.add<tensor::Elemwise>(Target::Cpu, &lower_elemwise);
  t.add<tensor::DimShuffle>(Target::Cpu, &lower_dimshuffle);
  t.add<tensor::DimShuffle>(Target::Cuda, &lower_dimshuffle);  // its GPU form: this code on device addresses
}

}  // namespace theano::codegen::lower
