// The muster command: parses flags and hands each subcommand to its runner.

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "muster/cli/validate.h"

int main(int argc, char** argv) {
  CLI::App app{"muster: a Kubernetes scheduler with gang scheduling"};
  app.require_subcommand(1);

  std::vector<std::string> validate_paths;
  CLI::App* validate = app.add_subcommand(
      "validate", "Decode manifests and print one line per object, or the errors (exit 2)");
  validate->add_option("-f,--filename", validate_paths,
                       "A file, a directory (its *.yaml, *.yml, *.json) or - for stdin")
      ->required()
      ->take_all();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : muster::cli::kExitBadInput;
  }

  if (validate->parsed()) {
    return muster::cli::RunValidate(validate_paths, std::cin, std::cout, std::cerr);
  }
  return muster::cli::kExitBadInput;
}
