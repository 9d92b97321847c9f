/// \file
/// `FunctionGraph`: the subgraph between a list of inputs and a list of outputs
/// that compilation works on (Theano's `gof/fg.py`, PyTensor's `graph/fg.py`).
///
/// Why: rewrites need to walk a graph in both directions (`clients`) and to
/// replace variables, and Features need to hear about every such change. The
/// FunctionGraph is the only place where an Apply's inputs are mutated
/// (`Apply::set_input` is reserved for it), so it can keep its caches exact and
/// announce each change (docs/architecture.md, "Graphs are changed only through FunctionGraph").
///
/// Invariants (checked by `check_integrity`):
/// * `apply_nodes()` are exactly the nodes between `inputs()` and `outputs()`;
/// * `variables()` are the inputs, outputs, and every input and output of those
///   nodes; constants and inputs are the only owner-less ones;
/// * `clients(v)` lists each `(node, i)` with `node->input(i) == v` and each
///   output slot `j` with `outputs()[j] == v` (the `Client::is_output` sentinel);
/// * a node whose outputs all lose their last client is pruned (Features hear
///   `on_prune`) and may die; everything inside the graph is kept alive by it;
/// * with `clone = false` a Variable or Apply (Constants excepted) belongs to
///   at most one FunctionGraph at a time: a second graph taking it is refused
///   with ValueError until the first is destroyed or `disown()`ed. The registry
///   lives here (keyed by node address), not in the nodes.
///
/// Callbacks: `execute_callbacks(&Feature::on_prune, node, reason)` takes a
/// pointer to a Feature member function, so names and argument lists are
/// checked by the compiler (instead of Theano's string names), and calls it on
/// every attached feature in attachment order; `collect_callbacks` also
/// gathers the results.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "theano/fgraph/feature.h"
#include "theano/graph/basic.h"

namespace theano {

struct Equiv;      // graph/equiv.h
struct Orderings;  // graph/toposort.h

/// One use of a variable: input `index` of `node`, or, when `node` is null,
/// the graph's output slot `index` (Theano's `("output", index)`).
struct Client {
  Apply* node = nullptr;
  int index = 0;

  static Client output(int i) noexcept { return Client{nullptr, i}; }
  bool is_output() const noexcept { return node == nullptr; }
  friend bool operator==(const Client&, const Client&) = default;
};

class FunctionGraph {
 public:
  /// The graph computing `outputs` from `inputs`. With `clone` (the default)
  /// the user's graph is copied first and never mutated; `inputs()` and
  /// `outputs()` are then the copies. Each input must be owner-less (ValueError)
  /// and listed once; every owner-less non-constant variable the outputs need
  /// must be an input (MissingInputError naming it). `features` are attached
  /// before the graph is imported; a ReplaceValidate (with History and
  /// Validator) is always attached.
  FunctionGraph(std::vector<Var> inputs, std::vector<Var> outputs, std::vector<FeaturePtr> features = {},
                bool clone = true);
  ~FunctionGraph();
  FunctionGraph(const FunctionGraph&) = delete;
  FunctionGraph& operator=(const FunctionGraph&) = delete;

  // ------------------------------------------------------------ contents
  const std::vector<Var>& inputs() const noexcept { return inputs_; }
  const std::vector<Var>& outputs() const noexcept { return outputs_; }
  /// The nodes of the graph, by creation id.
  std::vector<Apply*> apply_nodes() const;
  /// The variables of the graph, by creation id.
  std::vector<Var> variables() const;
  std::size_t num_apply_nodes() const noexcept;
  std::size_t num_variables() const noexcept;
  bool contains(const Apply* node) const;
  bool contains(const Var& var) const;
  bool is_input(const Var& var) const;
  /// The uses of `var` (empty when `var` is not in the graph).
  const std::vector<Client>& clients(const Var& var) const;

  // ------------------------------------------------------------ changes
  /// Declares a new input (owner-less, else ValueError). With `check`, an
  /// existing input is ignored.
  void add_input(const Var& var, bool check = true);
  /// Appends `var` to the outputs, importing what computes it.
  void add_output(const Var& var, std::string_view reason = {}, bool import_missing = false);
  /// Makes `var` part of the graph, importing its owner's subgraph. An
  /// owner-less non-constant variable that is not an input raises
  /// MissingInputError, or becomes an input with `import_missing`.
  void import_var(const Var& var, std::string_view reason = {}, bool import_missing = false);
  /// Imports `node` and every node it depends on that is not yet in the graph,
  /// in dependency order, announcing each with `on_import`. With `check`, a
  /// missing input raises MissingInputError before anything changes.
  void import_node(Apply& node, bool check = true, std::string_view reason = {}, bool import_missing = false);
  /// Sets input `i` of `node` (output slot `i` when `node` is null) to
  /// `new_var`: imports it, updates clients, prunes what lost its last client
  /// and announces `on_change_input`. With `check`, the old type must accept the
  /// new one (`is_super`), else TypeError naming both types and the node.
  void change_input(Apply* node, int i, const Var& new_var, std::string_view reason = {},
                    bool import_missing = false, bool check = true);
  /// Makes every client of `var` use `new_var` instead (converted to `var`'s
  /// type through `Type::convert_variable`, else TypeError). A `var` that is not
  /// in the graph is ignored, as in Theano. `verbose` prints the change to stderr.
  void replace(const Var& var, const Var& new_var, std::string_view reason = {}, bool verbose = false,
               bool import_missing = false);
  /// `replace` for each pair, in order.
  void replace_all(const std::vector<std::pair<Var, Var>>& pairs, std::string_view reason = {}, bool verbose = false);
  /// Removes one client entry of `var`, pruning `var`'s owner (and further up)
  /// when nothing uses it any more.
  void remove_client(const Var& var, Client client, std::string_view reason = {});
  /// Removes `node` and everything that depends on it, graph outputs included,
  /// then prunes what became unused.
  void remove_node(Apply& node, std::string_view reason = {});
  /// Removes output slot `i` (later slots shift down) and prunes what became unused.
  void remove_output(int i, std::string_view reason = {});

  /// The transactional versions, provided by the ReplaceValidate feature
  /// (ValueError when it was removed): apply, `validate()`, roll back through
  /// History and rethrow on failure.
  void replace_validate(const Var& var, const Var& new_var, std::string_view reason = {});
  void replace_all_validate(const std::vector<std::pair<Var, Var>>& pairs, std::string_view reason = {});

  /// Calls every feature's `validate` (InconsistencyError when one refuses).
  void validate() const { execute_callbacks(&Feature::validate); }
  /// `validate()` as a bool.
  bool consistent() const;

  // ------------------------------------------------------------ features
  /// Attaches `feature` and calls its `on_attach`. Returns false (and attaches
  /// nothing) when it is already attached or `on_attach` threw AlreadyThere.
  bool attach_feature(FeaturePtr feature);
  /// Detaches `feature` (calling `on_detach`); false when it was not attached.
  bool remove_feature(const Feature* feature);
  const std::vector<FeaturePtr>& features() const noexcept { return features_; }
  /// The first attached feature of class `T`, or nullptr.
  template <class T>
  T* find_feature() const {
    for (const FeaturePtr& f : features_)
      if (auto* t = dynamic_cast<T*>(f.get())) return t;
    return nullptr;
  }

  /// `(feature.*callback)(*this, args...)` for every feature, in attachment
  /// order. A feature attached by a callback is called too; removing features
  /// from inside a callback may skip the one after the removed one.
  template <class M, class... A>
  void execute_callbacks(M Feature::*callback, A&&... args) {
    for (std::size_t k = 0; k < features_.size(); ++k) {
      FeaturePtr keep = features_[k];
      ((*keep).*callback)(*this, args...);
    }
  }
  template <class M, class... A>
  void execute_callbacks(M Feature::*callback, A&&... args) const {
    for (std::size_t k = 0; k < features_.size(); ++k) {
      FeaturePtr keep = features_[k];
      ((*keep).*callback)(*this, args...);
    }
  }
  /// Like `execute_callbacks`, returning each feature's result beside it.
  template <class M, class... A>
  auto collect_callbacks(M Feature::*callback, A&&... args) const {
    using R = std::invoke_result_t<M Feature::*, Feature&, const FunctionGraph&, A&...>;
    std::vector<std::pair<Feature*, R>> results;
    for (std::size_t k = 0; k < features_.size(); ++k) {
      FeaturePtr keep = features_[k];
      results.emplace_back(keep.get(), ((*keep).*callback)(*this, args...));
    }
    return results;
  }

  // ------------------------------------------------------------ order
  /// The nodes in an order that respects data dependencies and every
  /// feature's `orderings()`; deterministic (see io_toposort). Cached until the
  /// graph or the feature list changes. ValueError when the constraints form a
  /// cycle; a feature's `orderings` may throw InconsistencyError.
  std::vector<Apply*> toposort() const;
  /// The union of every feature's `orderings()`.
  Orderings orderings() const;
  /// Drops the cached toposort (for features whose orderings change without
  /// the graph changing).
  void invalidate_toposort() const { topo_.reset(); }

  /// Throws InternalError describing the first broken invariant (see \file).
  void check_integrity() const;

  // ------------------------------------------------------------ copies
  /// A copy of this graph over fresh nodes, with the features that support
  /// cloning (`Feature::clone_for`) re-attached.
  std::unique_ptr<FunctionGraph> clone(bool check_integrity = true) const;
  /// The copy and the map from this graph's variables and nodes to the copy's.
  std::pair<std::unique_ptr<FunctionGraph>, Equiv> clone_get_equiv(bool check_integrity = true,
                                                                   bool attach_feature = true) const;
  /// Detaches every feature, forgets every node and variable and releases
  /// their membership, leaving an empty graph; the nodes can then join another
  /// FunctionGraph.
  void disown();

  /// `FunctionGraph(<output>, ...)` using `as_string`.
  std::string str() const;

 private:
  struct VarEntry {
    Var var;  // strong: keeps the variable (and its owner) alive while in the graph
    std::vector<Client> clients;
  };

  VarEntry& setup_var(const Var& var);
  void erase_client(const Var& var, const Client& client);
  void prune_unused(std::vector<Var> check, std::string_view reason);
  void drop_var(const Variable* var);
  void release_all() noexcept;
  std::string describe(const Apply* node) const;

  std::vector<Var> inputs_;
  std::vector<Var> outputs_;
  struct Tables;  // the variables, Apply nodes and input set (fgraph/tables.h)
  std::unique_ptr<Tables> tables_;
  std::vector<FeaturePtr> features_;
  mutable std::optional<std::vector<Apply*>> topo_;
};

std::ostream& operator<<(std::ostream& os, const FunctionGraph& fg);

}  // namespace theano
