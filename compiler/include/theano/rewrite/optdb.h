/// \file
/// Rewrite databases and queries (PyTensor's `graph/rewriting/db.py`): an
/// `EquilibriumDB` holds node rewriters with tags, a `SequenceDB` holds stages
/// at float positions; a `Query` selects what a mode runs. The stage layout and the modes:
/// compiler/src/rewrite/optdb_layout.cpp (its table lists the stages other files add too).
///
/// Selection (as PyTensor's RewriteDatabaseQuery): an entry is selected when
/// one of `include` is among its tags or is its name, every `require` is among
/// its tags, and no `exclude` is among its tags or is its name. A stage that is
/// itself a database is selected the same way and then queried with the same
/// Query. `position_cutoff` keeps the SequenceDB stages whose position is
/// strictly below it.
#pragma once

#include <ostream>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "theano/rewrite/rewriter.h"

namespace theano::rewrite {

struct Query {
  std::set<std::string> include;
  std::set<std::string> exclude;
  std::set<std::string> require;
  std::optional<double> position_cutoff;

  Query including(const std::vector<std::string>& tags) const;
  Query excluding(const std::vector<std::string>& tags) const;
  Query requiring(const std::vector<std::string>& tags) const;
  /// Whether an entry with this name and these tags is selected.
  bool selects(const std::string& name, const std::set<std::string>& tags) const;
};

/// Node rewriters applied to equilibrium, plus graph rewriters run at the
/// start of every pass (merge, as PyTensor's `final_rewriters`/cleanup).
class EquilibriumDB {
 public:
  explicit EquilibriumDB(std::string name) : name_(std::move(name)) {}
  const std::string& name() const noexcept { return name_; }
  /// ValueError when a rewrite of that name is already registered.
  void register_rewrite(NodeRewriterPtr rewriter, std::vector<std::string> tags);
  void register_global(GraphRewriterPtr rewriter, std::vector<std::string> tags);
  /// An EquilibriumRewriter over the selected entries (registration order).
  std::shared_ptr<EquilibriumRewriter> query(const Query& q, CapPolicy cap = CapPolicy::Warn) const;
  /// `  name [tags] : algebra` for each selected entry; with a null `q`,
  /// `  name [tags]` for every entry (the layout, print_summary()).
  void summary(std::ostream& os, const Query* q, const std::string& indent) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    std::set<std::string> tags;
    NodeRewriterPtr node;
    GraphRewriterPtr graph;
  };
  void check_new(const std::string& name) const;
  std::string name_;
  std::vector<Entry> entries_;
};
using EquilibriumDBPtr = std::shared_ptr<EquilibriumDB>;

/// Stages at float positions, run in position order (registration order on ties).
class SequenceDB {
 public:
  using Stage = std::variant<GraphRewriterPtr, EquilibriumDBPtr>;
  void register_stage(std::string name, double position, Stage stage, std::vector<std::string> tags);
  /// The selected stages, in order, as one GraphRewriter.
  GraphRewriterPtr query(const Query& q) const;
  /// What `q` runs, in order: one line per stage (`position name [tags]`),
  /// then each selected rewrite of an equilibrium stage, indented.
  std::string summary(const Query& q) const;
  /// Every stage and rewrite, selected by any query or not, without the
  /// algebra: the layout itself.
  std::string summary() const;
  /// The EquilibriumDB registered as stage `name` (ValueError when none).
  EquilibriumDB& equilibrium(const std::string& name) const;
  /// The stage names, in order.
  std::vector<std::string> stage_names() const;

 private:
  struct Entry {
    std::string name;
    double position;
    std::set<std::string> tags;
    Stage stage;
  };
  std::vector<const Entry*> ordered(const Query* q) const;
  std::string summary(const Query* q) const;
  std::vector<Entry> entries_;
};

/// The process-wide database, built on first use by optdb_layout.cpp.
const SequenceDB& optdb();
/// The Query of mode `mode` (canonical or alias name, case-insensitive:
/// o1 = fast_compile, o2, o3, o4 = fast_run, stabilize, unsafe, unoptimized),
/// with THEANO_FLAGS `optimizer_including` / `optimizer_excluding`
/// (colon-separated tags or rewrite names) applied. ValueError when unknown.
Query mode_query(const std::string& mode);
/// The rewrites mode `mode` runs, in order, with their tags.
std::string print_summary(const std::string& mode);
/// The whole pipeline as optdb_layout.cpp registers it: every stage (position,
/// name, tags) in run order, each followed by its rewrites in order with their
/// tags (tests/compiler/rewrite/test_pipeline.cpp holds it verbatim).
std::string print_summary();

/// Runs `query` from optdb on `fg`; returns the statistics of the run.
/// `print_after`: a stage name, or "all", after which `debugprint(fg)` is
/// written to `dump` (default: THEANO_FLAGS `optimizer_print_after`, to stderr).
RewriteStats optimize(FunctionGraph& fg, const Query& query, std::optional<std::string> print_after = {},
                      std::ostream* dump = nullptr);

}  // namespace theano::rewrite
