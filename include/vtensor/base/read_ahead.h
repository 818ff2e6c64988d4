// Mapping a session's file-backed weights ahead of its first run, on a background thread, in the
// order the run first reads them (docs/benchmarks.md, "Weights mapped ahead of the first run").
//
// Why: weights a run reads in place (compiled payloads that hit, sources read in place by
// small-M GEMMs) are views of a file mapping, and the first access to each page of it is a page
// fault taken by the run. On the 1 GiB MatMul stack that is about 2,600 faults and 10-15 ms of
// system time inside a first run that otherwise streams the weights at the machine's read
// bandwidth. A thread that reads one byte of each page ahead of the run, in the run's order,
// takes those faults on another core: a page costs it one fault or one cache miss, the run a
// whole page's worth of reading, so it stays ahead.
//
// The thread runs at SCHED_IDLE: only on a core nothing else wants. At normal priority it
// competed with the creating thread for the two cores of the machines we measure (the code-page
// thread of base/code_pages.h runs then too) and delayed the first run's start by 1-2 ms; at
// idle priority, on a busy machine, it simply falls behind and the run takes its own faults.
// It maps pages by reading them, not with MADV_POPULATE_READ, which holds the address-space
// lock for its call: a thread preempted inside it would stall every mmap of the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace vt {

// Bytes the thread reads between two checks of its stop flag (one 2 MiB page of the address).
inline constexpr size_t kReadAheadChunkBytes = size_t{2} << 20;

// `size` bytes at `data` of a mapping that `keep_alive` keeps mapped.
struct MappedRange {
  const void* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
};

// What the read-ahead thread does, from the environment variable VTENSOR_READ_AHEAD.
enum class ReadAheadMode {
  kOff,    // "off" or "0": the run takes its own faults
  kTouch,  // unset or anything else: one byte of each 4 KiB page read, in order
};
// The mode `value` (VTENSOR_READ_AHEAD's value, null when unset) names.
ReadAheadMode ReadAheadModeFrom(const char* value);

// A background thread reading ranges in order. Destroying this object stops the thread after
// its current chunk and joins it (the thread is first raised to normal priority, so that a busy
// machine does not keep the caller waiting: at most one chunk, 512 page reads); the ranges'
// keep-alive handles are released then. Accessors are thread-safe.
class ReadAhead {
 public:
  // Starts the thread over `ranges` (in this order; ranges without data, bytes or keep-alive
  // handle are skipped). Null when there is nothing to read, `mode` is kOff, or no thread could
  // be created (then nothing is read: the run takes its faults as without read-ahead). The
  // thread runs with the asynchronous signals blocked, so the process's handlers for them never
  // run on it; a fault it takes (SIGBUS from a file truncated under its mapping) is handled as on
  // any thread.
  static std::unique_ptr<ReadAhead> Start(std::vector<MappedRange> ranges, ReadAheadMode mode);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Bytes of the ranges read so far (whole chunks; a range's last chunk may be shorter).
  uint64_t bytes_done() const;
  // Sum of the ranges' sizes.
  uint64_t bytes_total() const;
  // Blocks until the thread has gone through every range.
  void Wait() const;

  struct State;  // what the thread reads and reports (read_ahead.cc)

 private:
  explicit ReadAhead(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
  std::thread thread_;
};

}  // namespace vt
