#pragma once

// What muster does when memory runs out: an allocation that fails anywhere (any thread, inside
// a noexcept function or not) ends the process with a message on stderr and exit status 1
// (kExitRuntimeError), never an abort with a core dump.

namespace muster::cli {

// Makes OnOutOfMemory the process's new-handler. main calls it first.
void InstallOutOfMemoryHandler();

// Writes the message (without allocating) and exits with status 1.
[[noreturn]] void OnOutOfMemory();

}  // namespace muster::cli
