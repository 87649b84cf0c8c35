#pragma once

// `muster run`'s log sink: log::Record lines on stderr, as kube-scheduler writes them.
//   text: I1125 17:07:46.123456   12345 muster] "Successfully bound pod to node"
//   pod="default/web-0" node="n1" json: {"ts":1764090466123.456,"v":2,"msg":"Successfully bound pod
//   to node","pod":"default/web-0","node":"n1"}
// (klog's header: severity, date, time in UTC, process id; JSON as component-base's: ts in
// milliseconds since the epoch, v for info lines, "err" for what went wrong.)

#include <cstdio>
#include <string>
#include <string_view>

#include "muster/framework/log.h"

namespace muster::run {

enum class LogFormat { kText, kJson };

// "text" or "json"; false for anything else.
bool ParseLogFormat(std::string_view name, LogFormat* format);

// One record as a line (with its newline), at `now_us` microseconds since the epoch; `pid` is
// what klog's header calls the thread id (it writes the process id there too).
std::string FormatLogLine(const log::Record& record, LogFormat format, int64_t now_us, long pid);

// Installs a sink that writes to `out` (stderr when nullptr) at the given verbosity.
void InstallLog(LogFormat format, int verbosity, std::FILE* out = nullptr);

}  // namespace muster::run
