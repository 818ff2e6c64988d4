#include "vtensor/base/read_ahead.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
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

// Blocks the asynchronous signals on the calling thread while it lives (a thread created
// meanwhile inherits the mask); the synchronous ones stay as they were, so that a fault is
// handled as on any thread.
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked() {
    sigset_t set;
    sigfillset(&set);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~AsyncSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

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

ReadAhead::ReadAhead(std::unique_ptr<State> state) : state_(std::move(state)) {}

std::unique_ptr<ReadAhead> ReadAhead::Start(std::vector<MappedRange> ranges, ReadAheadMode mode) {
  std::erase_if(ranges, [](const MappedRange& r) {
    return r.data == nullptr || r.size == 0 || r.keep_alive == nullptr;
  });
  if (mode == ReadAheadMode::kOff || ranges.empty()) return nullptr;
  auto state = std::make_unique<State>();
  for (const MappedRange& r : ranges) state->bytes_total += r.size;
  state->ranges = std::move(ranges);
  std::unique_ptr<ReadAhead> ra(new ReadAhead(std::move(state)));
  try {
    AsyncSignalsBlocked blocked;
    ra->thread_ = std::thread([s = ra->state_.get()] { s->Body(); });
  } catch (const std::exception&) {  // std::system_error, std::bad_alloc: no thread
    return nullptr;
  }
  return ra;
}

ReadAhead::~ReadAhead() {
  if (!thread_.joinable()) return;  // Start failed to create it
  state_->stop.store(true, std::memory_order_relaxed);
  // Raised from SCHED_IDLE so that it reaches the stop flag soon on a busy machine.
  sched_param normal{};
  pthread_setschedparam(thread_.native_handle(), SCHED_OTHER, &normal);
  thread_.join();
}

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
  std::lock_guard<std::mutex> lock(mu);
  finished = true;
  cv.notify_all();
}

}  // namespace vt
