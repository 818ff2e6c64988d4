#include "vtensor/layout/layout.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "vtensor/layout/layout_presets.h"
#include "vtensor/layout/layout_text.h"

namespace vt {
namespace {

// A spec of `shape` in `encoding` with these physical levels, padding, no offset.
LayoutSpec Spec(Shape shape, Encoding encoding, std::vector<LayoutLevel> levels,
                Shape padded = {}) {
  LayoutSpec s;
  s.shape = std::move(shape);
  s.encoding = encoding;
  s.levels = std::move(levels);
  s.padded = std::move(padded);
  return s;
}

// Calls f(idx) for every logical index of `shape` in row-major order.
template <typename F>
void ForEachIndex(const Shape& shape, F f) {
  if (NumElements(shape) == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    f(idx);
    int d = static_cast<int>(shape.size()) - 1;
    while (d >= 0 && ++idx[static_cast<size_t>(d)] == shape[static_cast<size_t>(d)]) {
      idx[static_cast<size_t>(d)] = 0;
      --d;
    }
    if (d < 0) return;
  }
}

// Reference evaluation of the addressing rule straight from an uncanonicalized spec.
int64_t NaiveIndex(const LayoutSpec& s, const std::vector<int64_t>& idx) {
  int64_t e = s.offset;
  for (const auto& l : s.levels) {
    int64_t parent = 0;
    for (const auto& o : s.levels)
      if (o.dim == l.dim && o.tile > l.tile && (parent == 0 || o.tile < parent)) parent = o.tile;
    int64_t q = idx[static_cast<size_t>(l.dim)] / l.tile;
    if (parent) q %= parent / l.tile;
    e += q * l.stride;
  }
  return e;
}

TEST(LayoutTest, LegacyStridedApi) {
  Layout c = Layout::Contiguous({2, 3, 4});
  EXPECT_TRUE(c.is_strided());
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(c.numel(), 24);
  auto t = c.Transpose({2, 0, 1});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(t->strides(), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_FALSE(t->is_contiguous());
  auto s = c.Slice(2, 3, -1, 4);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->offset(), 3);
  EXPECT_EQ(s->strides()[2], -1);
  auto b = Layout::Contiguous({3, 1}).BroadcastTo({2, 3, 5});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_FALSE(Layout::Strided({2}, {1, 1}, 0).ok());
  EXPECT_FALSE(c.Transpose({0, 0, 1}).ok());
  EXPECT_EQ(c.Slice(0, 2, 1, 1).status().code(), StatusCode::kOutOfRange);
}

TEST(LayoutTest, FactoryCanonicalizesToStrided) {
  // Levels listed in any order, a redundant tile, and unit dims all reduce to Contiguous.
  auto l = Layout::Make(
      Spec({4, 1, 8}, Encoding::kF32, {{2, 1, 1}, {0, 2, 16}, {0, 1, 8}, {1, 1, 99}}));
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_TRUE(l->is_strided());
  EXPECT_EQ(*l, Layout::Contiguous({4, 1, 8}, Encoding::kF32));
  // A transposed spec becomes the strided transpose.
  auto tr = Layout::Make(Spec({3, 5}, Encoding::kUnspecified, {{0, 1, 1}, {1, 1, 3}}));
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ(*tr, *Layout::Contiguous({5, 3}).Transpose({1, 0}));
}

TEST(LayoutTest, FactoryRejectsInvalidSpecs) {
  auto err = [](const LayoutSpec& s) { return Layout::Make(s).status().message(); };
  EXPECT_NE(err(Spec({4}, Encoding::kF32, {{1, 1, 1}})).find("levels[0]: dim 1 outside rank 1"),
            std::string::npos);
  EXPECT_NE(err(Spec({8}, Encoding::kF32, {{0, 4, 1}, {0, 3, 4}})).find("does not divide"),
            std::string::npos);
  EXPECT_NE(err(Spec({8}, Encoding::kF32, {{0, 4, 1}})).find("no level with tile 1"),
            std::string::npos);
  EXPECT_NE(err(Spec({8}, Encoding::kF32, {{0, 1, 1}}, {4})).find("padded[0]"), std::string::npos);
  EXPECT_NE(err(Spec({-1}, Encoding::kF32, {})).find("shape[0]"), std::string::npos);
  EXPECT_NE(err(Spec({4, 64}, Encoding::kQ4_0, {{0, 1, 64}, {1, 1, 2}})).find("tile 1 and stride 1"),
            std::string::npos);
  EXPECT_NE(err(Spec({4, 64}, Encoding::kQ4_0, {{1, 16, 64}, {0, 1, 16}, {1, 1, 1}})).find("splits"),
            std::string::npos);
  EXPECT_NE(err(Spec({4}, Encoding::kF32, {{0, 1, -1}})).find("negative strides"),
            std::string::npos);
  EXPECT_NE(err(Spec({4}, Encoding::kF32, {{0, 0, 1}})).find("tile 0"), std::string::npos);
}

TEST(LayoutTest, GemmPanelsMatchHandFormulaAndAreDense) {
  for (int64_t panel : {16, 32}) {
    for (auto [k_, n] : std::vector<std::pair<int64_t, int64_t>>{{7, 16}, {17, 33}, {5, 1}, {3, 64}}) {
      const int64_t k = k_;  // a lambda below captures it (clang 14 cannot capture a binding)
      auto l = GemmColumnPanels(k, n, panel);
      ASSERT_TRUE(l.ok()) << l.status().ToString();
      const int64_t npad = (n + panel - 1) / panel * panel;
      EXPECT_EQ(l->StorageBytes(), k * npad * 4) << LayoutToText(*l);
      std::set<int64_t> seen;
      ForEachIndex(l->shape(), [&](const std::vector<int64_t>& i) {
        int64_t want = ((i[1] / panel) * k + i[0]) * panel + i[1] % panel;
        ASSERT_EQ(l->ElementIndex(i.data()), want);
        ASSERT_EQ(l->Locate(i.data()).byte, want * 4);
        seen.insert(want);
      });
      EXPECT_EQ(static_cast<int64_t>(seen.size()), k * n);
    }
  }
}

TEST(LayoutTest, BlockQuantizedAddressesBruteForce) {
  struct Case {
    Encoding e;
    int64_t n, k, rows;
    BlockOrder order;
  } cases[] = {
      {Encoding::kQ4_0, 5, 64, 0, BlockOrder::kInputBlockMajor},
      {Encoding::kQ4_0, 5, 40, 0, BlockOrder::kRowMajor},
      {Encoding::kQ8_0, 7, 96, 4, BlockOrder::kInputBlockMajor},
      {Encoding::kQ4Zp32, 3, 32, 0, BlockOrder::kInputBlockMajor},
      {Encoding::kQ4_K, 3, 512, 2, BlockOrder::kInputBlockMajor},
      {Encoding::kQ4_K, 2, 300, 0, BlockOrder::kRowMajor},
      {Encoding::kI4, 3, 7, 0, BlockOrder::kInputBlockMajor},
  };
  for (const auto& c : cases) {
    auto l = BlockQuantizedWeight(c.n, c.k, c.e, c.order, c.rows);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    const auto& t = GetEncodingTraits(c.e);
    const int64_t be = t.block_elems, nb = (c.k + be - 1) / be;
    const int64_t rows = c.rows <= 0 ? c.n : c.rows;
    const int64_t npad = (c.n + rows - 1) / rows * rows;
    std::set<std::pair<int64_t, int32_t>> seen;
    ForEachIndex(l->shape(), [&](const std::vector<int64_t>& i) {
      const int64_t n = i[0], kb = i[1] / be;
      int64_t block = c.order == BlockOrder::kRowMajor
                          ? n * nb + kb
                          : ((n / rows) * nb + kb) * rows + n % rows;
      ByteAddress a = l->Locate(i.data());
      ASSERT_EQ(a.byte, block * t.block_bytes) << LayoutToText(*l);
      ASSERT_EQ(a.elem, i[1] % be);
      seen.insert({a.byte, a.elem});
    });
    EXPECT_EQ(static_cast<int64_t>(seen.size()), c.n * c.k);
    const int64_t blocks = (c.order == BlockOrder::kRowMajor ? c.n : npad) * nb;
    EXPECT_EQ(l->StorageBytes(), blocks * t.block_bytes) << LayoutToText(*l);
    if (c.n > 1 && nb > 1) {
      EXPECT_EQ(l->block_order(), c.order) << LayoutToText(*l);
    }
  }
}

TEST(LayoutTest, Int4FlatPacking) {
  // ONNX int4 [3,5]: 15 nibbles packed flat, pairs cross rows.
  Layout l = Layout::Contiguous({3, 5}, Encoding::kI4);
  int64_t idx[2] = {1, 0};
  EXPECT_EQ(l.Locate(idx), (ByteAddress{2, 1}));
  EXPECT_EQ(l.StorageBytes(), 8);
}

TEST(LayoutTest, RandomSpecsMatchNaiveEvaluation) {
  std::mt19937 rng(1234);
  int built = 0;
  for (int iter = 0; iter < 400; ++iter) {
    LayoutSpec s;
    const int rank = 1 + static_cast<int>(rng() % 3);
    for (int d = 0; d < rank; ++d) s.shape.push_back(1 + rng() % 9);
    // Per dim a tile chain 1 | t1 | t2 with random physical nesting; strides computed densely
    // over a random order of the levels so the result is a valid, often packed, layout.
    std::vector<std::pair<int, int64_t>> lv;  // (dim, tile)
    for (int d = 0; d < rank; ++d) {
      lv.push_back({d, 1});
      int64_t t = 1;
      for (int extra = rng() % 3; extra > 0; --extra) {
        t *= 2 + rng() % 2;
        lv.push_back({d, t});
      }
    }
    std::shuffle(lv.begin(), lv.end(), rng);
    s.padded = s.shape;
    std::vector<int64_t> maxtile(rank, 1);
    for (auto [d, t] : lv) maxtile[static_cast<size_t>(d)] = std::max(maxtile[static_cast<size_t>(d)], t);
    for (int d = 0; d < rank; ++d) {
      int64_t m = maxtile[static_cast<size_t>(d)];
      s.padded[static_cast<size_t>(d)] = (s.shape[static_cast<size_t>(d)] + m - 1) / m * m + (rng() % 2) * m;
    }
    int64_t stride = 1;
    for (size_t i = lv.size(); i-- > 0;) {
      auto [d, t] = lv[i];
      int64_t parent = 0;
      for (auto [d2, t2] : lv)
        if (d2 == d && t2 > t && (parent == 0 || t2 < parent)) parent = t2;
      int64_t count = parent ? parent / t : s.padded[static_cast<size_t>(d)] / t;
      s.levels.push_back({d, t, stride});
      stride *= count;
    }
    s.offset = rng() % 3;
    auto l = Layout::Make(s);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    ++built;
    std::set<int64_t> seen;
    ForEachIndex(s.shape, [&](const std::vector<int64_t>& i) {
      ASSERT_EQ(l->ElementIndex(i.data()), NaiveIndex(s, i)) << LayoutToText(*l);
      seen.insert(NaiveIndex(s, i));
    });
    EXPECT_EQ(static_cast<int64_t>(seen.size()), NumElements(s.shape));
    EXPECT_EQ(l->StorageBytes(), stride + s.offset) << LayoutToText(*l);
    // Text and hash round trips.
    std::string text = LayoutToText(*l);
    auto back = ParseLayout(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().ToString();
    EXPECT_EQ(*back, *l) << text;
    EXPECT_EQ(LayoutToText(*back), text);
    EXPECT_EQ(back->Hash(), l->Hash());
    // Transpose and slice of a packed layout are metadata changes with the same addresses.
    std::vector<int64_t> perm(rank);
    for (int d = 0; d < rank; ++d) perm[static_cast<size_t>(d)] = rank - 1 - d;
    auto t = l->Transpose(perm);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ForEachIndex(t->shape(), [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(rank);
      for (int d = 0; d < rank; ++d) src[static_cast<size_t>(perm[static_cast<size_t>(d)])] = i[static_cast<size_t>(d)];
      ASSERT_EQ(t->ElementIndex(i.data()), l->ElementIndex(src.data()));
    });
    auto sl = l->Slice(0, 0, 1, (s.shape[0] + 1) / 2);
    if (sl.ok()) {
      ForEachIndex(sl->shape(), [&](const std::vector<int64_t>& i) {
        ASSERT_EQ(sl->ElementIndex(i.data()), l->ElementIndex(i.data()));
      });
    }
  }
  EXPECT_EQ(built, 400);
}

TEST(LayoutTest, PackedSliceAndBroadcastAreViews) {
  auto l = GemmColumnPanels(6, 40, 16);
  ASSERT_TRUE(l.ok());
  auto s = l->Slice(1, 16, 1, 20);  // starts at a panel boundary: a view
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ForEachIndex(s->shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = {i[0], i[1] + 16};
    ASSERT_EQ(s->ElementIndex(i.data()), l->ElementIndex(j.data()));
  });
  EXPECT_EQ(l->Slice(1, 3, 1, 5).status().code(), StatusCode::kUnimplemented);
  auto r = l->Slice(0, 1, 2, 3);  // dim 0 has a single level: any step
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ForEachIndex(r->shape(), [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j = {1 + 2 * i[0], i[1]};
    ASSERT_EQ(r->ElementIndex(i.data()), l->ElementIndex(j.data()));
  });
  auto b = l->BroadcastTo({3, 6, 40});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ForEachIndex(b->shape(), [&](const std::vector<int64_t>& i) {
    ASSERT_EQ(b->ElementIndex(i.data()), l->ElementIndex(i.data() + 1));
  });
}

TEST(LayoutTest, EqualityAndHash) {
  auto a = GemmColumnPanels(8, 32, 16);
  auto b = Layout::Make(Spec({8, 32}, Encoding::kF32, {{0, 1, 16}, {1, 1, 1}, {1, 16, 128}}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->Hash(), b->Hash());
  auto c = GemmColumnPanels(8, 32, 32);
  EXPECT_NE(*a, *c);
  EXPECT_NE(a->Hash(), c->Hash());
  EXPECT_NE(Layout::Contiguous({2, 2}), Layout::Contiguous({2, 2}, Encoding::kF32));
  // The hash is FNV-1a-64 of the canonical text: pinned so it never changes silently.
  EXPECT_EQ(Layout::Contiguous({2, 3}, Encoding::kF32).Hash(), 0xafc2264e3222f3ccull)
      << std::hex << Layout::Contiguous({2, 3}, Encoding::kF32).Hash();
}

// KV cache presets: addresses by the documented formulas, room for appended positions, the
// text form round trip, and recognition (also of a slice back to the valid positions).
TEST(LayoutTest, KvCacheLayoutsAddressAndRoundTrip) {
  const int64_t b = 2, n = 3, s = 5, cap = 8, h = 7;
  for (KvCacheOrder order : {KvCacheOrder::kHeadMajor, KvCacheOrder::kSequenceMajor}) {
    auto l = KvCacheLayout(b, n, s, cap, h, order, Encoding::kF16);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_TRUE(l->is_strided());
    EXPECT_EQ(l->shape(), (Shape{b, n, s, h}));
    ForEachIndex(l->shape(), [&](const std::vector<int64_t>& i) {
      const int64_t want = order == KvCacheOrder::kHeadMajor
                               ? ((i[0] * n + i[1]) * cap + i[2]) * h + i[3]
                               : ((i[0] * cap + i[2]) * n + i[1]) * h + i[3];
      ASSERT_EQ(l->ElementIndex(i.data()), want) << KvCacheOrderName(order);
      ASSERT_EQ(l->Locate(i.data()).byte, want * 2);
    });
    auto parsed = ParseLayout(LayoutToText(*l));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, *l);
    auto m = MatchKvCacheLayout(*parsed);
    ASSERT_TRUE(m.has_value()) << LayoutToText(*l);
    EXPECT_EQ(m->order, order);
    EXPECT_EQ(m->capacity, cap);
    // The full-capacity cache sliced to its first 3 positions is the same kind of cache.
    auto full = KvCacheLayout(b, n, cap, cap, h, order);
    auto sliced = full->Slice(2, 0, 1, 3);
    ASSERT_TRUE(sliced.ok());
    auto ms = MatchKvCacheLayout(*sliced);
    ASSERT_TRUE(ms.has_value());
    EXPECT_EQ(ms->order, order);
    EXPECT_EQ(ms->capacity, cap);
  }
  EXPECT_FALSE(MatchKvCacheLayout(Layout::Contiguous({2, 3, 5})).has_value());
  EXPECT_FALSE(MatchKvCacheLayout(*Layout::Contiguous({2, 3, 5, 7}).Transpose({0, 1, 3, 2}))
                   .has_value());
  const auto bad = KvCacheLayout(1, 2, 9, 8, 4, KvCacheOrder::kHeadMajor);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("capacity 8"), std::string::npos);
}

}  // namespace
}  // namespace vt
