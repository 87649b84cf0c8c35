#include "muster/cli/explain.h"

#include <ostream>

#include <fmt/format.h>

#include "muster/cli/validate.h"
#include "muster/report/explain_output.h"
#include "muster/report/simulation_output.h"

namespace muster::cli {

int RunExplain(const ExplainFlags& flags, std::istream& in, std::ostream& out, std::ostream& err) {
  if (flags.output != "table" && flags.output != "json") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table or json)\n",
                       flags.output);
    return kExitBadInput;
  }
  // "namespace/name", or a name: kubectl's default namespace first, else any namespace.
  std::string ns, name = flags.pod;
  if (const size_t slash = flags.pod.find('/'); slash != std::string::npos) {
    ns = flags.pod.substr(0, slash);
    name = flags.pod.substr(slash + 1);
  }
  if (name.empty() || name.find('/') != std::string::npos ||
      (flags.pod.find('/') != std::string::npos && ns.empty())) {
    err << fmt::format("error: POD: \"{}\" is not a pod name (want NAME or NAMESPACE/NAME)\n",
                       flags.pod);
    return kExitBadInput;
  }

  sim::SimulationOptions options;
  options.traced = [ns, name](const api::Pod& pod) {
    return pod.metadata.name == name && (ns.empty() || pod.metadata.namespace_.str() == ns);
  };
  ProgressLine progress(err, flags.progress);
  if (flags.progress) options.progress = SimulationProgress(progress);
  LoadedSimulation loaded = LoadSimulation(flags.input, std::move(options), in, err);
  if (loaded.simulation == nullptr) return loaded.runtime_error ? kExitRuntimeError : kExitBadInput;
  sim::Simulation& simulation = *loaded.simulation;
  simulation.Run();
  progress.Clear();
  for (const std::string& w : simulation.warnings()) err << "warning: " << w << "\n";
  for (const std::string& n : report::ExtenderNotes(simulation)) err << "note: " << n << "\n";

  // The pod, as the run left it.
  std::vector<const api::Pod*> found;
  std::vector<std::string> similar;
  for (const auto& [key, pod] : simulation.cluster().pods()) {
    if (pod->metadata.name == name && (ns.empty() || pod->metadata.namespace_.str() == ns)) {
      found.push_back(pod.get());
    } else if (pod->metadata.name.find(name) != std::string::npos && similar.size() < 10) {
      similar.push_back(key);
    }
  }
  if (found.size() > 1) {
    auto in_default = std::find_if(found.begin(), found.end(), [](const api::Pod* p) {
      return p->metadata.namespace_.str() == "default";
    });
    if (in_default != found.end()) {
      found = {*in_default};
    } else {
      std::vector<std::string> keys;
      for (const api::Pod* p : found) keys.push_back(p->metadata.Key());
      err << fmt::format(
          "error: POD: \"{}\" names a pod in several namespaces ({}): give "
          "NAMESPACE/NAME\n",
          name, fmt::join(keys, ", "));
      return kExitBadInput;
    }
  }
  if (found.empty()) {
    const std::string key = ns.empty() ? name : ns + "/" + name;
    const auto& traces = simulation.scheduler().traces();
    if (std::any_of(traces.begin(), traces.end(), [&](const auto& t) {
          return t.first == key || t.first.ends_with("/" + name);
        })) {
      err << fmt::format(
          "error: pod \"{}\" was deleted before the run ended at {}; explain it "
          "at an earlier time with --until\n",
          key, api::FormatDuration(simulation.End()));
    } else {
      err << fmt::format("error: pod \"{}\" not found in the cluster at the end of the run ({})",
                         key, api::FormatDuration(simulation.End()));
      if (!similar.empty()) err << fmt::format("; similar: {}", fmt::join(similar, ", "));
      err << "\n";
    }
    return kExitBadInput;
  }
  const api::Pod& pod = *found.front();
  const auto& traces = simulation.scheduler().traces();
  const auto trace = traces.find(pod.metadata.Key());
  const nlohmann::ordered_json explanation = report::BuildExplanation(
      simulation, pod, trace == traces.end() ? nullptr : trace->second.get());
  if (flags.output == "json") {
    out << explanation.dump(2) << "\n";
  } else {
    report::PrintExplanation(explanation, flags.top, out);
  }
  return kExitOk;
}

}  // namespace muster::cli
