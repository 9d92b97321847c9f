// THEANO_FLAGS parsing.
#include "theano/config.h"

#include <cstdlib>

#include "theano/runtime/error.h"

namespace theano {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

Config Config::from_flags(const std::string& text) {
  Config c;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    THEANO_USER_CHECK(eq != std::string::npos && eq > 0, ValueError)
        << "THEANO_FLAGS: entry '" << item << "' is not of the form key=value";
    c.flags[trim(item.substr(0, eq))] = trim(item.substr(eq + 1));
  }
  if (auto it = c.flags.find("floatX"); it != c.flags.end()) {
    THEANO_USER_CHECK(it->second == "float64" || it->second == "float32", ValueError)
        << "THEANO_FLAGS: floatX must be float64 or float32, got '" << it->second << "'";
    c.floatX = dtype_from_name(it->second);
  }
  for (const char* key : {"traceback_limit", "traceback__limit"}) {
    auto it = c.flags.find(key);
    if (it == c.flags.end()) continue;
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    THEANO_USER_CHECK(used == it->second.size() && v >= 0, ValueError)
        << "THEANO_FLAGS: " << key << " must be a non-negative integer, got '" << it->second << "'";
    c.traceback_limit = v;
  }
  return c;
}

Config& config() {
  static Config c = [] {
    const char* env = std::getenv("THEANO_FLAGS");
    return Config::from_flags(env ? env : "");
  }();
  return c;
}

}  // namespace theano

namespace theano {

bool config_flag(std::string_view key) {
  const auto& flags = config().flags;
  auto it = flags.find(std::string(key));
  if (it == flags.end()) return false;
  std::string v;
  for (char c : it->second) v += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

}  // namespace theano
