#include "ops/transformer/attention_driver.h"

#include <omp.h>

#include <algorithm>
#include <cassert>
#include <vector>

#include "kernels/cpu/flush_denormals.h"

namespace vt::ops {
namespace {

struct Task {
  size_t b, g, r0, r1;
  bool clamped;  // one row at the position of row keys[b].clamp_row - 1
};

// Blocks of query rows per (batch, KV head): one block on one thread (each call packs a key
// block once for all its rows, docs/attention.md), else enough blocks for two tasks per thread.
size_t RowBlock(const AttentionProblem& p, int threads) {
  if (threads <= 1 || p.q_len <= 8) return std::max<size_t>(p.q_len, 1);
  const size_t units = p.batch * p.kv_heads;
  const size_t want = 2 * static_cast<size_t>(threads);
  if (units >= want) return p.q_len;
  const size_t blocks = (want + units - 1) / units;
  const size_t rows = (p.q_len + blocks - 1) / blocks;
  return std::max<size_t>(8, (rows + 7) / 8 * 8);
}

kernels::AttentionCall MakeCall(const AttentionProblem& p, const Task& t) {
  const size_t group = p.q_heads / p.kv_heads;
  const ptrdiff_t b = static_cast<ptrdiff_t>(t.b), r0 = static_cast<ptrdiff_t>(t.r0);
  const ptrdiff_t h0 = static_cast<ptrdiff_t>(t.g * group), g = static_cast<ptrdiff_t>(t.g);
  const size_t kv_bytes = p.kv_type == kernels::AttentionKv::kF16 ? 2 : 4;
  kernels::AttentionCall c;
  c.heads = group;
  c.rows = t.r1 - t.r0;
  c.head_size = p.head_size;
  c.v_head_size = p.v_head_size;
  c.q = p.q.data + b * p.q.batch + h0 * p.q.head + r0 * p.q.row;
  c.q_head_stride = p.q.head;
  c.q_row_stride = p.q.row;
  c.kv_type = p.kv_type;
  c.k = static_cast<const char*>(p.k.data) +
        static_cast<ptrdiff_t>(kv_bytes) * (b * p.k.batch + g * p.k.head);
  c.k_row_stride = p.k.row;
  c.v = static_cast<const char*>(p.v.data) +
        static_cast<ptrdiff_t>(kv_bytes) * (b * p.v.batch + g * p.v.head);
  c.v_row_stride = p.v.row;
  c.out = p.out.data + b * p.out.batch + h0 * p.out.head + r0 * p.out.row;
  c.out_head_stride = p.out.head;
  c.out_row_stride = p.out.row;
  const BatchKeys& k = p.keys[t.b];
  c.kv_begin = k.kv_begin;
  c.kv_end = k.kv_end;
  c.q_pos = k.q_pos + (t.clamped ? static_cast<int64_t>(k.clamp_row) - 1 : r0);
  c.causal = p.causal;
  c.window_left = p.window_left;
  c.window_right = p.window_right;
  c.scale = p.scale;
  c.softcap = p.softcap;
  auto term = [&](const ScoreTerm& s) {
    kernels::AttentionBias a;
    if (s.data == nullptr) return a;
    a.data = s.data + b * s.batch + h0 * s.head + r0 * s.row;
    a.head_stride = s.head;
    a.row_stride = s.row;
    a.key_stride = s.key;
    return a;
  };
  c.bias = term(p.bias);
  c.mask = term(p.mask);
  c.sink = p.sink != nullptr ? p.sink + h0 : nullptr;
  return c;
}

}  // namespace

void RunAttention(const AttentionProblem& p, const kernels::AttentionKernel& kernel, int threads) {
  assert(p.kv_heads > 0 && p.q_heads % p.kv_heads == 0 && p.keys.size() == p.batch);
  if (p.batch == 0 || p.q_heads == 0 || p.q_len == 0) return;
  const size_t block = RowBlock(p, threads);
  std::vector<Task> tasks;
  for (size_t b = 0; b < p.batch; ++b) {
    const size_t clamp = std::max<size_t>(1, std::min(p.q_len, p.keys[b].clamp_row));
    for (size_t g = 0; g < p.kv_heads; ++g) {
      for (size_t r0 = 0; r0 < clamp; r0 += block)
        tasks.push_back({b, g, r0, std::min(clamp, r0 + block), false});
      for (size_t r = clamp; r < p.q_len; ++r) tasks.push_back({b, g, r, r + 1, true});
    }
  }
  const size_t group = p.q_heads / p.kv_heads;
  size_t max_keys = 0;
  for (const BatchKeys& k : p.keys) max_keys = std::max(max_keys, k.kv_end);
  const size_t scratch_floats =
      p.scores != nullptr ? kernels::AttentionMaterializedScratchFloats(max_keys)
                          : kernels::AttentionScratchFloats(group * block, p.head_size);
  const int nt = static_cast<int>(std::min<size_t>(std::max(threads, 1), tasks.size()));
  auto run = [&](const Task& t, float* scratch) {
    const kernels::AttentionCall c = MakeCall(p, t);
    if (p.scores == nullptr) return kernel.ukernel(c, scratch);
    kernels::AttentionScoresOut qk;
    qk.stage = p.stage;
    qk.scores = p.scores + static_cast<ptrdiff_t>(t.b) * p.scores_batch +
                static_cast<ptrdiff_t>(t.g * group) * p.scores_head +
                static_cast<ptrdiff_t>(t.r0) * p.scores_row;
    qk.head_stride = p.scores_head;
    qk.row_stride = p.scores_row;
    kernels::AttentionMaterialized(c, qk, scratch);
  };
  if (nt <= 1) {  // no OpenMP team: its barriers cost system calls even for one thread
    kernels::ScopedFlushDenormals ftz;
    std::vector<float> scratch(scratch_floats);
    for (const Task& t : tasks) run(t, scratch.data());
    return;
  }
  const ptrdiff_t n = static_cast<ptrdiff_t>(tasks.size());
#pragma omp parallel num_threads(nt)
  {
    kernels::ScopedFlushDenormals ftz;
    std::vector<float> scratch(scratch_floats);
#pragma omp for schedule(dynamic, 1)
    for (ptrdiff_t i = 0; i < n; ++i) run(tasks[static_cast<size_t>(i)], scratch.data());
  }
}

}  // namespace vt::ops
