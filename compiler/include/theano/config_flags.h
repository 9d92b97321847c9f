/// \file
/// Reading THEANO_FLAGS keys through the flag registry. Every key theano-cpp
/// reads is declared once, with its type, default and doc, in
/// compiler/src/config/flag_table.cpp; the readers below find a key's value in
/// `config()` and check it with that declaration's parser, so a bad value is a
/// ValueError naming the flag, the value and what was expected wherever it is
/// read (also for a Config set in code, which THEANO_FLAGS parsing never saw).
/// `theano-cache flags` lists every registered flag.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace theano {

/// One registered THEANO_FLAGS key, as `theano-cache flags` prints it.
struct FlagInfo {
  std::string name;
  std::string type;           ///< "bool", "int 0..64", "float32|float64", "path|off", ...
  std::string default_value;  ///< the value that means what an absent flag means ("" when there is nothing to give)
  std::string doc;            ///< one line
  std::string alias_of;       ///< the flag this is a Theano spelling of ("" for a flag of its own)
  bool secret = false;        ///< its value is never printed
  bool free_text = false;     ///< any text is taken here; what it means is checked where it is used
};

/// Every registered flag, in declaration order.
const std::vector<FlagInfo>& registered_flags();

/// The value of the registered flag `name` in `config()` (given under `name` or
/// one of its alias spellings), checked with its parser; nullopt when absent.
/// std::logic_error when `name` is not registered (a reader's typo).
std::optional<std::string> flag_value(std::string_view name);

/// Boolean flag `name`: its value, else its default.
bool flag_bool(std::string_view name);

/// Whole-number flag `name`: its value; nullopt when absent or empty.
std::optional<long long> flag_int(std::string_view name);

/// Number flag `name`: its value; nullopt when absent, empty or one of the
/// words the flag takes besides numbers (e.g. `off`: see flag_value).
std::optional<double> flag_number(std::string_view name);

/// The registered name closest to `name` (edit distance, ignoring case), or ""
/// when none is close enough to be a likely typo.
std::string closest_flag(std::string_view name);

}  // namespace theano
