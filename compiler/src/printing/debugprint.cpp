/// \file
/// debugprint (see printing.h): Theano 1.0's `theano.printing.debugprint` and
/// `theano.compile.debugmode.debugprint`, line for line.
///
/// Why a port and not a re-design: users compare this text with what Theano
/// printed, and golden tests of rewrites read it. So ids are handed out exactly
/// as Theano does (in order of first reference, one table for all outputs,
/// clients' ids included, even the `'output'` sentinel taking a slot), a node
/// seen again is printed as one line without its inputs, and the toposort index
/// of a FunctionGraph node ends its line. The walk is iterative so a long chain
/// does not exhaust the stack. A graph with scans is followed, as in Theano,
/// by "Inner graphs of the scan ops:" and each scan's step graph (lines
/// prefixed ` >`, an inner input pointing at the outer input it reads:
/// `x[t+0] [id F] -> [id B]`), nested scans after the scan holding them.
#include <algorithm>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "printing_internal.h"
#include "theano/control/scan.h"
#include "theano/fgraph/function_graph.h"
#include "theano/printing.h"
#include "theano/tensor/type.h"

namespace theano {

namespace printing_detail {

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string view_map_text(const ViewMap& m) {
  std::string r = "{";
  bool first = true;
  for (const auto& [out, ins] : m) {
    if (!first) r += ", ";
    first = false;
    r += std::to_string(out) + ": [";
    for (std::size_t k = 0; k < ins.size(); ++k) r += (k ? ", " : "") + std::to_string(ins[k]);
    r += "]";
  }
  return r + "}";
}

std::string numpy_str(const NDArray& a) {
  std::string r = a.str();
  if (r.rfind("array(", 0) != 0) return r;  // 0-d values print bare
  r = r.substr(6);
  if (auto d = r.rfind(", dtype="); d != std::string::npos && r.find(']', d) == std::string::npos) r = r.substr(0, d);
  else if (!r.empty() && r.back() == ')') r.pop_back();
  std::string out;
  for (std::size_t k = 0; k < r.size(); ++k) {
    if (r[k] == ',' && k + 1 < r.size() && (r[k + 1] == ' ' || r[k + 1] == '\n')) {
      if (r[k + 1] == ' ') {
        out += ' ';
        ++k;
      }
      continue;
    }
    out += r[k];
    if (r[k] == '\n') {
      // repr aligns continuation lines under "array(": six more spaces than str.
      std::size_t spaces = 0;
      while (k + 1 + spaces < r.size() && r[k + 1 + spaces] == ' ') ++spaces;
      k += std::min<std::size_t>(spaces, 6);
    }
  }
  return out;
}

std::string constant_value_text(const Constant& c) {
  if (c.data().ndim() > 0) return numpy_str(c.data());
  // A 0-d value: the graph core's text (`Constant{2.0}`), computed on an
  // unnamed copy so a name does not hide it.
  const Var unnamed = c.name().empty() ? Var() : c.clone();
  if (unnamed) unnamed->set_name("");
  const std::string s = unnamed ? unnamed.str() : c.str();
  return s.rfind("Constant{", 0) == 0 ? s.substr(9, s.size() - 10) : s;
}

}  // namespace printing_detail

using printing_detail::rstrip;

std::string char_from_number(std::size_t number) {
  if (number == 0) return "A";
  std::string r;
  while (number != 0) {
    r.insert(r.begin(), static_cast<char>('A' + number % 26));
    number /= 26;
  }
  return r;
}

std::string leaf_text(const Var& v) {
  if (!v) return "<null Var>";
  if (v.name().empty())
    if (const Constant* c = v.as_constant(); c && tensor::tensor_type(v)) {
      // Theano's TensorConstant.__str__: numpy's str of the value, long ones
      // cut in the middle.
      std::string s = printing_detail::constant_value_text(*c);
      if (s.size() > 20) s = s.substr(0, 10) + ".." + s.substr(s.size() - 10);
      return "TensorConstant{" + s + "}";
    }
  return v.str();
}

namespace {

/// Key of the id table: an Apply, a Variable, or Theano's 'output' sentinel.
using IdKey = const void*;
const char kOutputSentinel = 0;

class DebugPrinter {
 public:
  DebugPrinter(std::ostream& os, const DebugPrintOptions& options) : os_(os), opt_(options) {}

  /// Prints the graph above `r`; `topo`, when given, adds toposort indices and
  /// `fg` the clients.
  void print(const Var& r, const std::vector<Apply*>* topo = nullptr, const FunctionGraph* fg = nullptr,
             const std::string& prefix = "", const std::string& prefix_child = "") {
    order_.clear();
    if (topo)
      for (std::size_t k = 0; k < topo->size(); ++k) order_.emplace((*topo)[k], k);
    fg_ = fg;
    struct Task {
      Var r;
      std::string prefix, prefix_child;
      int depth;
    };
    std::vector<Task> stack{{r, prefix, prefix_child, opt_.depth}};
    while (!stack.empty()) {
      Task t = std::move(stack.back());
      stack.pop_back();
      if (t.depth == 0) continue;
      Apply* a = t.r.owner();
      if (!a) {
        print_leaf(t.r, t.prefix);
        continue;
      }
      const bool already_printed = done_.count(a) != 0;
      if (!already_printed && as_scan(*a)) scans_.push_back(t.r);
      print_apply(t.r, *a, t.prefix);
      if (already_printed || (opt_.stop_on_name && !t.r.name().empty())) continue;
      const int n = a->nin();
      for (int k = n - 1; k >= 0; --k)
        stack.push_back(Task{a->input(k), t.prefix_child + " |", t.prefix_child + (k == n - 1 ? "  " : " |"),
                             t.depth - 1});
    }
  }

  /// Theano's tail: each scan met so far (and each met in their inner
  /// graphs), its line again, then its inner graph's outputs.
  void print_scan_inner_graphs() {
    if (scans_.empty()) return;
    os_ << "\nInner graphs of the scan ops:\n";
    for (std::size_t k = 0; k < scans_.size(); ++k) {  // grows as nested scans are printed
      const Var s = scans_[k];
      const Apply& node = *s.owner();
      const Scan& op = *as_scan(node);
      const ScanInfo& info = op.info();
      os_ << '\n';
      print(s);
      // Inner inputs in order: sequence slices, output taps, non-sequences;
      // outer inputs: n_steps, sequences, initial values, non-sequences.
      std::unordered_map<const Variable*, Var> to_outer;
      std::size_t j = 0;
      const std::vector<Var>& ins = op.inner_inputs();
      for (int q = 0; q < info.n_seq(); ++q)
        for (std::size_t tap = 0; tap < info.seq_taps[static_cast<std::size_t>(q)].size(); ++tap)
          to_outer.emplace(ins.at(j++).get(), node.input(1 + q));
      for (int r = 0; r < info.n_rec(); ++r)
        for (std::size_t tap = 0; tap < info.rec_taps[static_cast<std::size_t>(r)].size(); ++tap)
          to_outer.emplace(ins.at(j++).get(), node.input(1 + info.n_seq() + r));
      for (int n = 0; n < info.n_nonseq; ++n) to_outer.emplace(ins.at(j++).get(), node.input(1 + info.n_seq() + info.n_rec() + n));
      inner_to_outer_ = &to_outer;
      for (const Var& out : op.inner_outputs()) print(out, nullptr, nullptr, " >", " >");
      inner_to_outer_ = nullptr;
    }
  }

 private:
  std::string get_id_str(IdKey obj, std::uint64_t creation_id, bool mark_printed = true) {
    std::string id;
    if (auto it = used_ids_.find(obj); it != used_ids_.end()) {
      id = it->second;
    } else if (obj == &kOutputSentinel) {
      id = "output";
    } else {
      switch (opt_.ids) {
        case IdStyle::Char: id = "[id " + char_from_number(used_ids_.size()) + "]"; break;
        case IdStyle::Int: id = "[id " + std::to_string(used_ids_.size()) + "]"; break;
        case IdStyle::Id: id = "[id " + std::to_string(creation_id) + "]"; break;
        case IdStyle::None: break;
      }
    }
    if (mark_printed) done_.insert(obj);
    used_ids_[obj] = id;
    return id;
  }

  std::string type_str(const Var& r) const { return opt_.print_type ? " <" + r.type()->str() + ">" : ""; }

  void print_leaf(const Var& r, const std::string& prefix) {
    std::string line = prefix + leaf_text(r) + " " + get_id_str(r.get(), r.id()) + type_str(r);
    if (opt_.mark_shared && printing_detail::is_shared(r)) line += " (shared)";
    if (inner_to_outer_)
      if (auto it = inner_to_outer_->find(r.get()); it != inner_to_outer_->end()) {
        const Var& outer = it->second;
        line += " -> " + (outer.owner() ? get_id_str(outer.owner(), outer.owner()->id(), false)
                                        : get_id_str(outer.get(), outer.id(), false));
      }
    os_ << rstrip(std::move(line)) << '\n';
  }

  void print_apply(const Var& r, const Apply& a, const std::string& prefix) {
    std::string dmap, vmap;
    if (opt_.print_destroy_map)
      if (ViewMap m = a.op()->destroy_map(); !m.empty()) dmap = "d=" + printing_detail::view_map_text(m);
    if (opt_.print_view_map)
      if (ViewMap m = a.op()->view_map(); !m.empty()) vmap = "v=" + printing_detail::view_map_text(m);
    std::string o;
    if (!order_.empty())
      if (auto it = order_.find(&a); it != order_.end()) o = std::to_string(it->second);
    const std::string id = get_id_str(&a, a.id());
    const std::string idx = a.nout() == 1 ? "" : "." + std::to_string(*r.index());
    std::string clients;
    if (opt_.print_clients && fg_ && fg_->contains(r)) {
      const std::vector<Client>& cs = fg_->clients(r);
      if (cs.size() > 1) {
        clients = " clients:[";
        for (std::size_t k = 0; k < cs.size(); ++k) {
          std::string cid, cidx;
          if (cs[k].is_output()) {
            cid = get_id_str(&kOutputSentinel, 0, false);
            cidx = "''";
          } else {
            cid = get_id_str(cs[k].node, cs[k].node->id(), false);
            auto it = order_.find(cs[k].node);
            cidx = it == order_.end() ? "''" : std::to_string(it->second);
          }
          clients += (k ? ", ('" : "('") + cid + "', " + cidx + ")";
        }
        clients += "]";
      }
    }
    std::string line = prefix + a.op()->name() + idx + " " + id + type_str(r) + " '" + r.name() + "' " + dmap + " " +
                       vmap + " " + o + clients;
    os_ << rstrip(std::move(line)) << '\n';
  }

  std::ostream& os_;
  const DebugPrintOptions& opt_;
  std::unordered_map<IdKey, std::string> used_ids_;
  std::unordered_set<IdKey> done_;
  std::unordered_map<const Apply*, std::size_t> order_;
  const FunctionGraph* fg_ = nullptr;
  std::vector<Var> scans_;  // one output of each Scan node met, in order
  const std::unordered_map<const Variable*, Var>* inner_to_outer_ = nullptr;
};

void check_options(const DebugPrintOptions& options) {
  THEANO_USER_CHECK(options.depth >= -1, ValueError)
      << "debugprint: depth must be -1 (unlimited) or a number of levels >= 0, got " << options.depth;
}

}  // namespace

std::ostream& debugprint(std::ostream& os, const std::vector<Var>& outputs, const DebugPrintOptions& options) {
  check_options(options);
  DebugPrinter p(os, options);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    THEANO_USER_CHECK(outputs[k], ValueError) << "debugprint: output " << k << " is a null Var";
    p.print(outputs[k]);
  }
  p.print_scan_inner_graphs();
  return os;
}

std::ostream& debugprint(std::ostream& os, const Var& v, const DebugPrintOptions& options) {
  return debugprint(os, std::vector<Var>{v}, options);
}

std::ostream& debugprint(std::ostream& os, const FunctionGraph& fg, const DebugPrintOptions& options) {
  check_options(options);
  const std::vector<Apply*> topo = fg.toposort();
  DebugPrinter p(os, options);
  for (const Var& out : fg.outputs()) p.print(out, &topo, &fg);
  p.print_scan_inner_graphs();
  return os;
}

std::string debugprint(const Var& v, const DebugPrintOptions& options) {
  std::ostringstream os;
  debugprint(os, v, options);
  return os.str();
}

std::string debugprint(const std::vector<Var>& outputs, const DebugPrintOptions& options) {
  std::ostringstream os;
  debugprint(os, outputs, options);
  return os.str();
}

std::string debugprint(const Apply& node, const DebugPrintOptions& options) { return debugprint(node.outputs(), options); }

std::string debugprint(const FunctionGraph& fg, const DebugPrintOptions& options) {
  std::ostringstream os;
  debugprint(os, fg, options);
  return os.str();
}

}  // namespace theano
