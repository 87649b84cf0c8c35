#include "muster/cli/out_of_memory.h"

#include <new>

#include <gtest/gtest.h>

namespace muster::cli {
namespace {

// The sanitizers' allocator dies on its own when memory runs out, without asking the
// new-handler: the handler is called here as operator new calls it in the release build.
TEST(OutOfMemoryDeathTest, AFailedAllocationEndsInAMessageAndStatusOne) {
  EXPECT_EXIT(
      {
        InstallOutOfMemoryHandler();
        const std::new_handler handler = std::get_new_handler();
        if (handler != nullptr) handler();
      },
      testing::ExitedWithCode(1), "error: out of memory: an allocation failed");
}

}  // namespace
}  // namespace muster::cli
