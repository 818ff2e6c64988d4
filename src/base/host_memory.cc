#include "vtensor/base/host_memory.h"

#include "vtensor/base/detached_thread.h"
#include "vtensor/base/huge_mapping.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>

namespace vt {

namespace {

constexpr size_t kHugePage = kHugePageBytes;
constexpr size_t kAlign = 64;
// Address space reserved per region. Only what a block has used is backed: the rest is never
// touched, so it costs address space, not memory.
constexpr size_t kRegionBytes = size_t{1} << 30;
// Freed bytes kept backed, summed over regions (each region's touched bytes less its live
// ones). Beyond it, a region whose blocks are all free is unmapped: a process that once ran a
// much larger shape does not keep it all.
constexpr uint64_t kMaxCachedBytes = uint64_t{1} << 30;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// A region's first bytes, in transparent huge pages; the rest of it in 4 KiB pages (header,
// "Page sizes").
constexpr size_t kHugeHeadBytes = size_t{4} << 20;
#ifdef MADV_POPULATE_WRITE
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

// Write-ahead (header, "Pages supplied ahead"): how far past a region's touched prefix the
// thread supplies pages (at most the prefix's own length: a small model is not given much more
// than it uses), and how much it supplies per call (the call holds the address-space lock).
constexpr size_t kAheadBytes = size_t{8} << 20;
constexpr size_t kAheadChunk = size_t{64} << 10;

bool WriteAheadEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("VTENSOR_HOST_ARENA_AHEAD");
    return !(v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0));
  }();
  return on;
}

// A 2 MiB-aligned anonymous mapping of `bytes` (a multiple of 2 MiB) whose first
// kHugeHeadBytes are advised for huge pages and the rest for 4 KiB pages, or null.
void* MapRegion(size_t bytes) {
  void* p = MapHugeAligned(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1);
  if (p == MAP_FAILED) return nullptr;
  if (bytes > kHugeHeadBytes)
    ::madvise(static_cast<char*>(p) + kHugeHeadBytes, bytes - kHugeHeadBytes, MADV_NOHUGEPAGE);
  return p;
}

// One mapping and its free ranges, coalesced (address -> length). A block is split off the
// lowest free range that holds it (address-ordered first fit): blocks pack towards the start,
// so the touched prefix, [base, base + high_water), grows only when no freed range fits.
struct Region {
  uintptr_t base = 0;
  size_t len = 0;
  size_t high_water = 0;  // end offset of the highest block handed out so far
  size_t live = 0;        // bytes in blocks handed out and not yet freed
  std::map<uintptr_t, size_t> free;

  // The used prefix, in whole pages: 2 MiB ones in the head, 4 KiB ones beyond.
  size_t TouchedBytes() const {
    return std::min(len, RoundUp(high_water, high_water <= kHugeHeadBytes ? kHugePage : 4096));
  }
  bool Holds(uintptr_t p) const { return p >= base && p < base + len; }

  // `bytes` (a multiple of kAlign) from the lowest free range that holds them, or 0.
  uintptr_t Take(size_t bytes) {
    for (auto it = free.begin(); it != free.end(); ++it) {
      if (it->second < bytes) continue;
      const uintptr_t p = it->first;
      const size_t rest = it->second - bytes;
      free.erase(it);
      if (rest > 0) free.emplace(p + bytes, rest);
      high_water = std::max(high_water, p + bytes - base);
      live += bytes;
      return p;
    }
    return 0;
  }

  // Returns [p, p + bytes) to the free ranges, merged with its neighbours.
  void Give(uintptr_t p, size_t bytes) {
    live -= bytes;
    auto next = free.lower_bound(p);
    if (next != free.end() && p + bytes == next->first) {
      bytes += next->second;
      next = free.erase(next);
    }
    if (next != free.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == p) {
        prev->second += bytes;
        return;
      }
    }
    free.emplace(p, bytes);
  }
};

class Arena;
Arena& TheArena();

class Arena {
 public:
  void* Alloc(size_t bytes) {
    const size_t n = HostAllocBlockBytes(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    for (Region& r : regions_)
      if (void* p = TakeFrom(r, n)) return p;
    Region* r = NewRegion(n);
    return r != nullptr ? TakeFrom(*r, n) : nullptr;
  }

  // PrefaultHostArenaHead: the first region's head (the region created if there is none),
  // populated for writing (the kernel supplies its huge pages and changes no byte, so blocks
  // already handed out keep their contents).
  void PrefaultHead() {
    uintptr_t base = 0;
    size_t head = 0;  // within the region: one mapped without address space to spare is shorter
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (prefaulted_) return;
      prefaulted_ = true;
      if (regions_.empty() && NewRegion(kHugeHeadBytes) == nullptr) return;
      base = regions_.front().base;
      head = std::min(regions_.front().len, kHugeHeadBytes);
    }
    // One call per huge page: the call holds the address-space lock, which other threads' mmap
    // calls wait for, only while one page is supplied.
    uint64_t supplied = 0;
    for (size_t off = 0; off < head; off += kHugePage)
      if (::madvise(reinterpret_cast<void*>(base + off), kHugePage, kPopulateWrite) == 0)
        supplied += kHugePage;
    std::lock_guard<std::mutex> lock(mu_);
    counts_.prefaulted_bytes = supplied;
  }

  void ResetPeak() {
    std::lock_guard<std::mutex> lock(mu_);
    counts_.peak_live_bytes = counts_.live_bytes;
  }

  void Free(void* p, size_t bytes) {
    const size_t n = HostAllocBlockBytes(bytes);
    const auto a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(mu_);
    auto r = std::find_if(regions_.begin(), regions_.end(),
                          [a](const Region& x) { return x.Holds(a); });
    if (r == regions_.end()) return;  // not from this arena: a caller bug, nothing to free
    r->Give(a, n);
    counts_.live_bytes -= n;
    // Never under the write-ahead thread's feet: a region it is supplying now stays mapped.
    if (r->live == 0 && CachedBytes() > kMaxCachedBytes && in_flight_base_ != r->base) {
      if (ahead_.base == r->base) ahead_ = Ahead{};
      ::munmap(reinterpret_cast<void*>(r->base), r->len);
      regions_.erase(r);
    }
  }

  HostMemoryStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    HostMemoryStats s = counts_;
    for (const Region& r : regions_) {
      s.mapped_bytes += r.len;
      s.touched_bytes += r.TouchedBytes();
    }
    s.cached_bytes = CachedBytes();
    return s;
  }

 private:
  // A block of `n` bytes from `r`, or null; counts it as fresh when it touched new pages.
  void* TakeFrom(Region& r, size_t n) {
    const size_t touched = r.TouchedBytes();
    const uintptr_t p = r.Take(n);
    if (p == 0) return nullptr;
    const bool fresh = r.TouchedBytes() > touched;
    ++(fresh ? counts_.fresh_blocks : counts_.reused_blocks);
    if (fresh && r.high_water > kHugeHeadBytes) RequestAhead(r);
    counts_.live_bytes += n;
    counts_.peak_live_bytes = std::max(counts_.peak_live_bytes, counts_.live_bytes);
    return reinterpret_cast<void*>(p);
  }

  // Asks the write-ahead thread (started on first use) to supply region r's pages past its
  // touched prefix, up to kAheadBytes (at most the prefix's length) beyond it: where the next
  // fresh blocks go. Never the pages of blocks handed out (a block's owner may never write all
  // of it: a KV cache sized for the longest sequence). Called under mu_.
  void RequestAhead(const Region& r) {
    if (!WriteAheadEnabled() || ahead_unsupported_) return;
    const size_t from = r.TouchedBytes();
    const size_t want =
        std::min(r.len, RoundUp(from + std::min(kAheadBytes, from), kAheadChunk));
    if (ahead_.base != r.base) ahead_ = Ahead{r.base, from, from};
    ahead_.done = std::max(ahead_.done, from);
    ahead_.target = std::max(ahead_.target, want);
    if (!ahead_thread_started_) {
      ahead_thread_started_ = true;
      ahead_unsupported_ = !StartAheadThread();  // no thread: not asked again
    }
    ahead_cv_.notify_one();
  }

  // The write-ahead thread's loop: supplies [done, target) of the region in chunks, unlocked
  // while the kernel supplies them (MADV_POPULATE_WRITE changes no byte of a page a block's
  // owner already wrote).
  void AheadLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ahead_cv_.wait(lock, [this] { return ahead_.done < ahead_.target; });
      const uintptr_t base = ahead_.base;
      const size_t from = ahead_.done, len = std::min(kAheadChunk, ahead_.target - from);
      in_flight_base_ = base;
      lock.unlock();
      const bool ok = ::madvise(reinterpret_cast<void*>(base + from), len, kPopulateWrite) == 0;
      lock.lock();
      in_flight_base_ = 0;
      if (!ok) {  // refused (a kernel before 5.14): not asked again
        ahead_unsupported_ = true;
        ahead_ = Ahead{};
        continue;
      }
      counts_.ahead_bytes += len;
      if (ahead_.base == base) ahead_.done = std::max(ahead_.done, from + len);
    }
  }

 public:
  // fork(): the child has no write-ahead thread, and mu_ must not be copied locked (held by
  // the thread at the fork). Registered once (pthread_atfork) when the thread starts.
  void ForkPrepare() { mu_.lock(); }
  void ForkParent() { mu_.unlock(); }
  void ForkChild() {
    ahead_ = Ahead{};
    in_flight_base_ = 0;
    ahead_thread_started_ = false;
    mu_.unlock();
  }

 private:

  static void* AheadThread(void* arena) {
    // Only on a core nothing else wants (header); best effort.
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    static_cast<Arena*>(arena)->AheadLoop();
    return nullptr;
  }

  // A detached thread with every signal blocked (the process's handlers never run on it); the
  // arena is never destroyed. False when no thread could be made.
  bool StartAheadThread() {
    const bool ok = StartDetachedThread(AheadThread, this);
    static const bool at_fork = [] {
      pthread_atfork([] { TheArena().ForkPrepare(); }, [] { TheArena().ForkParent(); },
                     [] { TheArena().ForkChild(); });
      return true;
    }();
    (void)at_fork;
    return ok;
  }

  // Backed bytes outside live blocks, over all regions.
  uint64_t CachedBytes() const {
    uint64_t cached = 0;
    for (const Region& r : regions_) cached += r.TouchedBytes() - std::min(r.TouchedBytes(), r.live);
    return cached;
  }

  // A new region that holds at least `n` bytes, or null when the system has no address space.
  Region* NewRegion(size_t n) {
    size_t len = std::max(kRegionBytes, RoundUp(n, kHugePage));
    void* p = MapRegion(len);
    if (p == nullptr && len > RoundUp(n, kHugePage)) {
      len = RoundUp(n, kHugePage);  // the address space is limited (ulimit -v): just this block
      p = MapRegion(len);
    }
    if (p == nullptr) return nullptr;
    Region& r = regions_.emplace_back();
    r.base = reinterpret_cast<uintptr_t>(p);
    r.len = len;
    r.free.emplace(r.base, len);
    return &r;
  }

  // What the write-ahead thread supplies: region `base`'s offsets [done, target).
  struct Ahead {
    uintptr_t base = 0;  // 0: none
    size_t done = 0;
    size_t target = 0;
  };

  std::mutex mu_;
  std::condition_variable ahead_cv_;
  Ahead ahead_;
  uintptr_t in_flight_base_ = 0;  // the region the thread is supplying now, unlocked (0: none)
  bool ahead_thread_started_ = false;
  bool ahead_unsupported_ = false;  // no thread, or the kernel refused the advice
  bool prefaulted_ = false;     // PrefaultHead ran (once per process)
  std::deque<Region> regions_;  // oldest first: lower regions are filled before later ones
  HostMemoryStats counts_;  // block counts and live bytes; Stats() adds the rest
};

// Never destroyed: tensors may be freed by static destructors after main returns.
Arena& TheArena() {
  static Arena* a = new Arena();
  return *a;
}

}  // namespace

bool HostArenaEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("VTENSOR_HOST_ARENA");
    return !(v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0));
  }();
  return on;
}

size_t HostAllocBlockBytes(size_t bytes) { return RoundUp(bytes == 0 ? 1 : bytes, kAlign); }

void* HostAlloc(size_t bytes) {
  if (bytes >= kHostArenaMinBytes && HostArenaEnabled()) return TheArena().Alloc(bytes);
  return std::aligned_alloc(kAlign, HostAllocBlockBytes(bytes));
}

void HostFree(void* p, size_t bytes) {
  if (!p) return;
  if (bytes >= kHostArenaMinBytes && HostArenaEnabled()) return TheArena().Free(p, bytes);
  std::free(p);
}

void PrefaultHostArenaHead() {
  if (HostArenaEnabled()) TheArena().PrefaultHead();
}

HostMemoryStats GetHostMemoryStats() {
  if (!HostArenaEnabled()) {
    HostMemoryStats s;
    s.enabled = false;
    return s;
  }
  return TheArena().Stats();
}

void ResetHostMemoryPeak() {
  if (HostArenaEnabled()) TheArena().ResetPeak();
}

}  // namespace vt
