#include "muster/cli/completion.h"

#include <ostream>
#include <set>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "muster/bench/workloads.h"

namespace muster::cli {
namespace {

// Flags whose value is a file or a folder.
bool TakesFile(const std::string& flag) {
  static const std::set<std::string> kFiles = {"--filename",
                                               "-f",
                                               "--config",
                                               "--report",
                                               "--kubeconfig",
                                               "--tls-cert-file",
                                               "--tls-private-key-file",
                                               "--authentication-kubeconfig",
                                               "--authorization-kubeconfig"};
  return kFiles.contains(flag);
}

std::string Words(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

bool WriteCompletion(const CLI::App& app, const std::string& shell, std::ostream& out) {
  if (shell != "bash" && shell != "zsh") return false;
  std::vector<std::string> subcommands;
  std::string cases;
  std::set<std::string> file_flags;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    subcommands.push_back(sub->get_name());
    std::vector<std::string> flags;
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->nonpositional()) continue;
      for (const std::string& l : o->get_lnames()) flags.push_back("--" + l);
      for (const std::string& s : o->get_snames()) flags.push_back("-" + s);
    }
    for (const std::string& f : flags) {
      if (TakesFile(f)) file_flags.insert(f);
    }
    std::string extra;
    if (sub->get_name() == "bench") {
      std::vector<std::string> names;
      for (const bench::Workload& w : bench::Workloads()) names.push_back(w.name);
      extra = " " + Words(names);
    } else if (sub->get_name() == "completion") {
      extra = " bash zsh";
    }
    cases += fmt::format("    {}) opts=\"{}{}\" ;;\n", sub->get_name(), Words(flags), extra);
  }
  if (shell == "zsh") {
    out << "#compdef muster\n"
           "# muster's completion for zsh: eval \"$(muster completion zsh)\", or save it as "
           "_muster\n"
           "# in a folder of $fpath. It runs the bash completion through zsh's bashcompinit.\n"
           "autoload -U +X bashcompinit && bashcompinit\n";
  } else {
    out << "# muster's completion for bash: source <(muster completion bash), or save it in\n"
           "# /etc/bash_completion.d/muster.\n";
  }
  out << "_muster() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
      << fmt::format("    COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n",
                     Words(subcommands))
      << "    return\n"
         "  fi\n"
         "  case \"$prev\" in\n"
      << fmt::format("    {})\n", fmt::join(file_flags, "|"))
      << "      COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
         "    -o|--output) COMPREPLY=($(compgen -W \"table wide json yaml\" -- \"$cur\")); return "
         ";;\n"
         "    --validate) COMPREPLY=($(compgen -W \"strict warn ignore\" -- \"$cur\")); return ;;\n"
         "    --logging-format) COMPREPLY=($(compgen -W \"text json\" -- \"$cur\")); return ;;\n"
         "    --gang-mode) COMPREPLY=($(compgen -W \"Group PerPod\" -- \"$cur\")); return ;;\n"
         "  esac\n"
         "  local opts=\"\"\n"
         "  case \"${COMP_WORDS[1]}\" in\n"
      << cases
      << "  esac\n"
         "  COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "}\n"
         "complete -F _muster muster\n";
  return true;
}

}  // namespace muster::cli
