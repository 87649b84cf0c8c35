#pragma once

// The progress line of long runs: one line on a terminal's stderr, rewritten in place, shown
// only once a run has taken more than a second; nothing at all when stderr is not a terminal
// (a log or a pipe gets the results, not a stream of carriage returns).

#include <chrono>
#include <iosfwd>
#include <string>

namespace muster::cli {

class ProgressLine {
 public:
  // `enabled`: stderr is a terminal (see StderrIsTerminal).
  ProgressLine(std::ostream& err, bool enabled);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Seconds of wall time since the line was made (or last Restart).
  double Elapsed() const;
  // Whether an Update now would print: enabled, past the first second, and at most ten times a
  // second. Callers build the line only then.
  bool Due() const;
  void Update(const std::string& line);
  // Erases the line, if one is shown.
  void Clear();
  // Starts the quiet second again (a new workload).
  void Restart();

 private:
  std::ostream& err_;
  const bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_;
};

bool StderrIsTerminal();

}  // namespace muster::cli
