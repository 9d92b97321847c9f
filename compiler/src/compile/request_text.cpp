// The canonical text of a function request (see request_text.h).
//
// Layout: a version line, the context (mode, linker, tags, flags, input and
// output options), then the graph: each input (type, name), each constant
// (type, name, dtype, shape, then "data" and its bytes, or "fill" and one
// element's bytes when every element is that one), each node in toposort
// order (Op class, props, an inner graph's own text (Scan's step, written
// the same way), input references, output types and names), the outputs.
// Strings are length-prefixed and floats written as their bits, so no two
// different requests can print the same text.
#include "request_text.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <unordered_map>

#include "../graph/pointer_map.h"

#include "theano/config.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/toposort.h"
#include "theano/runtime/repeated_element.h"

namespace theano::detail {
namespace {

/// The text of each Type met in one request (TypeTexts is shared by the
/// request's writer and its inner graphs' writers).
using TypeTexts = std::unordered_map<const Type*, std::string>;

class Writer {
 public:
  explicit Writer(TypeTexts& types) : type_text_(&types) { text_.reserve(4096); }
  void word(std::string_view w) {
    text_ += w;
    text_ += ' ';
  }
  void num(std::int64_t v) {
    decimal(v);
    text_ += ' ';
  }
  /// Length-prefixed: any bytes, no ambiguity with what follows.
  void str(std::string_view s) {
    decimal(static_cast<std::int64_t>(s.size()));
    text_ += ':';
    text_ += s;
    text_ += ' ';
  }
  void line() { text_ += '\n'; }
  /// A variable's reference: `kind` and `index`, then "." and `output` when
  /// it is not negative ("i3", "c0", "n5.1").
  void ref(char kind, std::int64_t index, std::int64_t output) {
    text_ += kind;
    decimal(index);
    if (output >= 0) {
      text_ += '.';
      decimal(output);
    }
    text_ += ' ';
  }
  void bytes(const void* p, std::size_t n) { str(std::string_view(static_cast<const char*>(p), n)); }
  /// A type's text, printed once per Type object of the request (variables
  /// and their clones share one; printing was a quarter of a scan's text).
  void type(const TypePtr& t) {
    auto [it, fresh] = type_text_->try_emplace(t.get());
    if (fresh) it->second = t->str();
    str(it->second);
  }
  /// A writer for an inner graph's text, sharing this one's type texts.
  Writer inner() const { return Writer(*type_text_); }
  std::string take() { return std::move(text_); }

 private:
  // The digits written in place (std::to_string made a string per number).
  void decimal(std::int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    text_.append(digits, end);
  }

  std::string text_;
  TypeTexts* type_text_;
};

void write_prop(Writer& w, const PropValue& v) {
  v.visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          w.word(x ? "b1" : "b0");
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          w.word("i");
          w.num(x);
        } else if constexpr (std::is_same_v<T, double>) {
          w.word("d");
          w.num(static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(x)));
        } else if constexpr (std::is_same_v<T, std::string>) {
          w.word("s");
          w.str(x);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          w.word("v");
          w.num(static_cast<std::int64_t>(x.size()));
          for (std::int64_t e : x) w.num(e);
        } else {
          static_assert(std::is_same_v<T, DType>);
          w.word("t");
          w.str(dtype_name(x));
        }
      });
}

void write_bools(Writer& w, std::string_view what, const std::vector<bool>& bits) {
  w.word(what);
  w.num(static_cast<std::int64_t>(bits.size()));
  for (bool b : bits) w.word(b ? "1" : "0");
  w.line();
}

/// How a node's input names a variable met before: "i3" (input 3), "c0"
/// (constant 0), "n5.1" (node 5's output 1).
struct Ref {
  char kind = 0;
  std::int64_t index = 0;
  std::int64_t output = 0;
};

void write_ref(Writer& w, const Ref& r) {
  w.ref(r.kind, r.index, r.kind == 'n' ? r.output : -1);
}

/// Writes the graph from `inputs` to `outputs` (nodes in `order`): each
/// input, each constant where a node first reads it, each node, the outputs.
/// An Op's inner graph (Op::inner_graph) is written the same way into its
/// own text, length-prefixed after the Op's props. False when the graph
/// cannot be keyed (an Op not keyed by its props, a variable not computed
/// from the inputs).
bool write_graph(Writer& w, const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                 const std::vector<Apply*>& order) {
  PointerMap<Ref> ref(inputs.size() + 2 * order.size());  // variable -> its Ref
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Var& v = inputs[k];
    ref.try_emplace(v.get(), Ref{'i', static_cast<std::int64_t>(k), 0});
    w.word("input");
    w.type(v.type());
    w.str(v.name());
    w.line();
  }
  std::int64_t constants = 0;
  // A constant's Ref, writing its line where it is first read.
  auto constant_ref = [&](const Var& v) -> Ref {
    auto [r, fresh] = ref.try_emplace(v.get(), Ref{'c', constants, 0});
    if (!fresh) return *r;
    const Ref made = *r;
    ++constants;
    const NDArray& data = v.as_constant()->data();
    const NDArray dense = data.is_c_contiguous() ? data : data.copy();
    w.word("constant");
    write_ref(w, made);
    w.type(v.type());
    w.str(v.name());
    w.str(dtype_name(dense.dtype()));
    w.num(static_cast<std::int64_t>(dense.shape().size()));
    for (std::int64_t d : dense.shape()) w.num(d);
    // One value repeated (a zeros or full array, a recurrent state's start)
    // is written once: a 64 KB h0 would otherwise be copied into the text
    // and hashed by every warm start.
    const bool fill = repeats_one_element(dense);
    w.word(fill ? "fill" : "data");
    w.bytes(dense.data(), fill ? dense.itemsize() : static_cast<std::size_t>(dense.nbytes()));
    w.line();
    return made;
  };

  std::vector<Ref> node_inputs;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const Apply& node = *order[n];
    const Op& op = *node.op();
    if (!op.keyed_by_props()) return false;
    node_inputs.clear();
    for (const Var& in : node.inputs()) {
      if (in.is_constant()) {
        node_inputs.push_back(constant_ref(in));
        continue;
      }
      const Ref* r = ref.find(in.get());
      if (r == nullptr) return false;  // not reachable from the inputs: not a request we can key
      node_inputs.push_back(*r);
    }
    w.word("node");
    w.num(static_cast<std::int64_t>(n));
    w.str(op.type_name());
    const Props props = op.props();
    w.num(static_cast<std::int64_t>(props.size()));
    for (const Prop& p : props) {
      w.str(p.name);
      write_prop(w, p.value);
    }
    if (const Op::InnerGraph inner = op.inner_graph(); inner.inputs != nullptr) {
      Writer iw = w.inner();
      if (!write_graph(iw, *inner.inputs, *inner.outputs, io_toposort(*inner.inputs, *inner.outputs))) return false;
      w.word("inner");
      w.str(iw.take());
    }
    w.word("in");
    for (const Ref& r : node_inputs) write_ref(w, r);
    w.word("out");
    for (int k = 0; k < node.nout(); ++k) {
      const Var& out = node.output(k);
      ref.try_emplace(out.get(), Ref{'n', static_cast<std::int64_t>(n), k});
      w.type(out.type());
      w.str(out.name());
    }
    w.line();
  }
  w.word("outputs");
  for (const Var& out : outputs) {
    if (out.is_constant()) {
      write_ref(w, constant_ref(out));
      continue;
    }
    const Ref* r = ref.find(out.get());
    if (r == nullptr) return false;
    write_ref(w, *r);
  }
  w.line();
  return true;
}

}  // namespace

std::optional<std::string> request_text(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                        const RequestContext& context) {
  TypeTexts types;
  Writer w(types);
  w.word("theano-cpp function request 4");
  w.line();
  w.word("mode");
  w.str(context.mode);
  w.word("linker");
  w.str(context.linker);
  w.word("device");
  w.str(context.device);
  w.line();
  w.word("including");
  for (const std::string& t : context.including) w.str(t);
  w.line();
  w.word("excluding");
  for (const std::string& t : context.excluding) w.str(t);
  w.line();
  // Every flag: some change the rewrites or the code (threads, cxxflags,
  // floatX, optimizer flags); a flag that does not only costs a cache entry.
  // Except log_compile, which only reports on a compile: turning it on to
  // see where the time goes must not make every function compile again.
  // (keep_sources stays: a request found by its record generates no source
  // to keep.)
  w.word("flags");
  for (const auto& [k, v] : config().flags) {
    if (k == "log_compile") continue;
    w.str(k);
    w.str(v);
  }
  w.line();
  write_bools(w, "input_mutable", context.input_mutable);
  write_bools(w, "out_borrow", context.out_borrow);

  if (!write_graph(w, inputs, outputs, io_toposort(inputs, outputs))) return std::nullopt;
  return w.take();
}

}  // namespace theano::detail
