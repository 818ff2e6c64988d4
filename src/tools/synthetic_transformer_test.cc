// The generated model computes the documented math: vt::Session's output is checked against a
// plain double-precision forward pass written from the header's description, using the weights
// read back from the written file. Also: external data layout, determinism, config errors.
#include "tools/synthetic_transformer.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"
#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

// One fresh directory per test, removed afterwards.
class TempDir : public testing::ScopedTempDir {
 public:
  TempDir() : ScopedTempDir("synth") {}
};

TransformerConfig Tiny() {
  TransformerConfig c;
  c.hidden = 64;
  c.ffn = 172;
  c.heads = 4;
  c.layers = 2;
  c.seq = 5;
  c.seed = 7;
  return c;
}

// Row-major [rows, cols] matrices in double; the weights as read from the model.
using Mat = std::vector<double>;

struct Weights {
  const Graph* g;
  Mat Get(const std::string& name, int64_t numel) const {
    auto it = g->initializers.find(name);
    EXPECT_NE(it, g->initializers.end()) << name;
    if (it == g->initializers.end()) return Mat(static_cast<size_t>(numel), 0.0);
    const Tensor t = it->second.Contiguous();
    EXPECT_EQ(t.numel(), numel) << name;
    EXPECT_EQ(t.dtype(), DType::kFloat32) << name;
    return Mat(t.data<float>(), t.data<float>() + t.numel());
  }
};

// x[rows, in] @ w[in, out]
Mat MatMul(const Mat& x, const Mat& w, int64_t rows, int64_t in, int64_t out) {
  Mat y(static_cast<size_t>(rows * out), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < in; ++k) {
      const double a = x[r * in + k];
      for (int64_t n = 0; n < out; ++n) y[r * out + n] += a * w[k * out + n];
    }
  return y;
}

Mat Norm(const TransformerConfig& c, const Mat& x, int64_t rows, const Mat& scale, const Mat* bias) {
  const int64_t H = c.hidden;
  Mat y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* v = &x[r * H];
    double mean = 0.0, ms = 0.0;
    if (c.norm == NormKind::kLayer) {
      for (int64_t i = 0; i < H; ++i) mean += v[i];
      mean /= static_cast<double>(H);
    }
    for (int64_t i = 0; i < H; ++i) ms += (v[i] - mean) * (v[i] - mean);
    const double inv = 1.0 / std::sqrt(ms / static_cast<double>(H) + c.epsilon);
    for (int64_t i = 0; i < H; ++i) y[r * H + i] = (v[i] - mean) * inv * scale[i] + (bias ? (*bias)[i] : 0.0);
  }
  return y;
}

// The forward pass of synthetic_transformer.h for input x[B, S, H].
Mat Reference(const TransformerConfig& c, const Graph& g, const Mat& x, int64_t B, int64_t S) {
  const Weights w{&g};
  const int64_t H = c.hidden, F = c.ffn, A = c.heads, D = H / A, rows = B * S;
  const bool ln = c.norm == NormKind::kLayer;
  auto norm = [&](const Mat& v, int64_t l, WeightRole s, WeightRole b) {
    const Mat scale = w.Get(TransformerWeightName(l, s), H);
    const Mat bias = ln ? w.Get(TransformerWeightName(l, b), H) : Mat();
    return Norm(c, v, rows, scale, ln ? &bias : nullptr);
  };
  Mat h = x;
  for (int64_t l = 0; l < c.layers; ++l) {
    auto W = [&](WeightRole r, int64_t n) { return w.Get(TransformerWeightName(l, r), n); };
    const Mat n1 = norm(h, l, WeightRole::kAttnNorm, WeightRole::kAttnNormBias);
    const Mat q = MatMul(n1, W(WeightRole::kWq, H * H), rows, H, H);
    const Mat k = MatMul(n1, W(WeightRole::kWk, H * H), rows, H, H);
    const Mat v = MatMul(n1, W(WeightRole::kWv, H * H), rows, H, H);
    Mat ctx(static_cast<size_t>(rows * H), 0.0);
    std::vector<double> p(static_cast<size_t>(S));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t a = 0; a < A; ++a)
        for (int64_t i = 0; i < S; ++i) {
          double mx = -INFINITY, sum = 0.0;
          for (int64_t j = 0; j < S; ++j) {
            double s = 0.0;
            for (int64_t d = 0; d < D; ++d) s += q[(b * S + i) * H + a * D + d] * k[(b * S + j) * H + a * D + d];
            p[j] = s / std::sqrt(static_cast<double>(D));
            mx = std::max(mx, p[j]);
          }
          for (int64_t j = 0; j < S; ++j) sum += (p[j] = std::exp(p[j] - mx));
          for (int64_t j = 0; j < S; ++j)
            for (int64_t d = 0; d < D; ++d) ctx[(b * S + i) * H + a * D + d] += p[j] / sum * v[(b * S + j) * H + a * D + d];
        }
    const Mat o = MatMul(ctx, W(WeightRole::kWo, H * H), rows, H, H);
    for (size_t i = 0; i < h.size(); ++i) h[i] += o[i];
    const Mat n2 = norm(h, l, WeightRole::kFfnNorm, WeightRole::kFfnNormBias);
    Mat gate = MatMul(n2, W(WeightRole::kWgate, H * F), rows, H, F);
    const Mat up = MatMul(n2, W(WeightRole::kWup, H * F), rows, H, F);
    for (size_t i = 0; i < gate.size(); ++i) gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
    const Mat down = MatMul(gate, W(WeightRole::kWdown, F * H), rows, F, H);
    for (size_t i = 0; i < h.size(); ++i) h[i] += down[i];
  }
  return norm(h, -1, WeightRole::kFinalNorm, WeightRole::kFinalNormBias);
}

// Generates, runs in vt::Session on [B, S, H] and compares with Reference.
void CheckAgainstReference(const TransformerConfig& c, WeightStorage storage, int64_t B, int64_t S) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/model.onnx";
  auto gen = WriteSyntheticTransformer(c, path, storage);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(gen->weight_bytes, TransformerWeightBytes(c));

  auto model = LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  int64_t bytes = 0;
  for (const auto& [name, t] : model->graph->initializers)
    if (t.dtype() == DType::kFloat32 && t.rank() > 0) bytes += static_cast<int64_t>(t.nbytes());
  EXPECT_EQ(bytes, gen->weight_bytes);

  const int64_t n = B * S * c.hidden;
  Tensor x = Tensor::Empty(DType::kFloat32, {B, S, c.hidden});
  Mat xd(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xd[i] = x.mutable_data<float>()[i] = static_cast<float>(std::sin(0.37 * i + 0.1));
  const Mat want = Reference(c, *model->graph, xd, B, S);

  auto session = Session::Load(path);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({Value(x)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  const Tensor y = (*out)[0].tensor().Contiguous();
  ASSERT_EQ(y.shape(), (Shape{B, S, c.hidden}));
  double max_diff = 0.0, max_abs = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double got = y.data<float>()[i];
    ASSERT_TRUE(std::isfinite(got)) << "y[" << i << "]";
    max_diff = std::max(max_diff, std::abs(got - want[i]));
    max_abs = std::max(max_abs, std::abs(want[i]));
    ASSERT_NEAR(got, want[i], 1e-4 + 1e-3 * std::abs(want[i])) << "y[" << i << "]";
  }
  // The output is a normalized activation: O(1), not a degenerate all-zero tensor.
  EXPECT_GT(max_abs, 0.5);
  EXPECT_LT(max_abs, 10.0);
}

TEST(SyntheticTransformerTest, RmsNormInlineMatchesReference) {
  CheckAgainstReference(Tiny(), WeightStorage::kInline, 1, 5);
}

TEST(SyntheticTransformerTest, LayerNormExternalMatchesReference) {
  TransformerConfig c = Tiny();
  c.norm = NormKind::kLayer;
  CheckAgainstReference(c, WeightStorage::kExternal, 1, 5);
}

TEST(SyntheticTransformerTest, DynamicSeqRunsWithAnotherLengthAndBatch) {
  TransformerConfig c = Tiny();
  c.dynamic_seq = true;
  c.batch = 2;
  c.layers = 1;
  CheckAgainstReference(c, WeightStorage::kAuto, 2, 9);
}

TEST(SyntheticTransformerTest, ExternalDataIsAlignedAndComplete) {
  TempDir dir;
  TransformerConfig c = Tiny();
  c.norm = NormKind::kLayer;
  const std::string path = dir.path() + "/m.onnx";
  auto gen = WriteSyntheticTransformer(c, path, WeightStorage::kExternal);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(gen->data_path, path + ".data");
  auto mp = ParseModelFile(path);
  ASSERT_TRUE(mp.ok()) << mp.status().ToString();
  const auto data_size = static_cast<int64_t>(fs::file_size(gen->data_path));
  int external = 0;
  std::set<std::pair<int64_t, int64_t>> ranges;
  for (const auto& t : (*mp)->graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) {
      EXPECT_LE(t.ByteSizeLong(), 64u) << t.name() << ": only small constants are inline";
      continue;
    }
    ++external;
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "m.onnx.data") << t.name();
    const int64_t offset = std::stoll(kv["offset"]), length = std::stoll(kv["length"]);
    int64_t numel = 1;
    for (int64_t d : t.dims()) numel *= d;
    EXPECT_EQ(offset % kExternalAlignment, 0) << t.name() << " offset " << offset;
    EXPECT_EQ(length, numel * 4) << t.name();
    EXPECT_LE(offset + length, data_size) << t.name();
    ranges.insert({offset, offset + length});
  }
  EXPECT_EQ(external, gen->num_weights);
  int64_t end = 0;
  for (const auto& [b, e] : ranges) {
    EXPECT_GE(b, end) << "external ranges overlap";
    end = e;
  }
  EXPECT_EQ(end, data_size) << "the data file ends with the last tensor";
}

TEST(SyntheticTransformerTest, WeightsDependOnlyOnTheSeed) {
  TempDir dir;
  TransformerConfig c = Tiny();
  auto data = [&](const std::string& name, uint64_t seed) {
    c.seed = seed;
    auto gen = WriteSyntheticTransformer(c, dir.path() + "/" + name, WeightStorage::kExternal);
    EXPECT_TRUE(gen.ok()) << gen.status().ToString();
    auto bytes = ReadFileToString(dir.path() + "/" + name + ".data");
    EXPECT_TRUE(bytes.ok());
    return bytes.ok() ? *bytes : std::string();
  };
  const std::string a = data("a.onnx", 11), b = data("b.onnx", 11), d = data("d.onnx", 12);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, d);
}

TEST(SyntheticTransformerTest, LayersForTargetBytesIsNearest) {
  TransformerConfig c;  // llama-7B block shapes
  const int64_t per = TransformerLayerWeightBytes(c);
  EXPECT_EQ(per, 4 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096));
  for (int64_t target : {int64_t{1}, int64_t{1} << 30, int64_t{8} << 30, int64_t{13} << 30}) {
    auto l = LayersForTargetBytes(c, target);
    ASSERT_TRUE(l.ok());
    c.layers = *l;
    const int64_t got = TransformerWeightBytes(c);
    EXPECT_GE(*l, 1);
    if (*l > 1) {
      EXPECT_LE(std::abs(got - target), per / 2 + per % 2) << target;
    } else {
      EXPECT_LE(target - got, per / 2 + per % 2) << target;  // 2 layers would be farther
    }
  }
  EXPECT_FALSE(LayersForTargetBytes(c, 0).ok());
}

TEST(SyntheticTransformerTest, BadConfigsNameTheOptionAndWriteNothing) {
  TempDir dir;
  const std::string path = dir.path() + "/bad.onnx";
  struct Bad {
    TransformerConfig c;
    const char* flag;
  };
  std::vector<Bad> bad;
  TransformerConfig c = Tiny();
  c.heads = 5;
  bad.push_back({c, "--heads"});
  c = Tiny();
  c.ffn = 0;
  bad.push_back({c, "--ffn"});
  c = Tiny();
  c.opset = 16;
  c.norm = NormKind::kLayer;
  bad.push_back({c, "--norm layer"});
  c = Tiny();
  c.opset = 12;
  bad.push_back({c, "--opset"});
  c = Tiny();
  c.hidden = int64_t{1} << 40;
  c.heads = 1;
  bad.push_back({c, "overflows"});
  c = Tiny();
  c.hidden = c.ffn = 16384;  // 7.5 GiB per layer: refused before anything is generated
  bad.push_back({c, "--inline"});
  for (const Bad& b : bad) {
    auto r = WriteSyntheticTransformer(b.c, path, WeightStorage::kInline);
    ASSERT_FALSE(r.ok()) << b.flag;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(b.flag), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  // An unwritable destination is an IoError naming the file, and leaves no temp file behind.
  auto r = WriteSyntheticTransformer(Tiny(), dir.path() + "/missing/dir/m.onnx", WeightStorage::kExternal);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
  EXPECT_NE(r.status().message().find("missing/dir/m.onnx"), std::string::npos) << r.status().message();
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace vt
