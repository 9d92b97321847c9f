/// \file
/// The THEANO_FLAGS registry: one FlagSpec per key theano-cpp reads, declared
/// once in flag_table.cpp (name, kind, default, doc; for numbers their range,
/// for a choice its words), and the parser every spec's kind implies.
///
/// Where a value is checked: its *form* (a boolean word, a whole number in
/// range, a number in range, one of a list) by the spec's parser, both when
/// THEANO_FLAGS is parsed (Config::from_flags) and when the flag is read
/// (config_flags.h: a Config set in code is checked there); what needs the
/// rest of the system (a usable GPU, a registered linker, a known rewrite
/// name, a Unix group, a Redis URL, a cache size) is a Text flag checked where
/// it is used, with an error naming the flag. A key that is not registered
/// costs one warning naming the closest registered key when THEANO_FLAGS is
/// parsed and is otherwise ignored (it still counts in the function records'
/// request text, as every flag does).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace theano::flags {

enum class Kind {
  Bool,    ///< true/false words (1/0, yes/no, on/off, any case; "" is false)
  Int,     ///< a whole number in [lo, hi] (digits only)
  Number,  ///< a finite number in [lo, hi]
  Choice,  ///< one of `words` ('|'-separated)
  Text,    ///< any text: its meaning is checked where it is used
};

struct FlagSpec {
  const char* name;
  Kind kind;
  const char* default_value;  ///< parses as this flag ("" when the default is computed: see doc)
  const char* doc;            ///< one line
  double lo = 0, hi = 0;      ///< Int, Number: the range (Int: hi <= INT_MAX, listed as unbounded)
  const char* words = "";     ///< Choice: the values; Int, Number: words taken besides numbers ("off")
  const char* expected = "";  ///< Int, Number: what a value is, for the error ("a number of days")
  bool empty_is_default = false;  ///< "" means the default (else "" is refused, Bool excepted)
  const char* type = "";      ///< Text: what the text is ("path|off"); others: derived from the kind
  const char* alias_of = "";  ///< a Theano spelling of that flag
  bool secret = false;        ///< never printed
};

/// The table (flag_table.cpp), in declaration order.
const FlagSpec* specs();
std::size_t spec_count();

/// The spec of `name` (exact spelling), or null.
const FlagSpec* find(std::string_view name);
/// The specs whose alias_of names `spec`, in table order.
const std::vector<const FlagSpec*>& aliases_of(const FlagSpec& spec);

/// Checks `value` of `spec` given as `key` (the spelling used): ValueError
/// "THEANO_FLAGS <key>: expected <what>, got '<value>'" (a choice: "<key> must
/// be a, b or c, got ..."; a boolean: "<key>='<value>' is not a boolean; ...").
void check(const FlagSpec& spec, std::string_view key, const std::string& value);

/// A boolean word's value (after check).
bool bool_word(const std::string& value);

/// An Int spec's value: nullopt unless digits within the range.
std::optional<long long> parse_int(const FlagSpec& spec, const std::string& value);

/// A Number spec's value: nullopt unless a finite number within the range.
std::optional<double> parse_number(const FlagSpec& spec, const std::string& value);

/// The type as listed: "bool", "int 0..64", "float64|float32", "number 0..1e+06|off", a Text's `type`.
std::string type_text(const FlagSpec& spec);

}  // namespace theano::flags
