// Large fused loop bodies, blocked (lowering.h: emit_elemwise_blocked).
//
// One loop body with every inner value of a large Composite inlined costs
// clang several milliseconds per inner node (each op's code is optimized and
// compiled in the vectorized loop, its scalar remainder and the strided loop):
// 6.6 s for 1000 tanh. Here the node computes a block of elements at a time:
// each input block is converted into a buffer, then each inner value is
// computed over the block by a helper call
//
//   theano_blk_<hash>(m, s3, s7, s4);   // s4[k] = theano_tanh(s3[k]) ... for k < m
//
// where the helper (one vectorized loop, noinline) is shared by every inner
// node of the unit with the same expression, and the outputs are converted
// from their buffers. Buffers are reused once their value is dead, so a chain
// needs two. Each block reads all of its inputs before it writes an output,
// so an output may overwrite an input (in place). The flat path passes array
// pointers; the strided path gathers one element at a time (a slow path: such
// nodes are rare and compute-bound).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include <theano/tensor/type.h>

#include "lowering.h"
#include "parallel_part.h"

namespace theano::codegen::lower {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// `e` with every value name (a<i>, t<j>) replaced by `rename(name)`; the names in
/// order of first use go to `names` (each once).
template <class F>
std::string rename_values(const std::string& e, std::vector<std::string>& names, F rename) {
  std::string r;
  for (std::size_t p = 0; p < e.size();) {
    const char c = e[p];
    if ((c == 'a' || c == 't') && (p == 0 || !ident_char(e[p - 1]))) {
      std::size_t q = p + 1;
      while (q < e.size() && std::isdigit(static_cast<unsigned char>(e[q]))) ++q;
      if (q > p + 1 && (q == e.size() || !ident_char(e[q]))) {
        const std::string name = e.substr(p, q - p);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        r += rename(name);
        p = q;
        continue;
      }
    }
    r += c;
    ++p;
  }
  return r;
}

}  // namespace

void emit_elemwise_blocked(NodeLowering& L, const ElemwiseExprs& ex) {
  const int nd = L.out(0).ndim(), nin = L.nin(), nout = L.nout();
  const std::size_t nlocals = ex.local_values.size();
  // Each value's C type: inputs a<i>, then locals t<j>.
  std::map<std::string, std::string> type_of;
  for (int i = 0; i < nin; ++i) type_of["a" + str(i)] = ex.arg_types[static_cast<std::size_t>(i)];
  for (std::size_t j = 0; j < nlocals; ++j) type_of["t" + str(static_cast<std::int64_t>(j))] = ex.local_types[j];
  // The values each local reads, its helper body over u<m>[k_], and the last reader of each value.
  const auto never = static_cast<std::ptrdiff_t>(nlocals);  // read by an output: kept to the end
  std::map<std::string, std::ptrdiff_t> last_use;
  std::vector<std::vector<std::string>> reads(nlocals);
  std::vector<std::string> bodies(nlocals);
  for (std::size_t j = 0; j < nlocals; ++j) {
    bodies[j] = rename_values(ex.local_values[j], reads[j], [&](const std::string& name) {
      const auto& r = reads[j];
      const auto m = std::find(r.begin(), r.end(), name) - r.begin();
      return "u" + str(static_cast<std::int64_t>(m)) + "[k_]";
    });
    for (const std::string& name : reads[j]) last_use[name] = static_cast<std::ptrdiff_t>(j);
  }
  std::vector<std::string> store_reads;
  std::vector<std::string> stores;
  for (const std::string& s : ex.stores) stores.push_back(rename_values(s, store_reads, [](const std::string& n) {
    return "{" + n + "}";
  }));
  for (const std::string& name : store_reads) last_use[name] = never;

  // Buffers: one per live value, reused by type once a value is dead.
  std::map<std::string, int> slot_of;
  std::vector<std::string> slot_type;
  std::map<std::string, std::vector<int>> free_slots;
  auto take = [&](const std::string& name) {
    const std::string& t = type_of.at(name);
    auto& pool = free_slots[t];
    if (!pool.empty()) {
      slot_of[name] = pool.back();
      pool.pop_back();
    } else {
      slot_of[name] = static_cast<int>(slot_type.size());
      slot_type.push_back(t);
    }
  };
  auto release = [&](const std::string& name) { free_slots[type_of.at(name)].push_back(slot_of.at(name)); };
  std::vector<int> read_inputs;
  for (int i = 0; i < nin; ++i)
    if (last_use.count("a" + str(i))) {
      read_inputs.push_back(i);
      take("a" + str(i));
    }
  std::vector<int> result_slot(nlocals);
  for (std::size_t j = 0; j < nlocals; ++j) {
    const std::string name = "t" + str(static_cast<std::int64_t>(j));
    take(name);
    result_slot[j] = slot_of.at(name);
    for (const std::string& r : reads[j])
      if (last_use.at(r) == static_cast<std::ptrdiff_t>(j)) release(r);
    if (!last_use.count(name)) release(name);  // read by nothing
  }
  auto buf = [&](const std::string& name) { return "s" + str(slot_of.at(name)); };

  // The helpers: one vectorized loop per distinct expression.
  std::vector<std::string> calls(nlocals);
  for (std::size_t j = 0; j < nlocals; ++j) {
    std::string params = "(int64_t m";
    for (std::size_t m = 0; m < reads[j].size(); ++m)
      params += ", const " + type_of.at(reads[j][m]) + "* __restrict u" + str(static_cast<std::int64_t>(m));
    params += ", " + ex.local_types[j] + "* __restrict r)";
    const std::string body = params + " { for (int64_t k_ = 0; k_ < m; ++k_) r[k_] = " + bodies[j] + "; }";
    const std::string name = "theano_blk_" + helper_name(ex.ns + " " + body).substr(12);  // the hex digits
    L.need(ex.ns + "::" + name + body,
           "namespace " + ex.ns + " { __attribute__((noinline)) static void " + name + body + " }");
    std::string call = name + "(m";
    for (const std::string& r : reads[j]) call += ", " + buf(r);
    calls[j] = call + ", s" + str(result_slot[j]) + ");";
  }

  // The block routine over nb contiguous elements.
  std::size_t bytes_per_element = 0;
  for (const std::string& t : slot_type) bytes_per_element += t == "double" || t == "int64_t" || t == "uint64_t" ? 8 : 4;
  const std::int64_t block =
      std::clamp<std::int64_t>(32768 / static_cast<std::int64_t>(std::max<std::size_t>(bytes_per_element, 1)) / 16 * 16,
                               16, 256);
  CodeWriter& f = L.file;
  std::string params = "(int64_t nb";
  for (int i = 0; i < nin; ++i) params += ", const " + L.in_ctype(i) + "* p" + str(i);
  for (int k = 0; k < nout; ++k) params += ", " + L.out_ctype(k) + "* po" + str(k);
  f.open("static void " + L.fn + "_block" + params + ")");
  for (std::size_t q = 0; q < slot_type.size(); ++q)
    f.line(slot_type[q] + " s" + str(static_cast<std::int64_t>(q)) + "[" + str(block) + "];");
  f.open("for (int64_t b = 0; b < nb; b += " + str(block) + ")");
  f.line("const int64_t m = nb - b < " + str(block) + " ? nb - b : " + str(block) + ";");
  for (int i : read_inputs) {
    const std::string& t = ex.arg_types[static_cast<std::size_t>(i)];
    f.line("for (int64_t k = 0; k < m; ++k) " + buf("a" + str(i)) + "[k] = (" + t + ")p" + str(i) + "[b + k];");
  }
  for (const std::string& c : calls) f.line(c);
  for (int k = 0; k < nout; ++k) {
    std::vector<std::string> args;
    for (const std::string& name : store_reads) args.push_back(buf(name) + "[k]");
    // stores[k] names value n of store_reads as {n}.
    std::string s = stores[static_cast<std::size_t>(k)];
    for (std::size_t n = 0; n < store_reads.size(); ++n) {
      const std::string ph = "{" + store_reads[n] + "}";
      for (std::size_t p = s.find(ph); p != std::string::npos; p = s.find(ph, p + args[n].size()))
        s.replace(p, ph.size(), args[n]);
    }
    f.line("for (int64_t k = 0; k < m; ++k) po" + str(k) + "[b + k] = " + s + ";");
  }
  f.close();
  f.close();

  // The part functions (over a range of the flat index / of the outermost
  // dimension), run in parallel or called once.
  const std::string args_t = L.fn + "_args";
  const std::string init = emit_loop_args(f, args_t, nin, nout);
  const ParallelPart flat{L.fn + "_flat", args_t}, strided{L.fn + "_strided", args_t};
  flat.open(f);
  std::string flat_call = L.fn + "_block(hi - lo";
  for (int i = 0; i < nin; ++i) flat_call += ", (const " + L.in_ctype(i) + "*)args->x" + str(i) + "->data + lo";
  for (int k = 0; k < nout; ++k) flat_call += ", (" + L.out_ctype(k) + "*)args->o" + str(k) + "->data + lo";
  f.line(flat_call + ");");
  f.close();
  if (nd > 0) {
    strided.open(f);
    for (int i = 0; i < nin; ++i) f.line("const TheanoArray* x" + str(i) + " = args->x" + str(i) + ";");
    for (int k = 0; k < nout; ++k) f.line("TheanoArray* o" + str(k) + " = args->o" + str(k) + ";");
    for (int i = 0; i < nin; ++i)
      for (int d = 0; d < nd; ++d)
        f.line("const int64_t s" + str(i) + "_" + str(d) + " = " + elemwise_input_stride(L, i, d) + ";");
    for (int d = 0; d < nd; ++d)
      f.open(d == 0 ? std::string("for (int64_t i0 = lo; i0 < hi; ++i0)")
                    : "for (int64_t i" + str(d) + " = 0; i" + str(d) + " < o0->shape[" + str(d) + "]; ++i" + str(d) +
                          ")");
    auto offset = [&](const std::string& prefix) {
      std::string o;
      for (int d = 0; d < nd; ++d) o += " + i" + str(d) + " * " + prefix + str(d);
      return o;
    };
    std::string call = L.fn + "_block(1";
    for (int i = 0; i < nin; ++i) {
      f.line(L.in_ctype(i) + " v" + str(i) + " = *(const " + L.in_ctype(i) + "*)(x" + str(i) + "->data" +
             offset("s" + str(i) + "_") + ");");
      call += ", &v" + str(i);
    }
    for (int k = 0; k < nout; ++k) {
      f.line(L.out_ctype(k) + " r" + str(k) + ";");
      call += ", &r" + str(k);
    }
    f.line(call + ");");
    for (int k = 0; k < nout; ++k) {
      std::string o;
      for (int d = 0; d < nd; ++d) o += " + i" + str(d) + " * o" + str(k) + "->strides[" + str(d) + "]";
      f.line("*(" + L.out_ctype(k) + "*)(o" + str(k) + "->data" + o + ") = r" + str(k) + ";");
    }
    for (int d = 0; d < nd; ++d) f.close();
    f.close();
  }

  CodeWriter& w = L.body;
  const bool split = worth_optimizing(L) && nd > 0;
  L.loops_outlined = true;  // both loops are file-scope functions
  const int cost = ex.cost();
  const std::size_t item = widest_item(L);
  w.line(args_t + " args = {" + init + "};");
  w.open("if (" + elemwise_contiguous_condition(L, nd) + ")");
  w.line(split ? flat.run("n", str(min_part_elements(cost, item)), "args") + ";" : flat.call("n", "args"));
  w.line("return 0;");
  w.close();
  if (nd > 0) {
    w.line(split ? strided.run("shape[0]", min_part_expr(cost, "n / shape[0]", item), "args") + ";"
                 : strided.call("shape[0]", "args"));
  }
  w.line("return 0;");
}

}  // namespace theano::codegen::lower
