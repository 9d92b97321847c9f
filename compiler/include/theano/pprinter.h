/// \file
/// Theano's PPrinter (theano/printing.py): the table that `pprint` consults,
/// and the printers it holds, for code that teaches pprint a new op
/// (`pprinter().assign(...)`). Users who only print include theano/printing.h.
/// Kept out of printing.h (and theano.hpp) so that user programs do not pay
/// for <functional> and <unordered_map>.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/printing.h"

namespace theano {

class PPrinter;

/// What a printer sees while printing one expression.
struct PrinterState {
  const PPrinter* pprinter = nullptr;
  /// Precedence of the context (Theano records it; like Theano, operators are
  /// always parenthesized, so it does not change the text).
  double precedence = -1e9;
  /// Variable -> its text, so a shared sub-expression is walked once.
  std::unordered_map<const Variable*, std::string> memo;
};

/// Prints one variable (computed by a node the printer was chosen for).
class Printer {
 public:
  virtual ~Printer() = default;
  virtual std::string process(const Var& output, PrinterState& state) const = 0;
};
using PrinterPtr = std::shared_ptr<const Printer>;

enum class Assoc { Left, Right, Either };

/// `(a + b + c)`; a unary operator prints `(-a)`.
PrinterPtr operator_printer(std::string op, double precedence, Assoc assoc = Assoc::Left);
/// `name(a, b)`; with several names, output i of the node uses names[i].
PrinterPtr function_printer(std::vector<std::string> names);
/// Text patterns with `{0}`, `{1}` for the inputs, one per output.
PrinterPtr pattern_printer(std::vector<std::string> patterns);
/// Prints input 0 as if the node were not there.
PrinterPtr ignore_printer();
/// The variable's name or leaf text (`\alpha` for a variable named alpha, ...).
PrinterPtr leaf_printer();
/// `opname(a, b)` (`leaf_printer` for a variable without owner).
PrinterPtr default_printer();
/// DimShuffle: added broadcastable axes are invisible, a full reversal prints
/// `x.T`, anything else `DimShuffle{1, x, 0}(x)`.
PrinterPtr dimshuffle_printer();

/// Theano's PPrinter: the printer for a variable is found, in order, by the
/// conditions (newest first, so `clone_assign` overrides everything), by the
/// op's printed name (`Elemwise{add,no_inplace}`), by its scalar op for an
/// Elemwise (`add`; other scalar ops print `exp(x)`), by its class
/// (`DimShuffle`), then `default_printer`.
class PPrinter {
 public:
  using Condition = std::function<bool(const PrinterState&, const Var&)>;

  /// `key` is an op's `name()` or `type_name()`.
  void assign(std::string key, PrinterPtr printer);
  /// Printer for Elemwise nodes whose scalar op is named `scalar_name`.
  void assign_scalar(std::string scalar_name, PrinterPtr printer);
  /// Conditions are tried newest first, before the op-keyed tables.
  void assign(Condition condition, PrinterPtr printer);

  std::string process(const Var& v, PrinterState& state) const;
  std::string operator()(const Var& v) const;
  PPrinter clone_assign(Condition condition, PrinterPtr printer) const;

  /// Theano's `process_graph`: one line per named intermediate, per update
  /// (`w <- (w - ...)`) and per output (`return ...` for a single output,
  /// else `out[i] = ...`/`name = ...`), named variables printed by name.
  std::string process_graph(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                            const std::vector<std::pair<Var, Var>>& updates = {},
                            bool display_inputs = false) const;

 private:
  std::unordered_map<std::string, PrinterPtr> by_key_;
  std::unordered_map<std::string, PrinterPtr> by_scalar_;
  std::vector<std::pair<Condition, PrinterPtr>> conditions_;  // newest first
};

}  // namespace theano
