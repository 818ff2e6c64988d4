#include "ops/transformer/kv_cache.h"

#include <omp.h>

#include <algorithm>

#include "vtensor/layout/layout_presets.h"

namespace vt::ops {

void AppendKv(const KvAppend& a, size_t elem_bytes, void* present,
              const std::function<void(size_t b, size_t h, size_t r, void* dst)>& new_row,
              int threads) {
  const size_t row_bytes = a.head_size * elem_bytes;
  const size_t rows = std::min(a.rows, a.capacity);
  const bool in_place = a.past == present;
  const ptrdiff_t units = static_cast<ptrdiff_t>(a.batch * a.heads);
  const int nt = static_cast<int>(std::max<ptrdiff_t>(1, std::min<ptrdiff_t>(threads, units)));
  auto head = [&](ptrdiff_t u) {
    const size_t b = static_cast<size_t>(u) / a.heads;
    char* dst = static_cast<char*>(present) + static_cast<size_t>(u) * a.capacity * row_bytes;
    const size_t past = a.past != nullptr ? std::min(a.past_rows[b], rows) : 0;
    if (past > 0 && !in_place)
      std::memcpy(dst,
                  static_cast<const char*>(a.past) +
                      static_cast<size_t>(u) * a.past_capacity * row_bytes,
                  past * row_bytes);
    const size_t at = std::min(a.new_at[b], rows);
    const size_t end = std::min(at + a.new_rows, rows);
    // Zero what neither the past nor the new rows cover.
    if (at > past) std::memset(dst + past * row_bytes, 0, (at - past) * row_bytes);
    for (size_t r = 0; at + r < end; ++r)
      new_row(b, static_cast<size_t>(u) % a.heads, r, dst + (at + r) * row_bytes);
    const size_t filled = std::max(past, end);
    if (rows > filled) std::memset(dst + filled * row_bytes, 0, (rows - filled) * row_bytes);
  };
  if (nt <= 1) {  // no OpenMP team: its barriers cost system calls even for one thread
    for (ptrdiff_t u = 0; u < units; ++u) head(u);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (ptrdiff_t u = 0; u < units; ++u) head(u);
}

Tensor KvCacheGrowth::Allocate(DType dtype, int64_t batch, int64_t heads, int64_t rows,
                               int64_t head_size) {
  const int64_t capacity = (rows + std::max<int64_t>(64, rows / 4) + 63) / 64 * 64;
  auto layout = KvCacheLayout(batch, heads, rows, capacity, head_size, KvCacheOrder::kHeadMajor,
                              Encoding::kUnspecified);
  auto storage = Storage::AllocateUninitialized(
      static_cast<size_t>(batch * heads * capacity * head_size) * DTypeSize(dtype));
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [](const Entry& e) { return e.storage.expired(); }),
                 entries_.end());
  entries_.push_back({storage, rows});
  return Tensor(dtype, *layout, std::move(storage));
}

KvCacheGrowth::Entry* KvCacheGrowth::Find(const Tensor& t) {
  for (Entry& e : entries_) {
    auto s = e.storage.lock();
    if (s != nullptr && s.get() == t.storage().get()) return &e;
  }
  return nullptr;
}

bool KvCacheGrowth::Grow(const Tensor& k, const Tensor& v, int64_t rows, Tensor* k_out,
                         Tensor* v_out) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry* ek = Find(k);
  Entry* ev = Find(v);
  if (ek == nullptr || ev == nullptr || ek == ev) return false;
  auto view = [&](const Tensor& t, const Entry& e, Tensor* out) {
    const auto geo = MatchKvCacheLayout(t.layout());
    if (!geo || geo->order != KvCacheOrder::kHeadMajor || geo->capacity < rows ||
        t.dim(2) != e.end || t.layout().offset() != 0)
      return false;
    auto l = KvCacheLayout(t.dim(0), t.dim(1), rows, geo->capacity, t.dim(3),
                           KvCacheOrder::kHeadMajor, Encoding::kUnspecified);
    *out = Tensor(t.dtype(), *l, t.storage());
    return true;
  };
  if (!view(k, *ek, k_out) || !view(v, *ev, v_out)) return false;
  ek->end = ev->end = rows;
  return true;
}

int64_t KvRowsPerHead(const Tensor& t) {
  if (t.rank() != 4) return 0;
  if (t.is_contiguous()) return t.dim(2);
  const auto geo = MatchKvCacheLayout(t.layout());
  if (geo && geo->order == KvCacheOrder::kHeadMajor && t.layout().offset() == 0)
    return geo->capacity;
  return 0;
}

}  // namespace vt::ops
