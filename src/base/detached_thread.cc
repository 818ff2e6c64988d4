#include "vtensor/base/detached_thread.h"

#include <pthread.h>
#include <signal.h>

#include <cstddef>

namespace vt {

bool StartDetachedThread(void* (*fn)(void*), void* arg) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, size_t{64} << 10);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits the full mask
  pthread_t tid;
  const bool ok = pthread_create(&tid, &attr, fn, arg) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  return ok;
}

}  // namespace vt
