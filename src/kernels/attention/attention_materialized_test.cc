// The materialised-scores path (ONNX Attention qk_matmul_output_mode, GroupQueryAttention
// qk_output): each stage of the score matrix against the definition in double, and its output
// rows against the same bound as the flash rows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/attention/attention_test_util.h"

namespace vt::kernels {
namespace {

using attention_test::ExactProblem;
using attention_test::MakeTensors;
using attention_test::Problem;
using attention_test::RunProblem;
using attention_test::Tensors;
using attention_test::Visible;

// Scores [batch, q_heads, rows, keys] of `stage`, with the output rows.
std::vector<float> RunStage(const Tensors& t, AttentionScoresStage stage,
                            std::vector<float>* out) {
  const Problem& p = t.p;
  std::vector<float> scores(p.batch * p.q_heads * p.rows * p.keys, 777.0f);
  *out = RunProblem(t, [&](const AttentionCall& c, float* scratch, size_t b, size_t h0,
                           size_t i0) {
    AttentionScoresOut qk;
    qk.stage = stage;
    qk.head_stride = static_cast<ptrdiff_t>(p.rows * p.keys);
    qk.row_stride = static_cast<ptrdiff_t>(p.keys);
    qk.scores = scores.data() + ((b * p.q_heads + h0) * p.rows + i0) * p.keys;
    AttentionMaterialized(c, qk, scratch);
  });
  return scores;
}

// The stage's value in double and a bound for its f32 evaluation.
void Expected(const Tensors& t, AttentionScoresStage stage, size_t b, size_t h, size_t i,
              std::vector<double>* want, std::vector<double>* bound) {
  const Problem& p = t.p;
  const double u = std::ldexp(1.0, -24);
  const size_t kvh = h / (p.q_heads / p.kv_heads);
  const float* q = t.QAt(b, i, h);
  want->assign(p.keys, 0.0), bound->assign(p.keys, 0.0);
  double m = -INFINITY, worst = 0.0;
  for (size_t j = 0; j < p.keys; ++j) {
    double dot = 0.0, mag = 0.0;
    for (size_t d = 0; d < p.head_size; ++d) {
      const double x = double(q[d]) * t.kf[t.KvIndex(b, kvh, j, t.k_row) + d];
      dot += x, mag += std::fabs(x);
    }
    double s = dot * t.scale, err = (p.head_size + 2) * u * t.scale * mag;
    if (stage != AttentionScoresStage::kScaled && p.softcap > 0.0f)
      s = p.softcap * std::tanh(s / p.softcap), err += 4 * u * p.softcap;
    if (stage >= AttentionScoresStage::kMasked) {
      s = Visible(t, b, i, j) ? s + (p.bias ? t.BiasAt(b, h, i, j) : 0.0) +
                                    (p.key_mask ? t.key_mask[b * p.keys + j] : 0.0)
                              : -INFINITY;
      err += 2 * u * std::fabs(s);
    }
    (*want)[j] = s, (*bound)[j] = err;
    m = std::max(m, s);
    if (std::isfinite(s)) worst = std::max(worst, err);
  }
  if (stage != AttentionScoresStage::kProbabilities) return;
  double den = p.sink ? std::exp(t.sink[h] - m) : 0.0;
  for (size_t j = 0; j < p.keys; ++j) den += std::exp((*want)[j] - m);
  for (size_t j = 0; j < p.keys; ++j) {
    const double pj = m == -INFINITY ? 0.0 : std::exp((*want)[j] - m) / den;
    (*want)[j] = pj;
    (*bound)[j] = pj * (4 * worst + (p.keys + 16) * u) + 1e-30;
  }
}

TEST(AttentionMaterializedTest, EveryStageMatchesDefinition) {
  std::vector<Problem> problems(4);
  problems[0].rows = 7, problems[0].keys = 33, problems[0].head_size = 31;
  problems[0].v_head_size = 9, problems[0].causal = true, problems[0].past = 26;
  problems[1].rows = 5, problems[1].keys = 17, problems[1].q_heads = 4, problems[1].kv_heads = 2;
  problems[1].bias = true, problems[1].bias_heads = false, problems[1].bias_neg_inf = 0.2;
  problems[1].softcap = 0.7f, problems[1].sink = true, problems[1].amplitude = 3.0f;
  problems[2].rows = 3, problems[2].keys = 9, problems[2].batch = 2, problems[2].kv_end = {9, 4};
  problems[2].kv_type = AttentionKv::kF16, problems[2].window_left = 2, problems[2].causal = true;
  problems[2].past = 5, problems[2].key_mask = true;
  problems[3].rows = 2, problems[3].keys = 6, problems[3].kv_begin = {3}, problems[3].kv_end = {3};
  for (const Problem& p : problems)
    for (auto stage : {AttentionScoresStage::kScaled, AttentionScoresStage::kSoftcapped,
                       AttentionScoresStage::kMasked, AttentionScoresStage::kProbabilities}) {
      const Tensors t = MakeTensors(p);
      std::vector<float> out;
      const std::vector<float> scores = RunStage(t, stage, &out);
      const std::string what = "stage " + std::to_string(static_cast<int>(stage)) + " S" +
                               std::to_string(p.rows) + " T" + std::to_string(p.keys);
      std::vector<double> want, bound;
      for (size_t b = 0; b < p.batch; ++b)
        for (size_t h = 0; h < p.q_heads; ++h)
          for (size_t i = 0; i < p.rows; ++i) {
            Expected(t, stage, b, h, i, &want, &bound);
            const float* got = scores.data() + ((b * p.q_heads + h) * p.rows + i) * p.keys;
            for (size_t j = 0; j < p.keys; ++j) {
              const bool exists = j >= t.begin[b] && j < t.end[b];
              if (!exists) {
                EXPECT_EQ(got[j], 777.0f) << what << " column " << j << " written";
              } else if (std::isinf(want[j])) {
                EXPECT_EQ(got[j], want[j]) << what << " (" << b << "," << h << "," << i << "," << j << ")";
              } else {
                EXPECT_LE(std::fabs(got[j] - want[j]), bound[j])
                    << what << " (" << b << "," << h << "," << i << "," << j << ") got " << got[j]
                    << " want " << want[j];
              }
            }
          }
      const auto ex = ExactProblem(t);
      for (size_t k = 0; k < out.size(); ++k) {
        if (k % t.o_row >= p.v_head_size) continue;
        EXPECT_LE(std::fabs(out[k] - ex.out[k]), ex.bound[k]) << what << " out " << k;
      }
    }
}

}  // namespace
}  // namespace vt::kernels
