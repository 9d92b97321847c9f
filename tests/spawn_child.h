/// \file
/// spawn_child: starts a program (a test's helper binary, or the test binary
/// itself for one of its cases) in this process's environment with some
/// variables replaced, its standard output to a file, for the tests that need
/// a fresh process (a warm start, a library opened at start-up, an
/// environment read once).
#pragma once

#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace theano::test {

/// Starts `argv` (argv[0]: the program's path) with this environment, where
/// each "NAME=value" of `env` replaces NAME; standard output goes to `out`.
/// REQUIREs that it started; returns its pid.
inline pid_t spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::filesystem::path& out) {
  std::vector<std::string> env_store = env;
  for (char** e = ::environ; *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& mine : env) replaced = replaced || entry.rfind(mine.substr(0, mine.find('=') + 1), 0) == 0;
    if (!replaced) env_store.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argp[0], &fa, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  return pid;
}

}  // namespace theano::test
