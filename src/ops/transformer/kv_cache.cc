#include "ops/transformer/kv_cache.h"

#include <omp.h>

#include <algorithm>

namespace vt::ops {

void AppendKv(const KvAppend& a, size_t elem_bytes, void* present,
              const std::function<void(size_t b, size_t h, size_t r, void* dst)>& new_row,
              int threads) {
  const size_t row_bytes = a.head_size * elem_bytes;
  const ptrdiff_t units = static_cast<ptrdiff_t>(a.batch * a.heads);
  const int nt = static_cast<int>(std::max<ptrdiff_t>(1, std::min<ptrdiff_t>(threads, units)));
#pragma omp parallel for num_threads(nt) schedule(static)
  for (ptrdiff_t u = 0; u < units; ++u) {
    const size_t b = static_cast<size_t>(u) / a.heads, h = static_cast<size_t>(u) % a.heads;
    char* dst = static_cast<char*>(present) + static_cast<size_t>(u) * a.capacity * row_bytes;
    const size_t past = a.past != nullptr ? std::min(a.past_rows[b], a.capacity) : 0;
    if (past > 0)
      std::memcpy(dst,
                  static_cast<const char*>(a.past) +
                      static_cast<size_t>(u) * a.past_capacity * row_bytes,
                  past * row_bytes);
    const size_t at = std::min(a.new_at[b], a.capacity);
    const size_t end = std::min(at + a.new_rows, a.capacity);
    // Zero what neither the past nor the new rows cover.
    if (at > past) std::memset(dst + past * row_bytes, 0, (at - past) * row_bytes);
    for (size_t r = 0; at + r < end; ++r) new_row(b, h, r, dst + (at + r) * row_bytes);
    const size_t filled = std::max(past, end);
    if (a.capacity > filled)
      std::memset(dst + filled * row_bytes, 0, (a.capacity - filled) * row_bytes);
  }
}

}  // namespace vt::ops
