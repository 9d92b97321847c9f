/// \file
/// pprint (see printing.h): Theano's PPrinter — a table from op kinds to small
/// printer objects — and the global table with the tensor operators.
///
/// Like Theano, operators are always parenthesized (Theano records precedence
/// but found its use buggy, #249, and parenthesizes everything), so the text
/// is unambiguous: `(x + (y * z))`. Each printer memoizes per variable, so a
/// shared sub-expression is walked once (the text is still repeated).
#include <algorithm>
#include <set>

#include "printing_internal.h"
#include "theano/graph/toposort.h"
#include "theano/pprinter.h"
#include "theano/printing.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/scalar.h"

namespace theano {

namespace {

/// Runs `f` with `state.precedence` set to `p`, restoring it afterwards.
template <class F>
std::string with_precedence(PrinterState& state, double p, F&& f) {
  const double old = state.precedence;
  state.precedence = p;
  try {
    std::string r = f();
    state.precedence = old;
    return r;
  } catch (...) {
    state.precedence = old;
    throw;
  }
}

Apply& owner_or_throw(const Var& output, std::string_view what) {
  THEANO_USER_CHECK(output.owner(), TypeError)
      << "pprint: " << what << " cannot represent " << output.str() << ", which is not the result of an operation";
  return *output.owner();
}

const std::string* memo_find(const PrinterState& state, const Var& v) {
  auto it = state.memo.find(v.get());
  return it == state.memo.end() ? nullptr : &it->second;
}

std::string memo_put(PrinterState& state, const Var& v, std::string s) {
  state.memo[v.get()] = s;
  return s;
}

class OperatorPrinter final : public Printer {
 public:
  OperatorPrinter(std::string op, double precedence, Assoc assoc)
      : op_(std::move(op)), precedence_(precedence), assoc_(assoc) {}
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    Apply& node = owner_or_throw(output, "operator " + op_);
    std::vector<std::string> parts;
    const int last = node.nin() - 1;
    for (int i = 0; i <= last; ++i) {
      double p = precedence_;
      if ((assoc_ == Assoc::Left && i != 0) || (assoc_ == Assoc::Right && i != last)) p += 1e-6;
      parts.push_back(with_precedence(state, p, [&] { return state.pprinter->process(node.input(i), state); }));
    }
    std::string s;
    if (parts.size() == 1) {
      s = op_ + parts[0];
    } else {
      for (std::size_t k = 0; k < parts.size(); ++k) s += (k ? " " + op_ + " " : "") + parts[k];
    }
    return memo_put(state, output, "(" + s + ")");
  }

 private:
  std::string op_;
  double precedence_;
  Assoc assoc_;
};

class FunctionPrinter final : public Printer {
 public:
  explicit FunctionPrinter(std::vector<std::string> names) : names_(std::move(names)) {}
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    Apply& node = owner_or_throw(output, "function " + names_.at(0));
    const std::size_t idx = static_cast<std::size_t>(*output.index());
    const std::string& name = names_.at(std::min(idx, names_.size() - 1));
    std::string s = with_precedence(state, -1000, [&] {
      std::string r = name + "(";
      for (int i = 0; i < node.nin(); ++i) r += (i ? ", " : "") + state.pprinter->process(node.input(i), state);
      return r + ")";
    });
    return memo_put(state, output, std::move(s));
  }

 private:
  std::vector<std::string> names_;
};

class PatternPrinter final : public Printer {
 public:
  explicit PatternPrinter(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {}
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    Apply& node = owner_or_throw(output, "pattern " + patterns_.at(0));
    const std::string& pattern = patterns_.at(std::min(static_cast<std::size_t>(*output.index()), patterns_.size() - 1));
    std::vector<std::string> args;
    for (int i = 0; i < node.nin(); ++i)
      args.push_back(with_precedence(state, 1000, [&] { return state.pprinter->process(node.input(i), state); }));
    std::string r;
    for (std::size_t k = 0; k < pattern.size(); ++k) {
      if (pattern[k] == '{') {
        const std::size_t close = pattern.find('}', k);
        if (close != std::string::npos && close > k + 1 &&
            std::all_of(pattern.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                        pattern.begin() + static_cast<std::ptrdiff_t>(close), [](char c) { return c >= '0' && c <= '9'; })) {
          const std::size_t i = std::stoul(pattern.substr(k + 1, close - k - 1));
          THEANO_USER_CHECK(i < args.size(), ValueError)
              << "pprint: pattern '" << pattern << "' names input " << i << " but " << node.op()->name() << " has "
              << args.size() << " inputs";
          r += args[i];
          k = close;
          continue;
        }
      }
      r += pattern[k];
    }
    return memo_put(state, output, std::move(r));
  }

 private:
  std::vector<std::string> patterns_;
};

class IgnorePrinter final : public Printer {
 public:
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    Apply& node = owner_or_throw(output, "ignore_printer");
    return memo_put(state, output, state.pprinter->process(node.input(0), state));
  }
};

class LeafPrinter final : public Printer {
 public:
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    static const std::vector<std::pair<std::string, std::string>> greek = {
        {"alpha", "\\alpha"}, {"beta", "\\beta"}, {"gamma", "\\gamma"}, {"delta", "\\delta"}, {"epsilon", "\\epsilon"}};
    for (const auto& [name, tex] : greek)
      if (output.name() == name) return memo_put(state, output, tex);
    return memo_put(state, output, leaf_text(output));
  }
};

class DefaultPrinter final : public Printer {
 public:
  std::string process(const Var& output, PrinterState& state) const override {
    if (const std::string* s = memo_find(state, output)) return *s;
    Apply* node = output.owner();
    if (!node) return leaf_printer()->process(output, state);
    std::string s = with_precedence(state, -1000, [&] {
      std::string r = node->op()->name() + "(";
      for (int i = 0; i < node->nin(); ++i) r += (i ? ", " : "") + state.pprinter->process(node->input(i), state);
      return r + ")";
    });
    return memo_put(state, output, std::move(s));
  }
};

/// The name of Theano's tensor function for a scalar op, where it differs
/// (Python keywords and builtins get a trailing underscore).
std::string theano_name(const std::string& scalar_name) {
  if (scalar_name == "and" || scalar_name == "or" || scalar_name == "abs") return scalar_name + "_";
  return scalar_name;
}

class DimShufflePrinter final : public Printer {
 public:
  std::string process(const Var& output, PrinterState& state) const override {
    Apply& node = owner_or_throw(output, "DimShuffle printer");
    const auto* op = dynamic_cast<const tensor::DimShuffle*>(node.op().get());
    THEANO_USER_CHECK(op, TypeError) << "pprint: the DimShuffle printer can only print DimShuffle, got "
                                     << node.op()->name();
    std::vector<int> order = op->new_order();
    // Added broadcastable axes in front are not shown (Theano's __p).
    std::size_t first = 0;
    while (first < order.size() && order[first] == tensor::kNewAxis) ++first;
    order.erase(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first));
    const Var& input = node.input(0);
    const int ndim = op->input_ndim();
    std::vector<int> identity(static_cast<std::size_t>(ndim)), reversed;
    for (int k = 0; k < ndim; ++k) identity[static_cast<std::size_t>(k)] = k;
    reversed.assign(identity.rbegin(), identity.rend());
    if (order == identity) return state.pprinter->process(input, state);
    if (order == reversed) return state.pprinter->process(input, state) + ".T";
    std::string s = "DimShuffle{";
    for (std::size_t k = 0; k < order.size(); ++k)
      s += (k ? ", " : "") + (order[k] == tensor::kNewAxis ? std::string("x") : std::to_string(order[k]));
    return s + "}(" + state.pprinter->process(input, state) + ")";
  }
};

}  // namespace

PrinterPtr operator_printer(std::string op, double precedence, Assoc assoc) {
  return std::make_shared<OperatorPrinter>(std::move(op), precedence, assoc);
}
PrinterPtr function_printer(std::vector<std::string> names) {
  THEANO_USER_CHECK(!names.empty(), ValueError) << "function_printer: give at least one name";
  return std::make_shared<FunctionPrinter>(std::move(names));
}
PrinterPtr pattern_printer(std::vector<std::string> patterns) {
  THEANO_USER_CHECK(!patterns.empty(), ValueError) << "pattern_printer: give at least one pattern";
  return std::make_shared<PatternPrinter>(std::move(patterns));
}
PrinterPtr ignore_printer() { return std::make_shared<IgnorePrinter>(); }
PrinterPtr leaf_printer() {
  static const PrinterPtr p = std::make_shared<LeafPrinter>();
  return p;
}
PrinterPtr default_printer() {
  static const PrinterPtr p = std::make_shared<DefaultPrinter>();
  return p;
}
PrinterPtr dimshuffle_printer() { return std::make_shared<DimShufflePrinter>(); }

// ---------------------------------------------------------------- PPrinter

void PPrinter::assign(std::string key, PrinterPtr printer) { by_key_[std::move(key)] = std::move(printer); }
void PPrinter::assign_scalar(std::string scalar_name, PrinterPtr printer) {
  by_scalar_[std::move(scalar_name)] = std::move(printer);
}
void PPrinter::assign(Condition condition, PrinterPtr printer) {
  conditions_.insert(conditions_.begin(), {std::move(condition), std::move(printer)});
}

std::string PPrinter::process(const Var& v, PrinterState& state) const {
  THEANO_USER_CHECK(v, ValueError) << "pprint: cannot print a null Var";
  const PPrinter* saved = state.pprinter;
  state.pprinter = this;
  struct Restore {
    PrinterState& s;
    const PPrinter* p;
    ~Restore() { s.pprinter = p; }
  } restore{state, saved};
  for (const auto& [cond, printer] : conditions_)
    if (cond(state, v)) return printer->process(v, state);
  if (const Apply* node = v.owner()) {
    const Op& op = *node->op();
    if (auto it = by_key_.find(op.name()); it != by_key_.end()) return it->second->process(v, state);
    if (const auto* e = dynamic_cast<const tensor::Elemwise*>(&op)) {
      const std::string sname = e->scalar_op()->name();
      if (e->inplace_pattern().empty()) {
        if (auto it = by_scalar_.find(sname); it != by_scalar_.end()) return it->second->process(v, state);
      }
      // Theano's `name(args)`, and `name=(args)` for the inplace version (its
      // `_inplace` suffix becomes `=`).
      const std::string tname = theano_name(sname);
      return FunctionPrinter({e->inplace_pattern().empty() ? tname : tname + "="}).process(v, state);
    }
    if (auto it = by_key_.find(std::string(op.type_name())); it != by_key_.end()) return it->second->process(v, state);
  }
  return default_printer()->process(v, state);
}

std::string PPrinter::operator()(const Var& v) const {
  PrinterState state;
  state.pprinter = this;
  return process(v, state);
}

PPrinter PPrinter::clone_assign(Condition condition, PrinterPtr printer) const {
  PPrinter copy = *this;
  copy.assign(std::move(condition), std::move(printer));
  return copy;
}

std::string PPrinter::process_graph(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                    const std::vector<std::pair<Var, Var>>& updates, bool display_inputs) const {
  std::vector<std::pair<int, std::string>> strings;
  if (display_inputs) {
    std::string s = "inputs: ";
    bool first = true;
    for (const Var& v : inputs) s += (std::exchange(first, false) ? "" : ", ") + v.str();
    for (const auto& [shared, upd] : updates) s += (std::exchange(first, false) ? "" : ", ") + shared.str();
    strings.emplace_back(0, s);
  }
  // Named variables print by name, except the one being defined.
  auto current = std::make_shared<const Variable*>(nullptr);
  const PPrinter printer = clone_assign(
      [current](const PrinterState&, const Var& r) { return !r.name().empty() && r.get() != *current; }, leaf_printer());
  auto print = [&](const Var& v) {
    PrinterState state;
    state.pprinter = &printer;
    return printer.process(v, state);
  };
  std::vector<Var> all_in = inputs, all_out = outputs;
  for (const auto& [shared, upd] : updates) {
    all_in.push_back(shared);
    all_out.push_back(upd);
  }
  int i = 1;
  for (Apply* node : io_toposort(all_in, all_out)) {
    for (const Var& output : node->outputs()) {
      for (const auto& [shared, upd] : updates)
        if (upd == output) {
          strings.emplace_back(i + 1000, shared.str() + " <- " + print(output));
          ++i;
        }
      auto pos = std::find(outputs.begin(), outputs.end(), output);
      if (!output.name().empty() || pos != outputs.end()) {
        const std::string name =
            output.name().empty() ? "out[" + std::to_string(pos - outputs.begin()) + "]" : output.name();
        *current = output.get();
        const int idx = pos != outputs.end() ? 2000 + static_cast<int>(pos - outputs.begin()) : i;
        if (outputs.size() == 1 && outputs[0] == output)
          strings.emplace_back(idx, "return " + print(output));
        else
          strings.emplace_back(idx, name + " = " + print(output));
        ++i;
      }
    }
  }
  std::stable_sort(strings.begin(), strings.end());
  std::string r;
  for (std::size_t k = 0; k < strings.size(); ++k) r += (k ? "\n" : "") + strings[k].second;
  return r;
}

// ---------------------------------------------------------------- the table

PPrinter& pprinter() {
  static PPrinter table = [] {
    PPrinter p;
    // Theano 1.0's theano/tensor/basic.py: every elementwise function prints as
    // `name(args)` (comparisons `gt(x, y)`, bitwise `and_(i, j)`, `mod(x, y)`;
    // see theano_name) except these seven operators and abs (`|x|`).
    p.assign_scalar("add", operator_printer("+", -2, Assoc::Either));
    p.assign_scalar("sub", operator_printer("-", -2, Assoc::Left));
    p.assign_scalar("mul", operator_printer("*", -1, Assoc::Either));
    p.assign_scalar("true_div", operator_printer("/", -1, Assoc::Left));
    p.assign_scalar("int_div", operator_printer("//", -1, Assoc::Left));
    p.assign_scalar("neg", operator_printer("-", 0, Assoc::Either));
    p.assign_scalar("pow", operator_printer("**", 1, Assoc::Right));
    p.assign_scalar("abs", pattern_printer({"|{0}|"}));
    p.assign_scalar("second", function_printer({"fill"}));
    p.assign("DimShuffle", dimshuffle_printer());
    p.assign("Dot", operator_printer("\\dot", -1, Assoc::Left));
    return p;
  }();
  return table;
}

std::string pprint(const Var& v) { return pprinter()(v); }

std::string pprint(const std::vector<Var>& outputs) {
  std::string r;
  for (const Var& v : outputs) r += pprint(v) + "\n";
  return r;
}

}  // namespace theano
