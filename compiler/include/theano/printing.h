/// \file
/// Looking at graphs: Theano's three printers (theano/printing.py).
///
/// * `debugprint` — one line per variable, indented by depth, each node with an
///   id (`[id A]`), in Theano 1.0's exact layout:
///   ```
///   Elemwise{add,no_inplace} [id A] ''
///    |x [id B]
///    |Elemwise{mul,no_inplace} [id C] ''
///      |y [id D]
///      |z [id E]
///   ```
///   A node reached again is printed again as one line with the same id and
///   without its inputs; outputs of a multi-output node carry `.i` after the op
///   name; for a FunctionGraph or compiled Function the node's toposort index
///   ends its line (`''   3`). A graph with scans ends, as Theano's, with
///   "Inner graphs of the scan ops:" and each scan's step graph (` >` lines;
///   an inner input shows the outer input it reads: `-> [id B]`).
///   Trailing blanks are trimmed from every line (the
///   only deliberate difference from Theano, whose lines end in `''   `).
/// * `pprint` / `pp` — infix math, `(x + (y * z))`, from a table mapping op
///   kinds to printers (Theano's PPrinter: OperatorPrinter with precedence and
///   associativity, FunctionPrinter, DimShufflePrinter, ...); ops not in the
///   table print in function-call form `op(args)`.
/// * `to_dot` / `write_graph` — Theano's pydotprint as Graphviz text: apply
///   nodes are ellipses coloured by op class, variables are boxes (inputs
///   green, shared variables cyan, outputs blue, unused outputs grey); edges
///   carry the input index when a node has several inputs; `.svg`/`.png`/...
///   are rendered by Debian's `dot` program when it is installed.
///
/// Everything here is deterministic (ids follow the walk order, DOT node names
/// are numbered in emission order), so the text can serve as golden output.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

class FunctionGraph;
class Function;

// ============================================================== debugprint

/// How debugprint identifies nodes (Theano's `ids` argument).
enum class IdStyle {
  Char,  ///< "CHAR": `[id A]`, `[id B]`, ..., `[id Z]`, `[id BA]` (base 26)
  Int,   ///< "int": `[id 0]`, `[id 1]`, ...
  Id,    ///< "id": `[id <creation id>]` (Theano prints the Python id)
  None,  ///< "": no identifier
};

struct DebugPrintOptions {
  int depth = -1;                  ///< levels to print; -1 unlimited (depth 1: only the top line)
  bool print_type = false;         ///< append ` <TensorType(float64, vector)>`
  IdStyle ids = IdStyle::Char;
  bool stop_on_name = false;       ///< do not expand below a named variable
  bool print_destroy_map = false;  ///< ` d={0: [0]}` for ops that overwrite an input
  bool print_view_map = false;     ///< ` v={0: [0]}` for ops whose output aliases an input
  bool print_clients = false;      ///< for a FunctionGraph/Function: ` clients:[('[id B]', 1), ('output', '')]`
  /// Mark shared variables (their name and id, then ` (shared)`); Theano only
  /// colours them in pydotprint, debugprint shows the mark so state is visible.
  bool mark_shared = true;
};

/// The text of the graph computing `v` (each line ends with '\n').
std::string debugprint(const Var& v, const DebugPrintOptions& options = {});
/// Several outputs share one id table: a node printed for an earlier output is
/// referenced by the same id later.
std::string debugprint(const std::vector<Var>& outputs, const DebugPrintOptions& options = {});
/// The outputs of `node`.
std::string debugprint(const Apply& node, const DebugPrintOptions& options = {});
/// The graph's outputs, each node followed by its index in `fg.toposort()`.
std::string debugprint(const FunctionGraph& fg, const DebugPrintOptions& options = {});

/// A compiled function: its FunctionGraph (outputs, then one expression per
/// update), each node followed by its toposort index.
std::string debugprint(const Function& f, const DebugPrintOptions& options = {});

std::ostream& debugprint(std::ostream& os, const Var& v, const DebugPrintOptions& options = {});
std::ostream& debugprint(std::ostream& os, const std::vector<Var>& outputs, const DebugPrintOptions& options = {});
std::ostream& debugprint(std::ostream& os, const FunctionGraph& fg, const DebugPrintOptions& options = {});
std::ostream& debugprint(std::ostream& os, const Function& f, const DebugPrintOptions& options = {});

/// Theano's `char_from_number`: 0 -> "A", 25 -> "Z", 26 -> "BA" (base 26 with
/// A as digit zero).
std::string char_from_number(std::size_t number);

/// The text debugprint and pprint use for a variable without owner (or any
/// variable in leaf position): its name; `TensorConstant{1.0}` for an unnamed
/// tensor constant; otherwise `Variable::str()` (`<TensorType(float64, vector)>`).
std::string leaf_text(const Var& v);

// ============================================================== pprint

class PPrinter;

/// Theano's PPrinter, its printers and their state are in
/// `theano/pprinter.h` (for code that teaches pprint a new op).
class PPrinter;

/// The global table (Theano's `theano.printing.pprint`), filled as Theano 1.0
/// fills it: the operators + - * / // ** (unary -), `|x|` for abs, and
/// function-call form under Theano's name for every other scalar op
/// (`gt(x, y)`, `mod(x, y)`, `and_(i, j)`). Other layers may `assign` their
/// ops (not thread-safe: do it at start-up).
PPrinter& pprinter();
/// `pprinter()(v)`: e.g. `(x + (y * z))`, `exp((x - TensorConstant{1}))`.
std::string pprint(const Var& v);
/// One line per output.
std::string pprint(const std::vector<Var>& outputs);
/// Theano's alias.
inline std::string pp(const Var& v) { return pprint(v); }

// ============================================================== Graphviz

struct DotOptions {
  /// Drop unnamed intermediate variables: the edge goes from the producing
  /// node to the consumer, labelled with the variable's type.
  bool compact = true;
  /// Append ` id=<toposort index>` to every apply label (always done when two
  /// labels would otherwise coincide).
  bool with_ids = false;
  /// Fill nodes with their colour (else only the border is coloured).
  bool high_contrast = true;
  /// Longer labels are cut to this many characters, ending in `...`.
  std::size_t max_label_size = 70;
  /// A named variable shows only its name (else `name=x TensorType(...)`).
  bool var_with_name_simple = false;
  /// (substring of the op class name, colour); the last match wins. `Output`
  /// is the colour of outputs and of edges into ops that view their input.
  std::vector<std::pair<std::string, std::string>> color_codes = default_color_codes();
  /// (shared variable, its update): drawn as an `UPDATE` edge (filled in for
  /// compiled functions; may be given for a plain graph).
  std::vector<std::pair<Var, Var>> updates;

  /// Theano's defaults: GpuFromHost/HostFromGpu red, Scan yellow, Shape brown,
  /// IfElse magenta, Elemwise #FFAABB, Subtensor #FFAAFF, Alloc #FFAA22, Output blue.
  static std::vector<std::pair<std::string, std::string>> default_color_codes();
};

/// Graphviz text of the graph computing `outputs`.
std::string to_dot(const std::vector<Var>& outputs, const DotOptions& options = {});
std::string to_dot(const Var& output, const DotOptions& options = {});
/// Graphviz text of `fg`, apply nodes in its toposort order.
std::string to_dot(const FunctionGraph& fg, const DotOptions& options = {});
/// Graphviz text of a compiled function: its graph, with each update drawn as
/// an `UPDATE` edge from the shared variable to its new value.
std::string to_dot(const Function& f, const DotOptions& options = {});

/// True when Graphviz's `dot` program is on PATH (`command -v dot`).
bool graphviz_available();
/// Renders DOT text with `dot -T<format>` into `path`. IOError when `dot` is
/// missing (naming the Debian package) or fails (with its message).
void render_dot(const std::string& dot_text, const std::string& path, std::string_view format);

/// Writes the graph to `path`, choosing by extension: `.dot`/`.gv` as text,
/// any other Graphviz output format (`.svg`, `.png`, `.pdf`, ...) through
/// `render_dot`. ValueError for a path without extension.
void write_graph(const std::string& path, const std::vector<Var>& outputs, const DotOptions& options = {});
void write_graph(const std::string& path, const FunctionGraph& fg, const DotOptions& options = {});
void write_graph(const std::string& path, const Function& f, const DotOptions& options = {});

}  // namespace theano
