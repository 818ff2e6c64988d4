// DecoderIo on generated genai-form decoders: the interface it reads, the feeds it builds, and
// the generation loop `vtensor generate` runs: a prefill then decode steps, each feeding the
// previous presents back as pasts, must give the logits of running the whole sequence at once
// (the KV cache grows in place between steps without changing results). Models of another
// form and bad prompts are refused with the name of what is wrong.
#include "tools/decoder_io.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/scoped_temp_dir_test_util.h"
#include "tools/genai_model.h"
#include "tools/synthetic_transformer.h"

namespace vt::cli {
namespace {

class TempDir : public testing::ScopedTempDir {
 public:
  TempDir() : ScopedTempDir("decoder_io") {}
};

GenaiModelConfig Tiny() {
  GenaiModelConfig c;
  c.hidden = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.ffn = 100;
  c.layers = 2;
  c.vocab = 97;
  c.max_length = 200;
  c.accuracy_level = 0;  // f32 activations: the two ways of running agree to f32 rounding
  c.seed = 9;
  return c;
}

std::unique_ptr<Session> Load(const std::string& path) {
  auto s = Session::Load(path);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(DecoderIoTest, ReadsTheInterface) {
  TempDir dir;
  const std::string path = dir.path() + "/m.onnx";
  ASSERT_TRUE(WriteGenaiModel(Tiny(), path, GenaiStorage::kInline).ok());
  auto s = Load(path);
  ASSERT_NE(s, nullptr);
  auto io = DecoderIo::Create(*s);
  ASSERT_TRUE(io.ok()) << io.status().ToString();
  EXPECT_EQ(io->vocab(), 97);
  EXPECT_EQ(io->layers(), 4);  // one per past input: 2 layers x key / value
  EXPECT_EQ(io->kv_heads(), 2);
  EXPECT_EQ(io->head_size(), 16);

  auto feeds = io->PrefillFeeds({1, 2, 96});
  ASSERT_TRUE(feeds.ok());
  ASSERT_EQ(feeds->size(), 6u);
  EXPECT_EQ((*feeds)[0].tensor().shape(), (Shape{1, 3}));
  EXPECT_EQ((*feeds)[1].tensor().shape(), (Shape{1, 3}));
  EXPECT_EQ((*feeds)[2].tensor().shape(), (Shape{1, 2, 0, 16}));
  EXPECT_EQ(io->PrefillFeeds({}).status().code(), StatusCode::kInvalidArgument);
  auto bad = io->PrefillFeeds({5, 97});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("97"), std::string::npos);
}

TEST(DecoderIoTest, DecodeStepsGiveTheLogitsOfTheWholeSequence) {
  TempDir dir;
  const std::string path = dir.path() + "/m.onnx";
  ASSERT_TRUE(WriteGenaiModel(Tiny(), path, GenaiStorage::kInline).ok());
  auto s = Load(path);
  ASSERT_NE(s, nullptr);
  auto io = DecoderIo::Create(*s);
  ASSERT_TRUE(io.ok());
  // 70 decode steps after a 9-token prompt: past the first spare capacity of the KV cache.
  const std::vector<int64_t> prompt = PromptIds(4, 9, io->vocab());
  std::vector<int64_t> seq = prompt;
  auto out = s->Run(*io->PrefillFeeds(prompt));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<std::vector<float>> step_logits;
  for (int k = 0; k < 70; ++k) {
    auto next = io->Argmax(*out);
    ASSERT_TRUE(next.ok());
    seq.push_back(*next);
    std::vector<Value> f = io->DecodeFeeds(*next, static_cast<int64_t>(seq.size()), *out);
    out->clear();
    out = s->Run(f);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor l = (*out)[0].tensor().Contiguous();
    step_logits.emplace_back(l.data<float>(), l.data<float>() + l.numel());
  }
  // The whole sequence (every token fed above) in one prefill.
  auto whole = s->Run(*io->PrefillFeeds(seq));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const Tensor wl = (*whole)[0].tensor().Contiguous();
  ASSERT_EQ(wl.dim(1), static_cast<int64_t>(seq.size()));
  for (size_t k = 0; k < step_logits.size(); ++k) {
    const float* row = wl.data<float>() + (prompt.size() + k) * 97;
    float m = 0;
    for (int v = 0; v < 97; ++v) m = std::max(m, std::fabs(row[v] - step_logits[k][v]));
    EXPECT_LT(m, 1e-4f) << "decode step " << k + 1;
  }
}

TEST(DecoderIoTest, RefusesOtherForms) {
  TempDir dir;
  TransformerConfig c;
  c.hidden = 32;
  c.ffn = 64;
  c.heads = 2;
  c.layers = 1;
  c.seq = 2;
  const std::string path = dir.path() + "/plain.onnx";
  ASSERT_TRUE(WriteSyntheticTransformer(c, path, WeightStorage::kInline).ok());
  auto s = Load(path);
  ASSERT_NE(s, nullptr);
  auto io = DecoderIo::Create(*s);
  ASSERT_FALSE(io.ok());
  EXPECT_EQ(io.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(io.status().message().find("input 'x'"), std::string::npos) << io.status().message();
}

TEST(DecoderIoTest, PromptIdsAreDeterministicAndInRange) {
  const auto a = PromptIds(7, 200, 33), b = PromptIds(7, 200, 33), c = PromptIds(8, 200, 33);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (int64_t id : a) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 33);
  }
  EXPECT_TRUE(PromptIds(7, 0, 33).empty());
}

}  // namespace
}  // namespace vt::cli
