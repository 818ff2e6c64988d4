// Runs a child process with a time limit and captures its output, so CLI tests can tell a
// clean error exit from a crash (signal) or a hang (timeout).
#pragma once

#include <string>
#include <vector>

namespace vt::testing {

struct ProcessResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  int term_signal = 0;    // the signal that ended the child, 0 when it exited
  bool timed_out = false; // killed after the time limit
  std::string output;     // stdout and stderr interleaved

  // "exit 2", "signal 11 (Segmentation fault)", "timeout"; for assertion messages.
  std::string Describe() const;
};

// Runs argv[0] (a path, not searched in PATH) with stdin from /dev/null. After `timeout_s`
// seconds the child is killed with SIGKILL and timed_out is set.
ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_s);

}  // namespace vt::testing
