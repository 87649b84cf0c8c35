#include "muster/framework/log.h"

#include <mutex>

namespace muster::log {
namespace {

std::mutex& SinkMutex() {
  static std::mutex mu;
  return mu;
}

Sink& TheSink() {
  static Sink sink;
  return sink;
}

}  // namespace

void Install(Sink sink, int verbosity) {
  std::lock_guard lock(SinkMutex());
  TheSink() = std::move(sink);
  internal::verbosity.store(TheSink() ? verbosity : -1, std::memory_order_relaxed);
}

void Write(const Record& record) {
  std::lock_guard lock(SinkMutex());
  if (TheSink()) TheSink()(record);
}

}  // namespace muster::log
