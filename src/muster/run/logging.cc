#include "muster/run/logging.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>
#include <unistd.h>

namespace muster::run {
namespace {

// Quoted as Go's %q quotes (klog's text values) or as a JSON string: the two agree on every
// escape muster's values need.
void AppendQuoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

char SeverityLetter(log::Severity s) {
  switch (s) {
    case log::Severity::kWarning:
      return 'W';
    case log::Severity::kError:
      return 'E';
    case log::Severity::kInfo:
      break;
  }
  return 'I';
}

}  // namespace

bool ParseLogFormat(std::string_view name, LogFormat* format) {
  if (name == "text") {
    *format = LogFormat::kText;
  } else if (name == "json") {
    *format = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

std::string FormatLogLine(const log::Record& record, LogFormat format, int64_t now_us, long pid) {
  std::string line;
  if (format == LogFormat::kJson) {
    line = fmt::format("{{\"ts\":{}.{:03d}", now_us / 1000, static_cast<int>(now_us % 1000));
    if (record.severity == log::Severity::kInfo) {
      line += fmt::format(",\"v\":{}", record.v);
    } else {
      line += record.severity == log::Severity::kError ? ",\"level\":\"error\""
                                                       : ",\"level\":\"warning\"";
    }
    line += ",\"msg\":";
    AppendQuoted(line, record.msg);
    for (const log::Field& f : record.fields) {
      line.push_back(',');
      AppendQuoted(line, f.key);
      line.push_back(':');
      if (f.quoted) {
        AppendQuoted(line, f.value());
      } else {
        line += f.value();
      }
    }
    line += "}\n";
    return line;
  }
  const std::time_t seconds = static_cast<std::time_t>(now_us / 1000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  line = fmt::format("{}{:02d}{:02d} {:02d}:{:02d}:{:02d}.{:06d} {:7d} muster] ",
                     SeverityLetter(record.severity), tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, static_cast<int>(now_us % 1000000), pid);
  AppendQuoted(line, record.msg);
  for (const log::Field& f : record.fields) {
    line.push_back(' ');
    line += f.key;
    line.push_back('=');
    if (f.quoted) {
      AppendQuoted(line, f.value());
    } else {
      line += f.value();
    }
  }
  line.push_back('\n');
  return line;
}

void InstallLog(LogFormat format, int verbosity, std::FILE* out) {
  std::FILE* to = out != nullptr ? out : stderr;
  log::Install(
      [format, to](const log::Record& record) {
        const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
        const std::string line = FormatLogLine(record, format, now_us, static_cast<long>(getpid()));
        std::fwrite(line.data(), 1, line.size(), to);
        std::fflush(to);
      },
      verbosity);
}

}  // namespace muster::run
