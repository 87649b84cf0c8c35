#pragma once

// The operator's log, as kube-scheduler's klog: lines at a verbosity (`-v`), a message and
// key/value pairs ("Successfully bound pod to node" pod="default/web-0" node="n1"). `muster
// run` installs a sink that writes them (text or JSON, run/logging.h); `simulate` and `bench`
// install none, and then V() is one relaxed load and a compare, so a log statement costs
// nothing on their hot path.

#include <atomic>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace muster::log {

// A key and its value: strings are quoted in text (JSON strings), numbers and booleans are not.
// It refers to the strings it is given and allocates nothing: a field built for a line that is
// not written costs a few stores.
class Field {
 public:
  Field(std::string_view k, std::string_view v) : key(k), text_(v) {}
  Field(std::string_view k, const std::string& v) : key(k), text_(v) {}
  Field(std::string_view k, const char* v) : key(k), text_(v) {}
  Field(std::string_view k, bool v) : key(k), text_(v ? "true" : "false"), quoted(false) {}
  template <std::integral T>
  Field(std::string_view k, T v) : key(k), quoted(false) {
    number_len_ =
        static_cast<uint8_t>(std::to_chars(number_, number_ + sizeof number_, v).ptr - number_);
  }
  Field(std::string_view k, double v) : key(k), quoted(false) {
    if (!std::isfinite(v)) {  // not a JSON number: a string, as Go's encoder refuses them
      text_ = std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
      quoted = true;
      return;
    }
    number_len_ =
        static_cast<uint8_t>(std::to_chars(number_, number_ + sizeof number_, v).ptr - number_);
  }

  std::string_view value() const {
    return number_len_ > 0 ? std::string_view(number_, number_len_) : text_;
  }

  std::string_view key;

 private:
  std::string_view text_;
  char number_[24];
  uint8_t number_len_ = 0;

 public:
  bool quoted = true;
};

enum class Severity { kInfo, kWarning, kError };

struct Record {
  Severity severity = Severity::kInfo;
  int v = 0;  // the verbosity an info line was logged at
  std::string_view msg;
  std::span<const Field> fields;
};

using Sink = std::function<void(const Record&)>;

namespace internal {
inline std::atomic<int> verbosity{-1};  // -1: no sink, nothing is logged
}  // namespace internal

// Installs the sink and the verbosity (klog's -v); info lines above it are dropped. Call before
// any thread logs; Install(nullptr, -1) turns logging off.
void Install(Sink sink, int verbosity);

// Whether info lines at `level` are written.
inline bool V(int level) { return level <= internal::verbosity.load(std::memory_order_relaxed); }

void Write(const Record& record);

inline void Info(int v, std::string_view msg, std::initializer_list<Field> fields = {}) {
  if (V(v))
    Write(Record{Severity::kInfo, v, msg, std::span<const Field>(fields.begin(), fields.size())});
}
inline void Warning(std::string_view msg, std::initializer_list<Field> fields = {}) {
  if (V(0)) {
    Write(
        Record{Severity::kWarning, 0, msg, std::span<const Field>(fields.begin(), fields.size())});
  }
}
inline void Error(std::string_view msg, std::initializer_list<Field> fields = {}) {
  if (V(0)) {
    Write(Record{Severity::kError, 0, msg, std::span<const Field>(fields.begin(), fields.size())});
  }
}

// The same, with the message formatted (only when the line is written).
template <typename... A>
void Infof(int v, fmt::format_string<A...> format, A&&... args) {
  if (V(v)) Info(v, fmt::format(format, std::forward<A>(args)...));
}
template <typename... A>
void Warningf(fmt::format_string<A...> format, A&&... args) {
  if (V(0)) Warning(fmt::format(format, std::forward<A>(args)...));
}
template <typename... A>
void Errorf(fmt::format_string<A...> format, A&&... args) {
  if (V(0)) Error(fmt::format(format, std::forward<A>(args)...));
}

}  // namespace muster::log
