#include <fmt/core.h>

#include "tools/commands.h"

namespace vt::cli {

int BenchLoadCommand(const BenchLoadArgs& a) {
  fmt::print(stderr, "error: bench-load for {} is being written\n", a.model);
  return 2;
}

}  // namespace vt::cli
