// How theano-cache prints: JSON strings, sizes and times, shared by its
// commands (main.cpp: the compiledir; remote.cpp: the Redis tier).
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace theano::cli {

/// Thrown for a usage error (exit code 2).
struct Usage {
  std::string message;
};

inline std::string json_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      r += buf;
    } else r += c;
  }
  return r + "\"";
}

inline std::string iso_time(std::int64_t t) {
  if (t <= 0) return "-";
  std::time_t tt = static_cast<std::time_t>(t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&tt));
  return buf;
}

inline std::string human(std::uintmax_t b) {
  char buf[32];
  if (b >= (1u << 30)) std::snprintf(buf, sizeof buf, "%.1fG", static_cast<double>(b) / (1u << 30));
  else if (b >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(b) / (1u << 20));
  else if (b >= (1u << 10)) std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(b) / (1u << 10));
  else std::snprintf(buf, sizeof buf, "%ju", b);
  return buf;
}

}  // namespace theano::cli
