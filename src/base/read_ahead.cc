#include "vtensor/base/read_ahead.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

namespace vt {

namespace {

constexpr uintptr_t kPageBytes = 4096;

// Reads the byte at `b` and the first byte of each later 4 KiB page before `e`: each read
// faults its page in if it is not mapped yet (with the file's fault-around, or its 2 MiB
// folio). Only bytes of [b, e) are read.
void TouchChunk(uintptr_t b, uintptr_t e) {
  unsigned sum = 0;
  for (uintptr_t p = b; p < e; p = (p / kPageBytes + 1) * kPageBytes)
    sum += *reinterpret_cast<const volatile unsigned char*>(p);
  asm volatile("" : : "r"(sum));  // the reads are the point; keep them
}

}  // namespace

ReadAheadMode ReadAheadModeFrom(const char* value) {
  if (value != nullptr && (std::strcmp(value, "off") == 0 || std::strcmp(value, "0") == 0))
    return ReadAheadMode::kOff;
  return ReadAheadMode::kTouch;
}

struct ReadAhead::State {
  std::vector<MappedRange> ranges;
  uint64_t bytes_total = 0;
  std::atomic<uint64_t> bytes_done{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;  // guarded by mu

  void Body();
};

std::unique_ptr<ReadAhead> ReadAhead::Start(std::vector<MappedRange> ranges, ReadAheadMode mode) {
  std::erase_if(ranges, [](const MappedRange& r) {
    return r.data == nullptr || r.size == 0 || r.keep_alive == nullptr;
  });
  if (mode == ReadAheadMode::kOff || ranges.empty()) return nullptr;
  auto state = std::make_shared<State>();
  for (const MappedRange& r : ranges) state->bytes_total += r.size;
  state->ranges = std::move(ranges);
  // The new thread inherits this thread's signal mask: all blocked while it is created.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  bool started = true;
  try {
    std::thread([state] { state->Body(); }).detach();
  } catch (const std::system_error&) {
    started = false;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!started) return nullptr;
  return std::unique_ptr<ReadAhead>(new ReadAhead(std::move(state)));
}

ReadAhead::~ReadAhead() { state_->stop.store(true, std::memory_order_relaxed); }

uint64_t ReadAhead::bytes_done() const {
  return state_->bytes_done.load(std::memory_order_relaxed);
}

uint64_t ReadAhead::bytes_total() const { return state_->bytes_total; }

void ReadAhead::Wait() const {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait(lock, [this] { return state_->finished; });
}

void ReadAhead::State::Body() {
  // Only on a core nothing else wants (header). Best effort: at normal priority if refused.
  sched_param idle{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  for (const MappedRange& r : ranges) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.data), hi = lo + r.size;
    // Chunks end on 2 MiB boundaries of the address; the stop flag is read between them.
    for (uintptr_t b = lo; b < hi && !stop.load(std::memory_order_relaxed);) {
      const uintptr_t e = std::min(hi, (b / kReadAheadChunkBytes + 1) * kReadAheadChunkBytes);
      TouchChunk(b, e);
      bytes_done.fetch_add(e - b, std::memory_order_relaxed);
      b = e;
    }
  }
  ranges.clear();  // the keep-alive handles: a mapping nothing else holds is unmapped here
  std::lock_guard<std::mutex> lock(mu);
  finished = true;
  cv.notify_all();
}

}  // namespace vt
