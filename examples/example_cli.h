// What the example programs share: command-line parsing (`--flag N` and
// `--flag=N`, bounded integers, a usage error that exits 2 with a hint) and
// main's error handling, so each example's file is about its model.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iostream>
#include <string>
#include <string_view>

namespace example {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Thrown for a bad command line; run_main prints it with a hint and exits 2.
struct UsageError {
  std::string message;
};

/// `text` as an integer in [min, max], else a UsageError naming `flag`.
inline std::int64_t parse_count(std::string_view flag, std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    throw UsageError{std::string(flag) + " expects an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + std::string(text) + "'"};
  return v;
}

/// Splits argv[i] into a flag and its value: `--flag=VALUE`, or `--flag VALUE`
/// for the flags in `with_value` (advancing i). Other arguments come back
/// with an empty value.
inline void next_flag(int argc, char** argv, int& i, std::initializer_list<std::string_view> with_value,
                      std::string_view& flag, std::string_view& value) {
  flag = argv[i];
  value = {};
  if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string_view::npos) {
    value = flag.substr(eq + 1);
    flag = flag.substr(0, eq);
    return;
  }
  for (std::string_view f : with_value)
    if (flag == f) {
      if (i + 1 >= argc) throw UsageError{std::string(flag) + " needs a value"};
      value = argv[++i];
      return;
    }
}

/// main: parse (false: --help was asked), then run; usage errors exit 2,
/// other errors 1, each with a one-line message.
template <class Options, class Parse, class Usage, class Run>
int run_main(const char* program, int argc, char** argv, Parse parse, Usage usage, Run run) {
  Options options;
  try {
    if (!parse(argc, argv, options)) {
      usage(std::cout);
      return 0;
    }
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.message << "\n(try " << program << " --help)\n";
    return 2;
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::cerr << "\n" << program << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace example
