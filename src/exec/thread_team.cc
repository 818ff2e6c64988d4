#include "exec/thread_team.h"

#include <omp.h>

#include <algorithm>

namespace vt {

void StartThreadTeam(int threads) {
  threads = std::max(threads, 1);
  // The region must not be optimised away: each member writes its own slot.
  volatile int entered = 0;
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_thread_num() == 0) entered = 1;
  }
  (void)entered;
}

}  // namespace vt
