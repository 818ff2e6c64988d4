#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace vt::testing {

std::string ProcessResult::Describe() const {
  if (timed_out) return "timeout";
  if (term_signal != 0)
    return "signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + ")";
  return "exit " + std::to_string(exit_code);
}

ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.output = std::string("pipe failed: ") + strerror(errno);
    return r;
  }
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  pid_t pid = fork();
  if (pid < 0) {
    r.output = std::string("fork failed: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return r;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  close(fds[1]);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // timeout is handled at the top of the loop
    ssize_t got = read(fds[0], buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the child closed its output (normally by exiting)
    r.output.append(buf, static_cast<size_t>(got));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!r.timed_out) {
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
    else if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  }
  return r;
}

}  // namespace vt::testing
