#include "exec/thread_team.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <thread>

namespace vt {
namespace {

// Threads of this process (/proc/self/task), or -1.
int ProcessThreads() {
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return -1;
  int n = 0;
  while (const dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

// On a thread that never entered a parallel region, a team of 3 leaves the OpenMP runtime's two
// pool threads behind (libgomp keeps them for that thread's next region), and that thread's
// default team size is unchanged.
TEST(ThreadTeamTest, StartsThePoolAndKeepsTheDefaultTeamSize) {
  const int before = ProcessThreads();
  if (before < 0) GTEST_SKIP() << "no /proc/self/task";
  int with_team = 0, max_threads = 0, max_threads_after_one = 0;
  std::thread caller([&] {
    omp_set_num_threads(5);
    StartThreadTeam(3);
    with_team = ProcessThreads();
    max_threads = omp_get_max_threads();
    StartThreadTeam(0);  // taken as 1
    max_threads_after_one = omp_get_max_threads();
  });
  caller.join();
  EXPECT_GE(with_team, before + 3) << "the caller and its two pool threads";
  EXPECT_EQ(max_threads, 5);
  EXPECT_EQ(max_threads_after_one, 5);
}

}  // namespace
}  // namespace vt
