// CodeWriter: indentation-aware text assembly for generated code.
#include <theano/codegen/code_writer.h>

#include <theano/runtime/error.h>

namespace theano::codegen {

CodeWriter& CodeWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(2 * open_.size(), ' ');
  text_.append(text);
  text_ += '\n';
  return *this;
}

CodeWriter& CodeWriter::lines(std::string_view text) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    line(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return *this;
}

CodeWriter& CodeWriter::open(std::string_view header, std::string_view name) {
  line(std::string(header) + (header.empty() ? "{" : " {"));
  open_.emplace_back(name);
  return *this;
}

CodeWriter& CodeWriter::close(std::string_view trailer) {
  THEANO_INTERNAL_CHECK(!open_.empty()) << "CodeWriter::close without an open block";
  const std::string name = open_.back();
  open_.pop_back();
  line("}" + std::string(trailer) + (name.empty() ? "" : "  // " + name));
  return *this;
}

CodeWriter& CodeWriter::append(const CodeWriter& other) { return lines(other.str()); }

CodeWriter& CodeWriter::raw(std::string_view text) {
  text_.append(text);
  return *this;
}

const std::string& CodeWriter::str() const {
  THEANO_INTERNAL_CHECK(open_.empty()) << "CodeWriter: block '" << open_.back() << "' is still open";
  return text_;
}

void assemble(CodeWriter& out, const std::vector<NodeCode>& nodes) {
  for (const NodeCode& n : nodes)
    if (!n.init.empty()) out.line("// init: " + n.name).append(n.init);
  for (const NodeCode& n : nodes)
    if (!n.compute.empty()) out.line("// compute: " + n.name).append(n.compute);
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if (!it->cleanup.empty()) out.line("// cleanup: " + it->name).append(it->cleanup);
}

}  // namespace theano::codegen
