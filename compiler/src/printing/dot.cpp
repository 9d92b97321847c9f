/// \file
/// Graphviz output (see printing.h): Theano's `pydotprint` without pydot. The
/// DOT text is built here, with Theano's shapes, colours, labels and compact
/// mode; pictures are rendered by running Graphviz's `dot` on it.
///
/// Node names are `n0`, `n1`, ... in order of first use, so the text of a
/// graph is the same in every run (Theano used Python ids). Each node is
/// declared once, before its first edge.
#include <functional>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "printing_internal.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/toposort.h"
#include "theano/printing.h"

extern char** environ;

namespace theano {

std::vector<std::pair<std::string, std::string>> DotOptions::default_color_codes() {
  return {{"GpuFromHost", "red"},   {"HostFromGpu", "red"},      {"Scan", "yellow"},
          {"Shape", "brown"},       {"IfElse", "magenta"},       {"Elemwise", "#FFAABB"},
          {"Subtensor", "#FFAAFF"}, {"Alloc", "#FFAA22"},        {"Output", "blue"}};
}

namespace {

std::string quote(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r + "\"";
}

std::string cut(std::string s, std::size_t max) {
  if (s.size() > max) s = s.substr(0, max >= 3 ? max - 3 : 0) + "...";
  return s;
}

/// The graph as pydotprint sees it.
struct DotGraph {
  std::vector<Apply*> topo;
  std::vector<Var> outputs;  // keeps the graph alive
  std::function<std::size_t(const Var&)> n_clients;
};

class DotWriter {
 public:
  DotWriter(const DotGraph& g, const DotOptions& opt) : g_(g), opt_(opt) {
    for (std::size_t k = 0; k < g.topo.size(); ++k) topo_index_[g.topo[k]] = k;
    for (const auto& [shared, upd] : opt.updates) input_update_[upd.get()] = shared;
  }

  std::string run() {
    os_ << "digraph G {\n";
    for (Apply* node : g_.topo) emit_apply(*node);
    for (const auto& [shared, upd] : opt_.updates) {
      // The var that represents an update is linked to the shared variable.
      declare_var(shared, "box", shared_color(shared));
      declare_output_var(upd);
      edge(var_id(shared), var_id(upd), {{"label", "UPDATE"}, {"color", output_color()}});
    }
    os_ << "}\n";
    return os_.str();
  }

 private:
  using Attrs = std::vector<std::pair<std::string, std::string>>;

  std::string output_color() const {
    std::string c = "blue";
    for (const auto& [k, v] : opt_.color_codes)
      if (k == "Output") c = v;
    return c;
  }
  std::string shared_color(const Var& v) const { return printing_detail::is_shared(v) ? "cyan" : "green"; }
  bool is_output(const Var& v) const { return std::find(g_.outputs.begin(), g_.outputs.end(), v) != g_.outputs.end(); }

  std::string var_label(const Var& var) {
    if (auto it = var_str_.find(var.get()); it != var_str_.end()) return it->second;
    std::string s;
    if (!var.name().empty()) {
      s = opt_.var_with_name_simple ? var.name() : "name=" + var.name() + " " + var.type()->str();
    } else if (const Constant* c = var.as_constant()) {
      std::string d = "val=" + printing_detail::constant_value_text(*c);
      if (auto nl = d.find('\n'); nl != std::string::npos) d = d.substr(0, nl);
      s = d + " " + var.type()->str();
    } else if (auto it = input_update_.find(var.get()); it != input_update_.end() && !it->second.name().empty()) {
      s = it->second.name();
      if (!opt_.var_with_name_simple) s += " " + var.type()->str();
    } else {
      s = var.type()->str();
    }
    s = cut(s, opt_.max_label_size);
    all_strings_.insert(s);
    var_str_[var.get()] = s;
    return s;
  }

  std::string apply_label(const Apply& node) {
    if (auto it = apply_str_.find(&node); it != apply_str_.end()) return it->second;
    std::string s = node.op()->name();
    std::replace(s.begin(), s.end(), ':', '_');
    const std::size_t max = opt_.max_label_size;
    if (all_strings_.count(s) || opt_.with_ids) {
      const std::string idx = " id=" + std::to_string(topo_index_.at(&node));
      if (s.size() + idx.size() > max)
        s = s.substr(0, max > 3 + idx.size() ? max - 3 - idx.size() : 0) + idx + "...";
      else
        s += idx;
    } else if (s.size() > max) {
      s = cut(s, max);
      for (int k = 2; all_strings_.count(s); ++k) {
        const std::string suffix = " id=" + std::to_string(k);
        s = s.substr(0, max > 3 + suffix.size() ? max - 3 - suffix.size() : 0) + "..." + suffix;
      }
    }
    all_strings_.insert(s);
    apply_str_[&node] = s;
    return s;
  }

  std::string node_name(const void* key) {
    auto [it, fresh] = names_.try_emplace(key, "n" + std::to_string(names_.size()));
    (void)fresh;
    return it->second;
  }
  std::string var_id(const Var& v) { return node_name(v.get()); }
  std::string apply_id(const Apply& a) { return node_name(&a); }

  void declare(const std::string& id, const Attrs& attrs) {
    if (!declared_.insert(id).second) return;
    os_ << "  " << id << " [";
    for (std::size_t k = 0; k < attrs.size(); ++k) os_ << (k ? ", " : "") << attrs[k].first << "=" << quote(attrs[k].second);
    os_ << "];\n";
  }
  void declare_colored(const std::string& id, const std::string& label, const std::string& shape,
                       const std::string& color) {
    if (color.empty())
      declare(id, {{"label", label}, {"shape", shape}});
    else if (opt_.high_contrast)
      declare(id, {{"label", label}, {"shape", shape}, {"style", "filled"}, {"fillcolor", color}});
    else
      declare(id, {{"label", label}, {"shape", shape}, {"color", color}});
  }
  void declare_var(const Var& v, const std::string& shape, const std::string& color) {
    declare_colored(var_id(v), var_label(v), shape, color);
  }
  void declare_output_var(const Var& v) { declare_var(v, "box", output_color()); }
  void edge(const std::string& from, const std::string& to, const Attrs& attrs) {
    os_ << "  " << from << " -> " << to;
    if (!attrs.empty()) {
      os_ << " [";
      for (std::size_t k = 0; k < attrs.size(); ++k)
        os_ << (k ? ", " : "") << attrs[k].first << "=" << quote(attrs[k].second);
      os_ << "]";
    }
    os_ << ";\n";
  }

  void emit_apply(const Apply& node) {
    const std::string label = apply_label(node);
    const std::string aid = apply_id(node);
    std::string color;
    const std::string_view cls = node.op()->type_name();
    for (const auto& [name, c] : opt_.color_codes)
      if (cls.find(name) != std::string_view::npos) color = c;
    declare_colored(aid, label, "ellipse", color);

    std::set<int> viewed, destroyed;
    for (const auto& [o, ins] : node.op()->view_map()) viewed.insert(ins.begin(), ins.end());
    for (const auto& [o, ins] : node.op()->destroy_map()) destroyed.insert(ins.begin(), ins.end());
    for (int idx = 0; idx < node.nin(); ++idx) {
      const Var& var = node.input(idx);
      std::string elabel = node.nin() > 1 ? std::to_string(idx) : "";
      Attrs param;
      if (viewed.count(idx))
        param.emplace_back("color", output_color());
      else if (destroyed.count(idx))
        param.emplace_back("color", "red");
      if (!var.owner()) {
        declare_var(var, "box", shared_color(var));
        if (!elabel.empty()) param.insert(param.begin(), {"label", elabel});
        edge(var_id(var), aid, param);
      } else if (!var.name().empty() || !opt_.compact || is_output(var)) {
        var_label(var);
        if (!elabel.empty()) param.insert(param.begin(), {"label", elabel});
        edge(var_id(var), aid, param);
      } else {
        // No name: no box; the edge comes from the producing node.
        if (!elabel.empty()) elabel += " ";
        elabel = cut(elabel + var.type()->str(), opt_.max_label_size);
        param.insert(param.begin(), {"label", elabel});
        apply_label(*var.owner());
        edge(apply_id(*var.owner()), aid, param);
      }
    }

    for (int idx = 0; idx < node.nout(); ++idx) {
      const Var var = node.output(idx);
      var_label(var);
      std::string elabel = cut(node.nout() > 1 ? std::to_string(idx) : "", opt_.max_label_size);
      Attrs param;
      if (is_output(var) || input_update_.count(var.get())) {
        declare_output_var(var);
        if (!elabel.empty()) param.emplace_back("label", elabel);
        edge(aid, var_id(var), param);
      } else if (g_.n_clients(var) == 0) {
        declare_var(var, "box", "grey");  // an output nobody uses
        if (!elabel.empty()) param.emplace_back("label", elabel);
        edge(aid, var_id(var), param);
      } else if (!var.name().empty() || !opt_.compact) {
        if (opt_.compact) {
          if (!elabel.empty()) elabel += " ";
          elabel = cut(elabel + var.type()->str(), opt_.max_label_size);
        }
        declare_var(var, "box", "");
        if (!elabel.empty()) param.emplace_back("label", elabel);
        edge(aid, var_id(var), param);
      }
      // else: the edge is drawn from the consumers' side.
    }
  }

  const DotGraph& g_;
  const DotOptions& opt_;
  std::ostringstream os_;
  std::unordered_map<const Apply*, std::size_t> topo_index_;
  std::unordered_map<const Variable*, Var> input_update_;  // update value -> shared variable
  std::unordered_map<const Variable*, std::string> var_str_;
  std::unordered_map<const Apply*, std::string> apply_str_;
  std::set<std::string> all_strings_;
  std::unordered_map<const void*, std::string> names_;
  std::unordered_set<std::string> declared_;
};

std::string dot_of_outputs(std::vector<Var> outputs, const DotOptions& options) {
  for (std::size_t k = 0; k < outputs.size(); ++k)
    THEANO_USER_CHECK(outputs[k], ValueError) << "to_dot: output " << k << " is a null Var";
  std::vector<Var> roots = outputs;
  for (const auto& [shared, upd] : options.updates) {
    THEANO_USER_CHECK(shared && upd, ValueError) << "to_dot: an update pair holds a null Var";
    roots.push_back(upd);
  }
  DotGraph g;
  g.topo = io_toposort({}, roots);
  auto counts = std::make_shared<std::unordered_map<const Variable*, std::size_t>>();
  for (Apply* node : g.topo)
    for (const Var& in : node->inputs()) ++(*counts)[in.get()];
  for (const Var& o : outputs) ++(*counts)[o.get()];
  g.outputs = std::move(outputs);
  g.n_clients = [counts](const Var& v) {
    auto it = counts->find(v.get());
    return it == counts->end() ? std::size_t{0} : it->second;
  };
  return DotWriter(g, options).run();
}

}  // namespace

std::string to_dot(const std::vector<Var>& outputs, const DotOptions& options) { return dot_of_outputs(outputs, options); }

std::string to_dot(const Var& output, const DotOptions& options) { return dot_of_outputs({output}, options); }

std::string to_dot(const FunctionGraph& fg, const DotOptions& options) {
  DotGraph g;
  g.topo = fg.toposort();
  g.outputs = fg.outputs();
  // Update values are drawn as UPDATE edges, not as outputs (Theano pops them).
  for (const auto& [shared, upd] : options.updates) std::erase(g.outputs, upd);
  g.n_clients = [&fg](const Var& v) { return fg.clients(v).size(); };
  return DotWriter(g, options).run();
}

// ---------------------------------------------------------------- rendering

bool graphviz_available() {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string_view rest(path);
  while (true) {
    const std::size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::error_code ec;
    const std::filesystem::path candidate = std::filesystem::path(dir) / "dot";
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    rest.remove_prefix(colon + 1);
  }
}

namespace {

/// A temporary file removed when this goes out of scope.
struct TempFile {
  std::string path;
  int fd = -1;
  explicit TempFile(const std::string& stem) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    std::string tmpl = (dir / (stem + "-XXXXXX")).string();
    fd = ::mkstemp(tmpl.data());
    THEANO_USER_CHECK(fd >= 0, IOError) << "render_dot: cannot create a temporary file in " << dir.string() << ": "
                                        << std::strerror(errno);
    path = tmpl;
  }
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    std::remove(path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

void render_dot(const std::string& dot_text, const std::string& path, std::string_view format) {
  THEANO_USER_CHECK(!format.empty() && std::all_of(format.begin(), format.end(),
                                                   [](char c) {
                                                     return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                                            c == ':' || c == '_';
                                                   }),
                    ValueError)
      << "render_dot: '" << format << "' is not a Graphviz output format (expected e.g. svg, png, pdf)";
  THEANO_USER_CHECK(graphviz_available(), IOError)
      << "render_dot: cannot write '" << path << "': Graphviz's `dot` program was not found on PATH. Install the "
      << "Debian package graphviz (apt-get install graphviz), or write a .dot file and render it elsewhere";
  TempFile input("theano-graph");
  TempFile errors("theano-dot-err");
  {
    std::ofstream out(input.path, std::ios::binary);
    out << dot_text;
    THEANO_USER_CHECK(out.good(), IOError) << "render_dot: cannot write the temporary file " << input.path;
  }
  const std::string fmt_arg = "-T" + std::string(format);
  std::vector<std::string> args{"dot", fmt_arg, "-o", path, input.path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, errors.fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "dot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  THEANO_USER_CHECK(rc == 0, IOError) << "render_dot: cannot run Graphviz's `dot`: " << std::strerror(rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    THEANO_USER_CHECK(errno == EINTR, IOError) << "render_dot: waiting for `dot` failed: " << std::strerror(errno);
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  THEANO_USER_CHECK(ok, IOError) << "render_dot: `dot " << fmt_arg << " -o " << path << "` failed"
                                 << (WIFEXITED(status) ? " with exit status " + std::to_string(WEXITSTATUS(status))
                                                       : std::string(" (killed by a signal)"))
                                 << ": " << printing_detail::rstrip(read_all(errors.path));
}

namespace printing_detail {

void write_dot(const std::string& path, const std::string& text) {
  std::string ext = std::filesystem::path(path).extension().string();
  THEANO_USER_CHECK(ext.size() > 1, ValueError)
      << "write_graph: '" << path << "' has no extension; use .dot (text) or a Graphviz format such as .svg or .png";
  ext = ext.substr(1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "dot" || ext == "gv") {
    std::ofstream out(path, std::ios::binary);
    THEANO_USER_CHECK(out.is_open(), IOError) << "write_graph: cannot open '" << path << "' for writing";
    out << text;
    THEANO_USER_CHECK(out.good(), IOError) << "write_graph: cannot write '" << path << "'";
    return;
  }
  render_dot(text, path, ext);
}

}  // namespace printing_detail

using printing_detail::write_dot;

void write_graph(const std::string& path, const std::vector<Var>& outputs, const DotOptions& options) {
  write_dot(path, to_dot(outputs, options));
}

void write_graph(const std::string& path, const FunctionGraph& fg, const DotOptions& options) {
  write_dot(path, to_dot(fg, options));
}

}  // namespace theano
