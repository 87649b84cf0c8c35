#include "muster/cli/report_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/kinds.h"
#include "muster/cli/demo.h"

namespace muster::cli {
namespace {

std::optional<std::string> TextOf(const std::string& file,
                                  const std::map<std::string, std::string_view>& texts) {
  if (auto it = texts.find(file); it != texts.end()) return std::string(it->second);
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ConfigText FindConfigText(const std::string& config_path, const api::Manifests& inputs,
                          const std::map<std::string, std::string_view>& texts) {
  if (!config_path.empty()) {
    const std::string file = config_path == "-" ? "<stdin>" : config_path;
    return {"--config " + config_path, TextOf(file, texts).value_or("")};
  }
  const std::string_view kind = api::KindOf<api::SchedulerConfiguration>().name;
  for (const api::ObjectEntry& entry : inputs.order) {
    if (entry.kind != kind) continue;
    ConfigText out{entry.source.ToString(), ""};
    const std::optional<std::string> text = TextOf(entry.source.file, texts);
    if (!text) {
      out.text = fmt::format("# {} could not be read again for this report\n", entry.source.file);
      return out;
    }
    // The file was decoded once already: it parses.
    try {
      const std::vector<YAML::Node> docs = YAML::LoadAll(*text);
      if (docs.size() == 1 && entry.source.item < 0) {
        out.source = entry.source.file;
        out.text = *text;
        return out;
      }
      YAML::Node doc = docs.at(entry.source.document - 1);
      if (entry.source.item >= 0) doc = doc["items"][entry.source.item];
      YAML::Emitter emitter;
      emitter << doc;
      out.text = std::string(emitter.c_str()) + "\n";
    } catch (const std::exception& e) {
      out.text = fmt::format("# {} could not be read again for this report: {}\n",
                             entry.source.file, e.what());
    }
    return out;
  }
  return {};
}

report::HtmlReportOptions ReportOptionsFor(const std::vector<std::string>& paths,
                                           const std::string& kubeconfig,
                                           const std::string& config_path,
                                           const api::Manifests& inputs,
                                           const std::string& stdin_text) {
  report::HtmlReportOptions options;
  options.inputs = paths;
  if (!kubeconfig.empty()) {
    options.inputs.insert(options.inputs.begin(), "the cluster of --kubeconfig " + kubeconfig);
  }
  if (options.inputs.empty()) options.inputs.push_back(std::string(kDemoName));
  const ConfigText config_text =
      FindConfigText(config_path, inputs,
                     {{"<stdin>", stdin_text}, {std::string(kDemoName) + " config", kDemoConfig}});
  options.config_source = config_text.source;
  options.config_text = config_text.text;
  return options;
}

ReportFile::~ReportFile() {
  if (file_ != nullptr) std::fclose(file_);
}

bool ReportFile::Fail(int error, std::ostream& err) {
  err << fmt::format("error: --report: cannot write {}: {}\n", path_,
                     error != 0 ? std::strerror(error) : "write failed");
  return false;
}

bool ReportFile::Open(const std::string& path, std::ostream& err) {
  path_ = path;
  errno = 0;
  file_ = std::fopen(path.c_str(), "wb");
  return file_ != nullptr || Fail(errno, err);
}

bool ReportFile::Write(const sim::Simulation& sim, const report::HtmlReportOptions& options,
                       std::ostream& err) {
  std::ostringstream page;
  report::WriteHtmlReport(sim, options, page);
  return WritePage(std::move(page).str(), err);
}

bool ReportFile::WritePage(const std::string& text, std::ostream& err) {
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), file_) == text.size();
  int error = errno;
  const bool closed = std::fclose(file_) == 0;
  if (error == 0) error = errno;
  file_ = nullptr;
  return (written && closed) || Fail(error, err);
}

}  // namespace muster::cli
