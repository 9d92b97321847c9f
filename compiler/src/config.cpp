// THEANO_FLAGS parsing.
#include "theano/config.h"

#include <cstdlib>
#include <optional>

#include "theano/runtime/error.h"

namespace theano {
namespace {

/// The flags read as booleans (config_flag, NanGuardMode's options). A value
/// outside true/false words is a typo, refused when THEANO_FLAGS is parsed,
/// whatever mode later runs.
constexpr const char* kBooleanFlags[] = {
    "profile",
    "log_compile",
    "keep_sources",
    "nanguard_nan_is_error",
    "nanguard_inf_is_error",
    "nanguard_big_is_error",
    "NanGuardMode__nan_is_error",
    "NanGuardMode__inf_is_error",
    "NanGuardMode__big_is_error",
};

std::string lower(std::string v) {
  for (char& c : v) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return v;
}

/// true / false for a boolean word ("1", "true", "yes", "on", "0", "false",
/// "no", "off", "" for false; any case); nullopt for anything else.
std::optional<bool> boolean_word(const std::string& value) {
  const std::string v = lower(value);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v.empty() || v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

void check_boolean(const std::string& key, const std::string& value) {
  THEANO_USER_CHECK(boolean_word(value).has_value(), ValueError)
      << "THEANO_FLAGS " << key << "='" << value
      << "' is not a boolean; use true or false (1/0, yes/no, on/off; any case)";
}

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
  for (const char* key : kBooleanFlags)
    if (auto it = c.flags.find(key); it != c.flags.end()) check_boolean(key, it->second);
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

// Any value outside the boolean words is a ValueError naming the flag (the
// flags read as booleans are checked when THEANO_FLAGS is parsed; a Config
// set in code is checked here).
bool config_flag(std::string_view key) {
  const auto& flags = config().flags;
  auto it = flags.find(std::string(key));
  if (it == flags.end()) return false;
  check_boolean(it->first, it->second);  // a Config set in code is checked here
  return *boolean_word(it->second);
}

}  // namespace theano
