// Folds of long reductions in short blocks, so that a float32 sum of n terms is about
// (64 + log2(n / 1024) + 4) roundings deep instead of n / 16 (docs/accuracy.md). Shared by the
// Reduce* kernels, softmax and global average pooling.
//
// A row (contiguous elements) is cut into blocks of kFoldLanes x kFoldLaneSteps elements; each
// block is folded from the identity into kFoldLanes lane partials (lane j takes the elements j,
// j + kFoldLanes, ... of the block), block partials are combined pairwise (a binary-counter
// cascade: partial l holds 2^l blocks), and the lanes are finally combined as a tree. Rows of
// strided columns are cut into blocks of kFoldColumnRows rows, combined the same way. Rows no
// longer than one block fold exactly as before blocking did. The order depends only on n, so
// equal inputs give equal results wherever they sit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace vt::ops {

inline constexpr int kFoldLanes = 16;
inline constexpr int64_t kFoldLaneSteps = 64;
inline constexpr int64_t kFoldBlock = kFoldLanes * kFoldLaneSteps;
inline constexpr int64_t kFoldColumnRows = 64;

// Pairwise combination of a stream of width-W block partials (W lanes or columns).
template <typename A, typename Comb>
class FoldCascade {
 public:
  FoldCascade(int64_t width, Comb comb) : width_(width), comb_(comb) {}

  // Takes the partial of the next block (`block` is used as scratch).
  void Add(A* block) {
    int l = 0;
    for (; (count_ >> l) & 1u; ++l) {
      const A* older = Level(l);
      for (int64_t w = 0; w < width_; ++w) block[w] = comb_(older[w], block[w]);
    }
    if (levels_.size() < static_cast<size_t>((l + 1) * width_))
      levels_.resize(static_cast<size_t>((l + 1) * width_));
    std::copy(block, block + width_, Level(l));
    ++count_;
  }

  // The combination of every block added, oldest on the left; `init` when none was.
  void Finish(A init, A* out) const {
    bool any = false;
    for (int l = 63; l >= 0; --l) {
      if (((count_ >> l) & 1u) == 0) continue;
      const A* p = levels_.data() + l * width_;
      for (int64_t w = 0; w < width_; ++w) out[w] = any ? comb_(out[w], p[w]) : p[w];
      any = true;
    }
    if (!any) std::fill(out, out + width_, init);
  }

 private:
  A* Level(int l) { return levels_.data() + l * width_; }
  int64_t width_;
  Comb comb_;
  uint64_t count_ = 0;
  std::vector<A> levels_;
};

// comb(... comb(init, map(x[0])) ..., map(x[n - 1])) reassociated in blocks as above.
template <typename A, typename T, typename Map, typename Comb>
A BlockedFold(const T* x, int64_t n, A init, Map map, Comb comb) {
  A lane[kFoldLanes];
  auto fold_block = [&](const T* b, int64_t len) {
    for (int j = 0; j < kFoldLanes; ++j) lane[j] = init;
    int64_t r = 0;
    for (; r + kFoldLanes <= len; r += kFoldLanes) {
#pragma omp simd
      for (int j = 0; j < kFoldLanes; ++j) lane[j] = comb(lane[j], map(b[r + j]));
    }
    for (int j = 0; r < len; ++r, ++j) lane[j] = comb(lane[j], map(b[r]));
  };
  if (n > kFoldBlock) {
    FoldCascade<A, Comb> cascade(kFoldLanes, comb);
    for (int64_t b0 = 0; b0 < n; b0 += kFoldBlock) {
      fold_block(x + b0, std::min(kFoldBlock, n - b0));
      cascade.Add(lane);
    }
    cascade.Finish(init, lane);
  } else {
    fold_block(x, n);
  }
  for (int w = kFoldLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] = comb(lane[j], lane[j + w]);
  return lane[0];
}

// BlockedFold<float>(x, n, 0.0f, identity, +) to the bit. Each block's kFoldLanes lane partials
// are four 4-lane vector values (GCC vector types of the baseline ISA's width, so registers),
// where BlockedFold's lane array is read and written back on every step of the block (a chain
// through memory).
inline float BlockedSumF32(const float* x, int64_t n) {
  using V4 = float __attribute__((vector_size(4 * sizeof(float))));
  static_assert(kFoldLanes == 16);
  float lane[kFoldLanes];
  auto fold_block = [&](const float* b, int64_t len) {
    V4 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    int64_t r = 0;
    for (; r + kFoldLanes <= len; r += kFoldLanes) {
      V4 v0, v1, v2, v3;
      std::memcpy(&v0, b + r, sizeof v0);
      std::memcpy(&v1, b + r + 4, sizeof v1);
      std::memcpy(&v2, b + r + 8, sizeof v2);
      std::memcpy(&v3, b + r + 12, sizeof v3);
      a0 += v0;
      a1 += v1;
      a2 += v2;
      a3 += v3;
    }
    std::memcpy(lane, &a0, sizeof a0);
    std::memcpy(lane + 4, &a1, sizeof a1);
    std::memcpy(lane + 8, &a2, sizeof a2);
    std::memcpy(lane + 12, &a3, sizeof a3);
    for (int j = 0; r < len; ++r, ++j) lane[j] += b[r];
  };
  auto add = [](float a, float b) { return a + b; };
  if (n > kFoldBlock) {
    FoldCascade<float, decltype(add)> cascade(kFoldLanes, add);
    for (int64_t b0 = 0; b0 < n; b0 += kFoldBlock) {
      fold_block(x + b0, std::min(kFoldBlock, n - b0));
      cascade.Add(lane);
    }
    cascade.Finish(0.0f, lane);
  } else {
    fold_block(x, n);
  }
  for (int w = kFoldLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
  return lane[0];
}

// acc[i] = the fold of map(x[r * inner + i], i) over r < rows, for i < inner: blocks of
// kFoldColumnRows rows folded in turn from `init`, combined pairwise.
template <typename A, typename T, typename Map, typename Comb>
void BlockedFoldColumns(const T* x, int64_t rows, int64_t inner, A init, Map map, Comb comb,
                        A* acc) {
  auto fold_rows = [&](const T* b, int64_t n, A* out) {
    std::fill(out, out + inner, init);
    for (int64_t r = 0; r < n; ++r) {
      const T* row = b + r * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) out[i] = comb(out[i], map(row[i], i));
    }
  };
  if (rows <= kFoldColumnRows) {
    fold_rows(x, rows, acc);
    return;
  }
  FoldCascade<A, Comb> cascade(inner, comb);
  for (int64_t r0 = 0; r0 < rows; r0 += kFoldColumnRows) {
    fold_rows(x + r0 * inner, std::min(kFoldColumnRows, rows - r0), acc);
    cascade.Add(acc);
  }
  cascade.Finish(init, acc);
}

}  // namespace vt::ops
