// `theano-cache flags` (flags.h).
#include "flags.h"

#include <theano/config.h>
#include <theano/config_flags.h>

#include <iostream>
#include <optional>
#include <string>

#include "cli_format.h"

namespace theano::cli {

int run_flags(bool json) {
  const auto& given = config().flags;
  const std::vector<FlagInfo>& all = registered_flags();
  auto current = [&](const FlagInfo& f) -> std::optional<std::string> {
    auto it = given.find(f.name);
    if (it == given.end()) return std::nullopt;
    return f.secret ? std::string("(set)") : it->second;
  };
  if (json) {
    std::cout << "[";
    for (std::size_t i = 0; i < all.size(); ++i) {
      const FlagInfo& f = all[i];
      const std::optional<std::string> value = current(f);
      std::cout << (i ? ",\n " : "") << "{\"name\": " << json_string(f.name) << ", \"type\": " << json_string(f.type)
                << ", \"default\": " << json_string(f.default_value)
                << ", \"value\": " << (value ? json_string(*value) : "null") << ", \"doc\": " << json_string(f.doc)
                << ", \"alias_of\": " << (f.alias_of.empty() ? "null" : json_string(f.alias_of)) << "}";
    }
    std::cout << "]\n";
    return 0;
  }
  for (const FlagInfo& f : all) {
    const std::optional<std::string> value = current(f);
    std::cout << f.name << " (" << f.type << ", default " << (f.default_value.empty() ? "none" : f.default_value)
              << "): " << (value ? "'" + *value + "'" : std::string("not set")) << "\n    " << f.doc << "\n";
  }
  return 0;
}

}  // namespace theano::cli
