// Every row of the attention kernel table against the reference twin and the materialised
// definition in double, on odd sizes, GQA groups, every mask and bias broadcast; the twin
// itself against the definition; fully masked rows; no reads past the tensors; the
// materialised-scores path stage by stage.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/attention/attention_table.h"
#include "kernels/attention/attention_test_util.h"

namespace vt::kernels {
namespace {

using attention_test::Exact;
using attention_test::ExactProblem;
using attention_test::MakeTensors;
using attention_test::Problem;
using attention_test::RunProblem;
using attention_test::Tensors;

std::string Describe(const Problem& p) {
  std::ostringstream s;
  s << "B" << p.batch << " Hq" << p.q_heads << " Hkv" << p.kv_heads << " S" << p.rows << " T"
    << p.keys << " D" << p.head_size << "/" << p.v_head_size
    << (p.kv_type == AttentionKv::kF16 ? " f16" : " f32") << " past" << p.past
    << (p.causal ? " causal" : "") << " wl" << p.window_left << " wr" << p.window_right
    << (p.bias ? " bias" : "") << (p.key_mask ? " keymask" : "") << (p.sink ? " sink" : "")
    << " cap" << p.softcap << " qb"
    << p.query_block;
  return s.str();
}

// Odd sizes (head sizes 1..128, 1..257 keys, GQA groups 1, 2, 4) crossed with the mask kinds.
std::vector<Problem> OddSizeProblems() {
  std::vector<Problem> all;
  const size_t heads[] = {1, 8, 31, 64, 80, 128}, keys[] = {1, 7, 17, 33, 257};
  const size_t rows[] = {1, 7, 17, 33}, groups[] = {1, 2, 4};
  size_t n = 0;
  for (size_t d : heads)
    for (size_t t : keys) {
      Problem p;
      p.head_size = d, p.v_head_size = d == 80 ? 64 : d == 31 ? 17 : d;
      p.keys = t, p.rows = rows[n % 4];
      p.kv_heads = 1 + n % 2, p.q_heads = p.kv_heads * groups[n % 3];
      p.kv_type = n % 5 == 0 ? AttentionKv::kF16 : AttentionKv::kF32;
      p.query_block = n % 2 ? 16 : 5;
      p.seed = static_cast<uint32_t>(n + 1);
      const int64_t bottom_right = static_cast<int64_t>(t) - static_cast<int64_t>(p.rows);
      switch (n % 8) {
        case 0: p.key_mask = n % 3 == 0, p.key_mask_value = -INFINITY; break;
        case 1: p.causal = true, p.past = bottom_right; break;
        case 2: p.causal = true, p.past = bottom_right, p.window_left = 4; break;
        case 3:
          p.batch = 2, p.kv_end = {t, t / 2}, p.kv_begin = {0, t / 3};
          p.causal = true, p.past = bottom_right;
          break;
        case 4: p.bias = true, p.softcap = 0.8f, p.amplitude = 3.0f; break;
        case 5:
          p.bias = true, p.bias_batch = false, p.bias_heads = false, p.bias_neg_inf = 0.3;
          p.causal = true, p.past = bottom_right, p.sink = true;
          break;
        case 6:
          p.softcap = 30.0f, p.sink = true, p.window_left = 6, p.window_right = 3;
          p.key_mask = true;
          break;
        case 7: p.bias = true, p.bias_rows = false, p.causal = true, p.past = bottom_right; break;
      }
      all.push_back(p);
      ++n;
    }
  return all;
}

// Larger shapes and edge cases named one by one.
std::vector<Problem> EdgeProblems() {
  std::vector<Problem> all;
  Problem prefill;  // prompt: 257 x 257, causal
  prefill.rows = prefill.keys = 257, prefill.head_size = prefill.v_head_size = 64;
  prefill.causal = true, prefill.query_block = 64;
  all.push_back(prefill);
  Problem decode;  // one token against a long cache, GQA group 4, f16 cache
  decode.rows = 1, decode.keys = 257, decode.head_size = decode.v_head_size = 128;
  decode.q_heads = 8, decode.kv_heads = 2, decode.past = 256, decode.causal = true;
  decode.kv_type = AttentionKv::kF16;
  all.push_back(decode);
  Problem empty;  // no valid key at all (padding length 0), with a sink
  empty.rows = 7, empty.keys = 17, empty.kv_begin = {5}, empty.kv_end = {5}, empty.sink = true;
  all.push_back(empty);
  Problem before;  // causal rows before the first key (negative offsets): all masked
  before.rows = 9, before.keys = 17, before.causal = true, before.past = -4;
  all.push_back(before);
  Problem masked_row;  // one bias row entirely -inf (boolean mask all false)
  masked_row.rows = 3, masked_row.keys = 33, masked_row.bias = true;
  masked_row.bias_batch = masked_row.bias_heads = false, masked_row.bias_row_all_neg_inf = true;
  all.push_back(masked_row);
  Problem padded;  // key padding mask with mask_filter_value and an attention bias together
  padded.rows = 17, padded.keys = 33, padded.q_heads = 4, padded.kv_heads = 2, padded.batch = 2;
  padded.key_mask = true, padded.key_mask_fraction = 0.5, padded.bias = true;
  padded.bias_batch = false;
  all.push_back(padded);
  Problem all_padded;  // every key masked with -10000: uniform weights, not zeros
  all_padded.rows = 5, all_padded.keys = 20, all_padded.key_mask = true;
  all_padded.key_mask_fraction = 1.0;
  all.push_back(all_padded);
  Problem all_neg_inf;  // every key masked with -inf: a fully masked row, zeros
  all_neg_inf.rows = 5, all_neg_inf.keys = 20, all_neg_inf.key_mask = true;
  all_neg_inf.key_mask_fraction = 1.0, all_neg_inf.key_mask_value = -INFINITY;
  all.push_back(all_neg_inf);
  Problem column;  // bias broadcast along keys (key stride 0), non-causal, peaky scores
  column.rows = 17, column.keys = 33, column.bias = true, column.bias_keys = false;
  column.amplitude = 8.0f, column.head_size = 33, column.v_head_size = 47;
  all.push_back(column);
  Problem wide;  // head size past the rows' register tile (q from memory)
  wide.rows = 7, wide.keys = 40, wide.head_size = 200, wide.v_head_size = 150, wide.causal = true;
  wide.past = 33, wide.kv_type = AttentionKv::kF16;
  all.push_back(wide);
  return all;
}

void ExpectWithin(const std::vector<float>& got, const Exact& ex, const Tensors& t,
                  const std::string& what) {
  const Problem& p = t.p;
  size_t bad = 0;
  for (size_t b = 0; b < p.batch; ++b)
    for (size_t i = 0; i < p.rows; ++i)
      for (size_t h = 0; h < p.q_heads; ++h) {
        const size_t o = t.OutIndex(b, i, h);
        for (size_t e = 0; e < t.o_row; ++e) {
          if (e >= p.v_head_size) {  // padding between output rows: untouched
            EXPECT_EQ(got[o + e], 12345.0f) << what;
            continue;
          }
          const double err = std::fabs(got[o + e] - ex.out[o + e]);
          if (!(err <= ex.bound[o + e]) && bad++ < 5)
            ADD_FAILURE() << what << " (b" << b << " i" << i << " h" << h << " e" << e
                          << "): got " << got[o + e] << " want " << ex.out[o + e] << " bound "
                          << ex.bound[o + e];
        }
      }
  EXPECT_EQ(bad, 0u) << what;
}

std::vector<Problem> AllProblems() {
  std::vector<Problem> all = OddSizeProblems();
  for (const Problem& p : EdgeProblems()) all.push_back(p);
  return all;
}

TEST(AttentionTest, TwinMatchesDefinitionInDouble) {
  for (const Problem& p : AllProblems()) {
    const Tensors t = MakeTensors(p);
    ExpectWithin(RunProblem(t, AttentionReference), ExactProblem(t), t, "twin " + Describe(p));
  }
}

// Each row within the bound of the definition, and within twice the bound of the twin. Every
// problem also runs one query row per call (the rows' decode path) and 64 per call (their
// prefill path, which packs keys once the call has kAttentionMaxMr query rows or more).
TEST(AttentionTest, EveryRowMatchesTwinAndDefinition) {
  for (const Problem& p : AllProblems()) {
    Tensors t = MakeTensors(p);
    const Exact ex = ExactProblem(t);
    const std::vector<float> twin = RunProblem(t, AttentionReference);
    for (const AttentionKernel& k : AttentionKernels())
      for (size_t block : {p.query_block, size_t{1}, size_t{64}}) {
        if (!k.supported()) continue;
        t.p.query_block = block;
        const std::string what = std::string(k.name) + " " + Describe(t.p);
        const std::vector<float> got = RunProblem(t, k.ukernel);
        ExpectWithin(got, ex, t, what);
        Exact vs_twin = ex;
        for (size_t i = 0; i < got.size(); ++i) vs_twin.out[i] = twin[i], vs_twin.bound[i] *= 2;
        ExpectWithin(got, vs_twin, t, what + " vs twin");
      }
  }
}

// Rows without a visible key (no valid key, causal before the first key, a -inf bias row)
// are exactly 0 in every row, as ONNX Attention defines fully masked rows.
TEST(AttentionTest, FullyMaskedRowsAreZero) {
  for (const Problem& p : EdgeProblems()) {
    const Tensors t = MakeTensors(p);
    const Exact ex = ExactProblem(t);
    for (const AttentionKernel& k : AttentionKernels()) {
      if (!k.supported()) continue;
      const std::vector<float> got = RunProblem(t, k.ukernel);
      for (size_t i = 0; i < got.size(); ++i) {
        if (ex.bound[i] != 0.0 || i % t.o_row >= p.v_head_size) continue;
        ASSERT_EQ(got[i], 0.0f) << k.name << " " << Describe(p) << " at " << i;
      }
    }
  }
}

// Memory that faults when touched: `n` elements ending exactly at a PROT_NONE page.
template <typename E>
struct GuardedArray {
  explicit GuardedArray(const std::vector<E>& src) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = src.size() * sizeof(E), pages = (bytes + page - 1) / page + 1;
    len = pages * page;
    base = static_cast<char*>(mmap(nullptr, len, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base + (pages - 1) * page, page, PROT_NONE);
    data = reinterpret_cast<E*>(base + (pages - 1) * page - bytes);
    std::memcpy(data, src.data(), bytes);
  }
  ~GuardedArray() { munmap(base, len); }
  char* base;
  size_t len;
  E* data;
};

// Tails of Q, K, V and bias rows are read with masked loads: the last row of each tensor
// ends at an unmapped page, and every row still runs, on its decode path (one query row) and
// its prefill path (9 query rows: keys packed).
TEST(AttentionTest, RowsReadNothingPastTheTensors) {
  for (AttentionKv type : {AttentionKv::kF32, AttentionKv::kF16})
    for (size_t rows : {1, 9})
      for (size_t d : {1, 13, 31, 80}) {
        const size_t keys = 21, dv = d + 2;
        std::vector<float> q(rows * d), kf(keys * d), vf(keys * dv), bias(rows * keys);
        for (size_t i = 0; i < kf.size(); ++i) kf[i] = std::sin(0.1f * i);
        for (size_t i = 0; i < vf.size(); ++i) vf[i] = std::cos(0.3f * i);
        for (size_t i = 0; i < q.size(); ++i) q[i] = 0.5f - 0.01f * i;
        for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * i;
        std::vector<uint16_t> kh(kf.size()), vh(vf.size());
        for (size_t i = 0; i < kf.size(); ++i) kh[i] = FloatToHalf(kf[i]);
        for (size_t i = 0; i < vf.size(); ++i) vh[i] = FloatToHalf(vf[i]);
        GuardedArray<float> gq(q), gkf(kf), gvf(vf), gb(bias);
        GuardedArray<uint16_t> gkh(kh), gvh(vh);
        AttentionCall c;
        c.rows = rows, c.head_size = d, c.v_head_size = dv, c.kv_type = type;
        c.q = gq.data, c.q_row_stride = d;
        c.k = type == AttentionKv::kF16 ? static_cast<const void*>(gkh.data) : gkf.data;
        c.v = type == AttentionKv::kF16 ? static_cast<const void*>(gvh.data) : gvf.data;
        c.k_row_stride = d, c.v_row_stride = dv, c.kv_end = keys, c.scale = 0.3f;
        c.bias.data = gb.data, c.bias.row_stride = keys, c.bias.key_stride = 1;
        c.mask = c.bias;  // the same tensor again, as the second term
        c.out_row_stride = dv;
        std::vector<float> want(rows * dv), scratch(AttentionScratchFloats(rows, d));
        c.out = want.data();
        AttentionReference(c, scratch.data());
        for (const AttentionKernel& k : AttentionKernels()) {
          if (!k.supported()) continue;
          std::vector<float> got(rows * dv);
          c.out = got.data();
          k.ukernel(c, scratch.data());
          for (size_t e = 0; e < got.size(); ++e)
            EXPECT_NEAR(got[e], want[e], 1e-5f) << k.name << " d=" << d << " at " << e;
        }
      }
}

// Two keys with exact scores x and 0 and values 1 and 0 give out = 1 / (1 + exp(-x')), x' =
// x or softcap * tanh(x / softcap): a test of the rows' exp and tanh to a few ulp, which the
// worst-case bounds above (dominated by the dot products) cannot see.
TEST(AttentionTest, ExpAndTanhAreAccurate) {
  const double u = std::ldexp(1.0, -24);
  const size_t rows = 2001;
  std::vector<float> q(rows), k = {1.0f, 0.0f}, v = {1.0f, 0.0f};
  for (size_t i = 0; i < rows; ++i) q[i] = -100.0f + 0.1f * static_cast<float>(i);
  for (float cap : {0.0f, 5.0f, 40.0f}) {
    AttentionCall c;
    c.rows = rows, c.head_size = c.v_head_size = 1, c.q = q.data(), c.q_row_stride = 1;
    c.k = k.data(), c.v = v.data(), c.k_row_stride = c.v_row_stride = 1, c.kv_end = 2;
    c.softcap = cap;
    std::vector<float> scratch(AttentionScratchFloats(rows, 1));
    for (const AttentionKernel& kr : AttentionKernels()) {
      if (!kr.supported()) continue;
      std::vector<float> out(rows);
      c.out = out.data(), c.out_row_stride = 1;
      kr.ukernel(c, scratch.data());
      for (size_t i = 0; i < rows; ++i) {
        const double x = cap > 0 ? cap * std::tanh(double(q[i]) / cap) : q[i];
        const double o = 1.0 / (1.0 + std::exp(-x));
        const double bound = o * (1 - o) * (8 + 8 * cap) * u + 4 * u * o + 1e-37;
        ASSERT_LE(std::fabs(out[i] - o), bound) << kr.name << " cap " << cap << " x " << q[i];
      }
    }
  }
}

TEST(AttentionTest, VisibleKeysFollowTheMasks) {
  AttentionCall c;
  c.kv_begin = 2, c.kv_end = 20, c.q_pos = 10;
  size_t lo, hi;
  AttentionVisibleKeys(c, 0, &lo, &hi);
  EXPECT_EQ(lo, 2u);
  EXPECT_EQ(hi, 20u);
  c.causal = true;  // row 3 at position 13 sees keys up to 13
  AttentionVisibleKeys(c, 3, &lo, &hi);
  EXPECT_EQ(lo, 2u);
  EXPECT_EQ(hi, 14u);
  c.window_left = 4;  // GroupQueryAttention local_window_size 5: keys 9..13
  AttentionVisibleKeys(c, 3, &lo, &hi);
  EXPECT_EQ(lo, 9u);
  EXPECT_EQ(hi, 14u);
  c.causal = false, c.window_right = 2;  // ONNX Attention windows: 9..15
  AttentionVisibleKeys(c, 3, &lo, &hi);
  EXPECT_EQ(lo, 9u);
  EXPECT_EQ(hi, 16u);
  c.q_pos = -30, c.causal = true, c.window_left = c.window_right = -1;
  AttentionVisibleKeys(c, 0, &lo, &hi);
  EXPECT_EQ(lo, hi);
}

TEST(AttentionTest, TableEndsWithThePortableTwin) {
  const auto rows = AttentionKernels();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(&rows.back(), &PortableAttentionKernel());
  EXPECT_EQ(PortableAttentionKernel().ukernel, &AttentionReference);
  for (const auto& k : rows) EXPECT_EQ(FindAttentionKernel(k.name), &k);
  EXPECT_EQ(FindAttentionKernel("nope"), nullptr);
  EXPECT_TRUE(DefaultAttentionKernel().supported());
  EXPECT_EQ(&AttentionKernelForIsa("portable"), &PortableAttentionKernel());
  EXPECT_NE(std::string(AttentionKernelForIsa("avx2").isa), "avx512");
}

}  // namespace
}  // namespace vt::kernels
