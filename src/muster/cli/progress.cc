#include "muster/cli/progress.h"

#include <ostream>

#include <unistd.h>

namespace muster::cli {
namespace {

constexpr std::chrono::seconds kQuiet(1);
constexpr std::chrono::milliseconds kInterval(100);

}  // namespace

ProgressLine::ProgressLine(std::ostream& err, bool enabled)
    : err_(err), enabled_(enabled), started_(std::chrono::steady_clock::now()) {}

double ProgressLine::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

bool ProgressLine::Due() const {
  if (!enabled_) return false;
  const auto now = std::chrono::steady_clock::now();
  return now - started_ >= kQuiet && now - last_ >= kInterval;
}

void ProgressLine::Update(const std::string& line) {
  if (!enabled_) return;
  last_ = std::chrono::steady_clock::now();
  err_ << "\r\x1b[K" << line << std::flush;
  shown_ = true;
}

void ProgressLine::Clear() {
  if (!shown_) return;
  err_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

void ProgressLine::Restart() {
  Clear();
  started_ = std::chrono::steady_clock::now();
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace muster::cli
