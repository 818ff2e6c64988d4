// Subcommands of the `vtensor` CLI. Each returns the process exit code:
// 0 success / all outputs pass, 1 a mismatch (run) or findings (check), 2 any error.
#pragma once

#include <string>

namespace vt::cli {

struct RunArgs {
  std::string model;
  std::string data_dir;  // empty: zero inputs
  double rtol = 1e-3;
  double atol = 1e-7;
  int threads = 1;
};
int RunCommand(const RunArgs& a);

int InfoCommand(const std::string& model);

struct BenchArgs {
  std::string model;
  std::string data_dir;
  int runs = 20;
  int warmup = 2;
  int threads = 1;
};
int BenchCommand(const BenchArgs& a);

}  // namespace vt::cli
