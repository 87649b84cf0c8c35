#pragma once

// For the whole-program tests that run the muster binary as a user would (MUSTER_BINARY, built
// with the tests) and read the checkout's files (MUSTER_SOURCE_DIR).

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <sys/wait.h>

namespace muster::testing {

// The checkout the tests were built from.
inline const std::string kRoot = MUSTER_SOURCE_DIR;

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and takes what it prints.
inline CommandResult RunCommand(const std::string& command) {
  CommandResult run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    run.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

// `muster ARGS`, from wherever the test runs.
inline CommandResult Muster(const std::string& args) {
  return RunCommand(std::string(MUSTER_BINARY) + " " + args + " 2>&1");
}

// `muster ARGS` run from the checkout, as the documentation's commands are written: relative
// paths (examples/...) name its files.
inline CommandResult MusterInCheckout(const std::string& args) {
  return RunCommand("cd '" + kRoot + "' && " + std::string(MUSTER_BINARY) + " " + args + " 2>&1");
}

// A page of the documentation, by its path from the checkout's root ("README.md",
// "docs/running.md"); empty when there is none.
inline std::string Doc(std::string_view path) {
  std::ifstream in(kRoot + "/" + std::string(path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace muster::testing
