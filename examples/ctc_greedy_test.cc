#include "ctc_greedy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "vtensor/graph/onnx_import.h"

namespace vt::ocr {
namespace {

// One-hot rows (probability 0.9 on `cls`, the rest spread evenly) for each step.
std::vector<float> Rows(const std::vector<int>& classes_per_step, int classes) {
  std::vector<float> p;
  for (int c : classes_per_step)
    for (int k = 0; k < classes; ++k) p.push_back(k == c ? 0.9f : 0.1f / (classes - 1));
  return p;
}

const std::vector<std::string> kKeys = {"H", "e", "l", "o"};  // classes 1..4, space = 5

TEST(CtcGreedy, CollapsesRepeatsDropsBlanksAndMapsSpace) {
  // H e l l <blank> l o <space> H  ->  "Hello H"
  auto p = Rows({1, 2, 3, 3, 0, 3, 4, 4, 5, 0, 1}, 6);
  auto r = CtcGreedyDecode(p.data(), 11, 6, kKeys);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "Hello H");
  EXPECT_NEAR(r->confidence, 0.9f, 1e-6);
}

TEST(CtcGreedy, AllBlankIsEmpty) {
  auto p = Rows({0, 0, 0}, 6);
  auto r = CtcGreedyDecode(p.data(), 3, 6, kKeys);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "");
  EXPECT_EQ(r->confidence, 0.0f);
}

TEST(CtcGreedy, RejectsKeyFileOfAnotherModel) {
  auto p = Rows({1}, 7);
  auto r = CtcGreedyDecode(p.data(), 1, 7, kKeys);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("key file has 4 keys"), std::string::npos);
}

TEST(CtcGreedy, LoadsKeysWithoutFinalNewlineAndCrLf) {
  std::string path = ::testing::TempDir() + "/ctc_keys.txt";
  std::ofstream(path, std::ios::binary) << "a\r\nb\n\xe4\xb8\xad";
  auto k = LoadCtcKeys(path);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(*k, (std::vector<std::string>{"a", "b", "\xe4\xb8\xad"}));
  std::remove(path.c_str());
}

TEST(CtcGreedy, MissingKeyFileIsAnError) {
  auto k = LoadCtcKeys("/nonexistent/keys.txt");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), StatusCode::kNotFound);
}

// The ONNX Runtime reference output of the demo model decodes to the demo's text, so a wrong
// text from vtensor-ocr points at the runtime, not at the decoder.
TEST(CtcGreedy, DecodesReferenceOutputOfPpOcrV4Rec) {
  auto keys = LoadCtcKeys(VT_OCR_KEYS);
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  auto v = LoadValueFile(VT_OCR_REC_OUTPUT, TypeInfo{});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  const Tensor& t = v->tensor();
  ASSERT_EQ(t.rank(), 3);
  Tensor probs = t.Contiguous();
  auto r = CtcGreedyDecode(probs.data<float>(), probs.dim(1), probs.dim(2), *keys);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "Hello World 2024");
  EXPECT_GT(r->confidence, 0.9f);
}

}  // namespace
}  // namespace vt::ocr
