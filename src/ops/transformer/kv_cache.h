// Building a present KV cache (BNSH: [batch, kv_heads, capacity, head_size], the layout of
// ONNX Runtime's present_key / present_value and of KvCacheLayout's head-major order) from the
// past cache and the new rows, in one pass: past rows are copied, new rows are produced
// straight into their slots by the operator (rotated, biased or converted as they are
// written), and every other row is zero (ONNX Runtime clears the unused tail).
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <vector>

namespace vt::ops {

struct KvAppend {
  size_t batch = 0, heads = 0, head_size = 0;
  size_t capacity = 0;                // present rows per head
  const void* past = nullptr;         // BNSH past cache of the present's element type, or null
  size_t past_capacity = 0;           // rows per head of `past`
  std::vector<size_t> past_rows;      // per batch entry: rows [0, past_rows) copied from past
  std::vector<size_t> new_at;         // per batch entry: first row of the new rows
  size_t new_rows = 0;                // new rows per (batch, head)
};

// Writes `present` (batch * heads * capacity * head_size elements of size `elem_bytes`).
// new_row(b, h, r, dst) writes new row r of head h, batch b into dst (head_size elements).
// Rows past `capacity` are skipped (callers validate positions first).
void AppendKv(const KvAppend& a, size_t elem_bytes, void* present,
              const std::function<void(size_t b, size_t h, size_t r, void* dst)>& new_row,
              int threads);

}  // namespace vt::ops
