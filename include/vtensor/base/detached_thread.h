// Background threads of the runtime's own (the code-page toucher, base/code_pages.h; the
// arena's write-ahead, base/host_memory.h): detached, a 64 KiB stack, every signal blocked so
// that the process's handlers never run on them.
#pragma once

namespace vt {

// Runs fn(arg) on a new detached thread with every signal blocked (the calling thread's mask is
// left as it was). False when no thread could be created (then fn never runs).
bool StartDetachedThread(void* (*fn)(void*), void* arg);

}  // namespace vt
