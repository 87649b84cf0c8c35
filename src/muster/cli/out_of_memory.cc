#include "muster/cli/out_of_memory.h"

#include <new>
#include <string_view>

#include <unistd.h>

#include "muster/cli/validate.h"

namespace muster::cli {

namespace {

void Write(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

void InstallOutOfMemoryHandler() { std::set_new_handler(OnOutOfMemory); }

void OnOutOfMemory() {
  // Nothing here may allocate: the heap is what failed. A progress line on a terminal is
  // erased first, so that the message starts a line of its own.
  if (::isatty(STDERR_FILENO) == 1) Write("\r\x1b[K");
  Write(
      "error: out of memory: an allocation failed. The input asks for more than this machine "
      "holds: give fewer pods or nodes (simulate and explain refuse more pods than --max-pods "
      "allows), or run on a machine with more memory\n");
  ::_exit(kExitRuntimeError);
}

}  // namespace muster::cli
