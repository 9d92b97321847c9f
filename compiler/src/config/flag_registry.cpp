/// \file
/// The registry's parsers (one per kind), look-up, the closest-name search
/// for the unknown-key warning, and the readers of config_flags.h.
#include "flag_registry.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "theano/config.h"
#include "theano/config_flags.h"
#include "theano/runtime/error.h"

namespace theano::flags {
namespace {

std::string lower(std::string_view v) {
  std::string s(v);
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

/// The '|'-separated words of `list`.
std::vector<std::string> split_words(std::string_view list) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (!list.empty() && pos <= list.size()) {
    std::size_t end = list.find('|', pos);
    if (end == std::string_view::npos) end = list.size();
    out.emplace_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

bool is_word(const FlagSpec& spec, const std::string& value) {
  const std::vector<std::string> words = split_words(spec.words);
  return std::find(words.begin(), words.end(), value) != words.end();
}

/// "a, b or c" from "a|b|c"; "'off'" style quoting when `quote`.
std::string join_words(std::string_view list, bool quote) {
  const std::vector<std::string> words = split_words(list);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += i + 1 == words.size() ? " or " : ", ";
    out += quote ? "'" + words[i] + "'" : words[i];
  }
  return out;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool has_range(const FlagSpec& spec) { return spec.hi < static_cast<double>(INT_MAX); }

/// What a value of `spec` is, for its error.
std::string expected_text(const FlagSpec& spec) {
  if (spec.kind == Kind::Choice) return join_words(spec.words, false);
  std::string what = spec.expected;
  if (has_range(spec)) what += " from " + number_text(spec.lo) + " to " + number_text(spec.hi);
  if (*spec.words) what += ", or " + join_words(spec.words, true);
  return what;
}

/// Levenshtein distance.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const FlagSpec* find(std::string_view name) {
  // Indexed once: function() reads a few dozen flags, and a linear scan of
  // the table with a strlen per entry was a tenth of a warm start's flag work.
  static const std::unordered_map<std::string_view, const FlagSpec*> index = [] {
    std::unordered_map<std::string_view, const FlagSpec*> m;
    for (std::size_t i = 0; i < spec_count(); ++i) m.emplace(specs()[i].name, &specs()[i]);
    return m;
  }();
  const auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

const std::vector<const FlagSpec*>& aliases_of(const FlagSpec& spec) {
  static const std::unordered_map<const FlagSpec*, std::vector<const FlagSpec*>> aliases = [] {
    std::unordered_map<const FlagSpec*, std::vector<const FlagSpec*>> m;
    for (std::size_t i = 0; i < spec_count(); ++i)
      if (*specs()[i].alias_of)
        if (const FlagSpec* of = find(specs()[i].alias_of)) m[of].push_back(&specs()[i]);
    return m;
  }();
  static const std::vector<const FlagSpec*> none;
  const auto it = aliases.find(&spec);
  return it == aliases.end() ? none : it->second;
}

bool bool_word(const std::string& value) {
  const std::string v = lower(value);
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::optional<long long> parse_int(const FlagSpec& spec, const std::string& value) {
  if (value.empty()) return std::nullopt;
  long long n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
    if (n > spec.hi) return std::nullopt;  // n <= hi <= INT_MAX: the next step cannot overflow
  }
  if (n < spec.lo) return std::nullopt;
  return n;
}

std::optional<double> parse_number(const FlagSpec& spec, const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != 0 || !std::isfinite(v) || v < spec.lo || v > spec.hi) return std::nullopt;
  return v;
}

void check(const FlagSpec& spec, std::string_view key, const std::string& value) {
  if (spec.kind == Kind::Bool) {
    const std::string v = lower(value);
    THEANO_USER_CHECK(v.empty() || bool_word(v) || v == "0" || v == "false" || v == "no" || v == "off", ValueError)
        << "THEANO_FLAGS " << key << "='" << value
        << "' is not a boolean; use true or false (1/0, yes/no, on/off; any case)";
    return;
  }
  if (spec.kind == Kind::Text || (value.empty() && spec.empty_is_default)) return;
  bool ok = false;
  switch (spec.kind) {
    case Kind::Int: ok = parse_int(spec, value).has_value(); break;
    case Kind::Number: ok = is_word(spec, value) || parse_number(spec, value).has_value(); break;
    case Kind::Choice: ok = is_word(spec, value); break;
    case Kind::Bool:
    case Kind::Text: ok = true; break;
  }
  THEANO_USER_CHECK(ok, ValueError) << "THEANO_FLAGS " << key
                                    << (spec.kind == Kind::Choice ? " must be " : ": expected ") << expected_text(spec)
                                    << ", got '" << value << "'";
}

std::string type_text(const FlagSpec& spec) {
  switch (spec.kind) {
    case Kind::Bool: return "bool";
    case Kind::Int:
      return has_range(spec) ? "int " + number_text(spec.lo) + ".." + number_text(spec.hi)
                             : "int >= " + number_text(spec.lo);
    case Kind::Number: {
      std::string t = "number " + number_text(spec.lo) + ".." + number_text(spec.hi);
      if (*spec.words) t += std::string("|") + spec.words;
      return t;
    }
    case Kind::Choice: return spec.words;
    case Kind::Text: return *spec.type ? spec.type : "text";
  }
  return "text";
}

}  // namespace theano::flags

namespace theano {
namespace {

/// The spec of `name`, which a reader must have registered.
const flags::FlagSpec& registered(std::string_view name, flags::Kind kind) {
  const flags::FlagSpec* spec = flags::find(name);
  if (!spec || *spec->alias_of || spec->kind != kind)
    throw std::logic_error("THEANO_FLAGS '" + std::string(name) +
                           "' is read but not registered with that kind (compiler/src/config/flag_table.cpp)");
  return *spec;
}

/// `spec`'s value in config() under its name or an alias spelling (checked).
std::optional<std::string> value_of(const flags::FlagSpec& spec) {
  const auto& given = config().flags;
  auto it = given.find(spec.name);
  for (const flags::FlagSpec* alias : flags::aliases_of(spec)) {
    if (it != given.end()) break;
    it = given.find(alias->name);
  }
  if (it == given.end()) return std::nullopt;
  flags::check(*flags::find(it->first), it->first, it->second);
  return it->second;
}

}  // namespace

const std::vector<FlagInfo>& registered_flags() {
  static const std::vector<FlagInfo> all = [] {
    std::vector<FlagInfo> out;
    for (std::size_t i = 0; i < flags::spec_count(); ++i) {
      const flags::FlagSpec& s = flags::specs()[i];
      out.push_back({s.name, flags::type_text(s), s.default_value, s.doc, s.alias_of, s.secret,
                     s.kind == flags::Kind::Text});
    }
    return out;
  }();
  return all;
}

std::optional<std::string> flag_value(std::string_view name) {
  const flags::FlagSpec* spec = flags::find(name);
  if (!spec || *spec->alias_of)
    throw std::logic_error("THEANO_FLAGS '" + std::string(name) +
                           "' is read but not registered (compiler/src/config/flag_table.cpp)");
  return value_of(*spec);
}

bool flag_bool(std::string_view name) {
  const flags::FlagSpec& spec = registered(name, flags::Kind::Bool);
  const std::optional<std::string> v = value_of(spec);
  return flags::bool_word(v ? *v : spec.default_value);
}

std::optional<long long> flag_int(std::string_view name) {
  const flags::FlagSpec& spec = registered(name, flags::Kind::Int);
  const std::optional<std::string> v = value_of(spec);
  return v ? flags::parse_int(spec, *v) : std::nullopt;
}

std::optional<double> flag_number(std::string_view name) {
  const flags::FlagSpec& spec = registered(name, flags::Kind::Number);
  const std::optional<std::string> v = value_of(spec);
  return v ? flags::parse_number(spec, *v) : std::nullopt;
}

std::string closest_flag(std::string_view name) {
  const std::string want = flags::lower(name);
  std::string best;
  std::size_t best_d = 0;
  for (std::size_t i = 0; i < flags::spec_count(); ++i) {
    const char* n = flags::specs()[i].name;
    const std::size_t d = flags::distance(want, flags::lower(n));
    if (best.empty() || d < best_d) best = n, best_d = d;
  }
  // A likely typo: a couple of edits, or a third of the name at most.
  return best_d <= 2 || best_d * 3 <= name.size() ? best : std::string();
}

}  // namespace theano
