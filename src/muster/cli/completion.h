#pragma once

// `muster completion bash|zsh`: a shell completion script, generated from the command line's
// own definition (CLI11), so that it offers exactly the subcommands and flags that parse: flags
// per subcommand, file names after the flags that take a file, and the values of the flags that
// take one of a few (-o, --validate, --logging-format, --gang-mode, bench's workloads).

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace muster::cli {

// Writes the script for `shell` ("bash" or "zsh"); false for another shell.
bool WriteCompletion(const CLI::App& app, const std::string& shell, std::ostream& out);

}  // namespace muster::cli
