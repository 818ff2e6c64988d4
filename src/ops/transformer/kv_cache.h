// Present KV caches of the attention operators: BNSH ([batch, kv_heads, seq, head_size]), the
// layout of ONNX Runtime's present_key / present_value, allocated as KvCacheLayout head-major
// tensors with spare capacity in their strides (layout_presets.h, docs/attention.md), so that
// the next decode step can append its rows in place instead of copying the whole past.
//
// AppendKv builds a present from the past and the new rows in one pass: past rows are copied
// (skipped when the present *is* the past's storage), new rows are produced straight into their
// slots by the operator (rotated, biased or converted as they are written), and the other
// logical rows are zero (ONNX Runtime clears the unused tail).
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "vtensor/tensor/tensor.h"

namespace vt::ops {

struct KvAppend {
  size_t batch = 0, heads = 0, head_size = 0;
  size_t capacity = 0;                // present rows per head in memory (head stride / row)
  size_t rows = SIZE_MAX;             // logical present rows (zero-filled up to here); default
                                      // capacity
  const void* past = nullptr;         // BNSH past cache of the present's element type, or null;
                                      // equal to the present's memory when growing in place
  size_t past_capacity = 0;           // rows per head of `past` in memory
  std::vector<size_t> past_rows;      // per batch entry: rows [0, past_rows) copied from past
  std::vector<size_t> new_at;         // per batch entry: first row of the new rows
  size_t new_rows = 0;                // new rows per (batch, head)
};

// Writes `present` (batch * heads * capacity * head_size elements of size `elem_bytes`).
// new_row(b, h, r, dst) writes new row r of head h, batch b into dst (head_size elements).
// Rows past `rows` are skipped (callers validate positions first).
void AppendKv(const KvAppend& a, size_t elem_bytes, void* present,
              const std::function<void(size_t b, size_t h, size_t r, void* dst)>& new_row,
              int threads);

// The present caches one operator node hands out, so that a step whose past is the previous
// step's present grows it in place. Appending past a cache's logical end leaves its values
// unchanged (the rows are outside its view), but two appends from the same past would
// overwrite each other: the registry remembers each cache's end and grows a past only while
// its end is still that of the present handed out last for that storage.
class KvCacheGrowth {
 public:
  // A cache of logical shape [batch, heads, rows, head_size] with spare capacity for growth
  // (rows + max(64, rows / 4), rounded up to 64), registered at end `rows`.
  Tensor Allocate(DType dtype, int64_t batch, int64_t heads, int64_t rows, int64_t head_size);

  // When `k` and `v` are caches this registry handed out, still ending where they did, with
  // room for `rows` rows: *k_out / *v_out view the same storage with `rows` rows (the rows past
  // the old end are the caller's to write) and true. Else false and nothing changes.
  bool Grow(const Tensor& k, const Tensor& v, int64_t rows, Tensor* k_out, Tensor* v_out);

 private:
  struct Entry {
    std::weak_ptr<Storage> storage;
    int64_t end = 0;
  };
  Entry* Find(const Tensor& t);
  std::mutex mu_;
  std::vector<Entry> entries_;
};

// Rows per head in memory of a BNSH cache tensor: its capacity when it is a head-major
// KvCacheLayout (or contiguous), else 0 (the caller makes it contiguous first).
int64_t KvRowsPerHead(const Tensor& t);

}  // namespace vt::ops
