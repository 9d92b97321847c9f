/// \file
/// Query selection, EquilibriumDB, SequenceDB, optimize().
#include "theano/rewrite/optdb.h"

#include "theano/graph/creation_site.h"

#include <ostream>
#include <variant>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>

#include "known_names.h"
#include "op_kinds.h"
#include "theano/config_flags.h"
#include "theano/printing.h"

namespace theano::rewrite {

namespace {
std::string join_tags(const std::set<std::string>& tags) {
  std::string s;
  for (const std::string& t : tags) s += (s.empty() ? "" : ", ") + t;
  return s;
}
}  // namespace

Query Query::including(const std::vector<std::string>& tags) const {
  Query q = *this;
  q.include.insert(tags.begin(), tags.end());
  return q;
}
Query Query::excluding(const std::vector<std::string>& tags) const {
  Query q = *this;
  q.exclude.insert(tags.begin(), tags.end());
  return q;
}
Query Query::requiring(const std::vector<std::string>& tags) const {
  Query q = *this;
  q.require.insert(tags.begin(), tags.end());
  return q;
}

namespace {
struct KnownNames {
  std::mutex mu;
  std::set<std::string> names;
};
KnownNames& known_names() {
  static KnownNames k;
  return k;
}
}  // namespace

void note_known(const std::string& name, const std::set<std::string>& tags) {
  KnownNames& k = known_names();
  std::lock_guard<std::mutex> lock(k.mu);
  k.names.insert(name);
  k.names.insert(tags.begin(), tags.end());
}

void check_known(const std::vector<std::string>& names, const std::string& flag) {
  // Nothing to check needs no optimizer: registering every stage and rewrite
  // costs a warm process's first function() about 0.4 ms.
  if (std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); })) return;
  (void)optdb();  // registers every stage and rewrite
  KnownNames& k = known_names();
  std::lock_guard<std::mutex> lock(k.mu);
  for (const std::string& n : names)
    THEANO_USER_CHECK(n.empty() || k.names.count(n), ValueError)
        << flag << ": no rewrite, stage or tag of the optimizer is named '" << n
        << "' (rewrite::print_summary(mode) lists a mode's stages and rewrites with their tags)";
}

bool Query::selects(const std::string& name, const std::set<std::string>& tags) const {
  auto has = [&](const std::string& t) { return t == name || tags.count(t) != 0; };
  if (std::none_of(include.begin(), include.end(), has)) return false;
  if (!std::all_of(require.begin(), require.end(), [&](const std::string& t) { return tags.count(t) != 0; }))
    return false;
  return std::none_of(exclude.begin(), exclude.end(), has);
}

void EquilibriumDB::check_new(const std::string& name) const {
  for (const Entry& e : entries_)
    THEANO_USER_CHECK(e.name != name, ValueError)
        << "EquilibriumDB " << name_ << ": a rewrite named '" << name << "' is already registered";
}

void EquilibriumDB::register_rewrite(NodeRewriterPtr rewriter, std::vector<std::string> tags) {
  std::string name(rewriter->name());
  check_new(name);
  for (const std::string& track : rewriter->tracks()) {
    const std::string why = invalid_track_reason(track);
    THEANO_USER_CHECK(why.empty(), ValueError) << "EquilibriumDB " << name_ << ": rewrite '" << name << "' tracks '"
                                               << track << "', which no node can match: " << why;
  }
  entries_.push_back({name, {tags.begin(), tags.end()}, std::move(rewriter), nullptr});
  note_known(name, entries_.back().tags);
}

void EquilibriumDB::register_global(GraphRewriterPtr rewriter, std::vector<std::string> tags) {
  std::string name(rewriter->name());
  check_new(name);
  entries_.push_back({name, {tags.begin(), tags.end()}, nullptr, std::move(rewriter)});
  note_known(name, entries_.back().tags);
}

std::shared_ptr<EquilibriumRewriter> EquilibriumDB::query(const Query& q, CapPolicy cap) const {
  std::vector<NodeRewriterPtr> nodes;
  std::vector<GraphRewriterPtr> globals;
  for (const Entry& e : entries_) {
    if (!q.selects(e.name, e.tags)) continue;
    if (e.node) nodes.push_back(e.node);
    if (e.graph) globals.push_back(e.graph);
  }
  return std::make_shared<EquilibriumRewriter>(name_, std::move(nodes), std::move(globals), 8.0, cap);
}

void EquilibriumDB::summary(std::ostream& os, const Query* q, const std::string& indent) const {
  for (const Entry& e : entries_) {
    if (q && !q->selects(e.name, e.tags)) continue;
    os << indent << e.name << " [" << join_tags(e.tags) << "]";
    if (q && e.node && !e.node->algebra().empty()) os << " : " << e.node->algebra();
    os << "\n";
  }
}

std::vector<std::string> EquilibriumDB::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

void SequenceDB::register_stage(std::string name, double position, Stage stage, std::vector<std::string> tags) {
  for (const Entry& e : entries_)
    THEANO_USER_CHECK(e.name != name, ValueError) << "SequenceDB: a stage named '" << name << "' is already registered";
  entries_.push_back({std::move(name), position, {tags.begin(), tags.end()}, std::move(stage)});
  note_known(entries_.back().name, entries_.back().tags);
}

std::vector<const SequenceDB::Entry*> SequenceDB::ordered(const Query* q) const {
  std::vector<const Entry*> out;
  for (const Entry& e : entries_) {
    if (q && (!q->selects(e.name, e.tags) || (q->position_cutoff && e.position >= *q->position_cutoff))) continue;
    out.push_back(&e);
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) { return a->position < b->position; });
  return out;
}

GraphRewriterPtr SequenceDB::query(const Query& q) const {
  std::vector<GraphRewriterPtr> stages;
  std::vector<std::string> names;
  for (const Entry* e : ordered(&q)) {
    names.push_back(e->name);
    if (const auto* g = std::get_if<GraphRewriterPtr>(&e->stage)) stages.push_back(*g);
    else stages.push_back(std::get<EquilibriumDBPtr>(e->stage)->query(q));
  }
  return std::make_shared<SequenceRewriter>("optdb", std::move(stages), std::move(names));
}

std::string SequenceDB::summary(const Query& q) const { return summary(&q); }
std::string SequenceDB::summary() const { return summary(nullptr); }

std::string SequenceDB::summary(const Query* q) const {
  std::ostringstream os;
  for (const Entry* e : ordered(q)) {
    os << std::setw(5) << e->position << "  " << e->name << " [" << join_tags(e->tags) << "]\n";
    if (const auto* db = std::get_if<EquilibriumDBPtr>(&e->stage)) (*db)->summary(os, q, "         ");
  }
  return os.str();
}

EquilibriumDB& SequenceDB::equilibrium(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name)
      if (const auto* db = std::get_if<EquilibriumDBPtr>(&e.stage)) return **db;
  throw ValueError("optdb has no equilibrium stage named '" + name + "'");
}

std::vector<std::string> SequenceDB::stage_names() const {
  std::vector<std::string> out;
  for (const Entry* e : ordered(nullptr)) out.push_back(e->name);
  return out;
}

RewriteStats optimize(FunctionGraph& fg, const Query& query, std::optional<std::string> print_after,
                      std::ostream* dump) {
  SuppressCreationSites quiet;  // replacements take the replaced variables' sites instead
  if (!print_after) {
    if (auto stage = flag_value("optimizer_print_after"); stage && !stage->empty()) print_after = *stage;
  }
  if (!dump) dump = &std::cerr;
  RewriteStats stats;
  auto seq = std::static_pointer_cast<const SequenceRewriter>(optdb().query(query));
  for (std::size_t i = 0; i < seq->rewriters().size(); ++i) {
    seq->rewriters()[i]->apply(fg, stats);
    const std::string stage = seq->stage_name(i);
    if (print_after && (*print_after == "all" || *print_after == stage))
      *dump << "=== after " << stage << " ===\n" << debugprint(fg);
  }
  return stats;
}

std::string print_summary(const std::string& mode) {
  return "mode " + mode + ":\n" + optdb().summary(mode_query(mode));
}

std::string print_summary() { return optdb().summary(); }

}  // namespace theano::rewrite
