// Every generated decoder (format/struct_decoder.h, format/planar_block_quant.h) run with
// vtensor's runtime must equal the scalar unpackers bit for bit.
#include "vtensor/runtime/decoder_runner.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "vtensor/format/compiled_model.h"
#include "vtensor/format/planar_block_quant.h"
#include "vtensor/format/struct_decoder.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_presets.h"
#include "vtensor/layout/layout_text.h"
#include "vtensor/passes/target.h"

namespace vt {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.7f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(rng);
  return v;
}

// Bitwise float equality; any NaN equals any NaN.
void ExpectSameFloats(const Tensor& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size())) << what;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const float g = static_cast<float>(got.GetDouble(i)), w = want[static_cast<size_t>(i)];
    if (std::isnan(g) && std::isnan(w)) continue;
    ASSERT_EQ(std::bit_cast<uint32_t>(g), std::bit_cast<uint32_t>(w)) << what << " element " << i << ": decoder " << g
                                         << ", unpacker " << w;
  }
}

// Packs random values into `l`, runs the type's decoder, compares with UnpackFloats.
void ExpectDecoderMatchesUnpacker(const Layout& l, const std::string& what) {
  SCOPED_TRACE(what);
  auto values = Random(l.numel(), 3);
  auto payload = PackFloats(values.data(), l);
  ASSERT_TRUE(payload.ok()) << payload.status().ToString();
  auto type = StructTypeForLayout(l, "t", 1);
  ASSERT_TRUE(type.has_decoder()) << what << " has no decoder: "
                                  << BuildLayoutDecoder(l, "t").status().ToString() << " "
                                  << LayoutToText(l);
  auto inputs = DecoderInputs(type, payload->data(), payload->size());
  ASSERT_TRUE(inputs.ok()) << inputs.status().ToString();
  auto got = RunDecoderFunction(type.decoder(), *inputs, what);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->shape(), l.shape());
  auto want = UnpackFloats(payload->data(), payload->size(), l);
  ASSERT_TRUE(want.ok());
  ExpectSameFloats(*got, *want, what);
}

TEST(DecoderRunnerTest, GemmColumnPanels) {
  for (auto [k, n, p] : {std::tuple{64, 40, 16}, {17, 33, 16}, {1, 1, 32}, {7, 257, 32}})
    ExpectDecoderMatchesUnpacker(*GemmColumnPanels(k, n, p),
                                 "panels K=" + std::to_string(k) + " N=" + std::to_string(n));
  ExpectDecoderMatchesUnpacker(*GemmColumnPanels(9, 21, 16, Encoding::kF16), "f16 panels");
  ExpectDecoderMatchesUnpacker(*GemmColumnPanels(9, 21, 8, Encoding::kBF16), "bf16 panels");
  ExpectDecoderMatchesUnpacker(*GemmColumnPanels(33, 17, 16)->Transpose({1, 0}), "Gemm transB");
}

TEST(DecoderRunnerTest, ConvFilterPanelsOfEveryTarget) {
  const WeightUseInfo conv{WeightUse::kConvFilter, 1, false};
  int tested = 0;
  for (const auto& target : Targets())
    for (const Shape& w : {Shape{7, 3, 3, 3}, Shape{33, 16, 3, 3}, Shape{5, 17, 3}}) {
      auto l = PreferredWeightLayout(target, w, conv);
      ASSERT_TRUE(l.ok()) << l.status().ToString();
      if (!l->has_value()) continue;
      ExpectDecoderMatchesUnpacker(**l, std::string(target.name) + " conv " + ShapeToString(w));
      ++tested;
    }
  EXPECT_GE(tested, 6);
}

TEST(DecoderRunnerTest, StridedAndScalarEncodings) {
  ExpectDecoderMatchesUnpacker(*Layout::Contiguous({3, 4}, Encoding::kF16).Transpose({1, 0}), "f16^T");
  ExpectDecoderMatchesUnpacker(Layout::Contiguous({5, 3}, Encoding::kF32), "row-major");
}

TEST(DecoderRunnerTest, SubByteAndBlockFormatsInEveryOrder) {
  for (Encoding e : {Encoding::kQ8_0, Encoding::kQ4_0, Encoding::kQ4Zp32, Encoding::kI4, Encoding::kU4})
    for (auto order : {BlockOrder::kRowMajor, BlockOrder::kInputBlockMajor})
      for (auto [n, k, rows] : {std::tuple{40, 64, 0}, {7, 33, 0}, {40, 64, 8}, {2, 100, 0}}) {
        auto l = BlockQuantizedWeight(n, k, e, order, rows);
        ASSERT_TRUE(l.ok()) << l.status().ToString();
        const std::string what = std::string(GetEncodingTraits(e).name) + " N=" + std::to_string(n) +
                                 " K=" + std::to_string(k) + " rows=" + std::to_string(rows) +
                                 (order == BlockOrder::kRowMajor ? " row-major" : " feed");
        ExpectDecoderMatchesUnpacker(*l, what);
        ExpectDecoderMatchesUnpacker(*l->Transpose({1, 0}), what + " as [K,N]");
      }
}

// A q8_0 block with q[0] = 1 decodes to its scale: every one of the 65536 f16 bit patterns
// (subnormals, infinities, NaN) must come out as HalfToFloat does.
TEST(DecoderRunnerTest, HalfScalesAreBitExactForAllPatterns) {
  auto l = BlockQuantizedWeight(65536, 32, Encoding::kQ8_0, BlockOrder::kRowMajor);
  std::vector<uint8_t> payload(static_cast<size_t>(l->StorageBytes()), 0);
  for (int h = 0; h < 65536; ++h) {
    payload[static_cast<size_t>(h) * 34] = static_cast<uint8_t>(h & 255);
    payload[static_cast<size_t>(h) * 34 + 1] = static_cast<uint8_t>(h >> 8);
    payload[static_cast<size_t>(h) * 34 + 2] = 1;
  }
  auto type = StructTypeForLayout(*l, "q8", 1);
  auto got = RunDecoderFunction(type.decoder(), *DecoderInputs(type, payload.data(), payload.size()), "q8");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto want = UnpackFloats(payload.data(), payload.size(), *l);
  ExpectSameFloats(*got, *want, "all f16 scales");
}

// Likewise for the f32 scale of q4zp32 (q = 1, zp = 0): special and random bit patterns.
TEST(DecoderRunnerTest, FloatScalesAreBitExact) {
  std::vector<uint32_t> bits = {0, 0x80000000u, 1, 0x807fffffu, 0x00800000u, 0x7f7fffffu,
                                0xff800000u, 0x7f800000u, 0x7fc00001u, 0x3f800000u};
  std::mt19937 rng(11);
  while (bits.size() < 4096) bits.push_back(rng());
  auto l = BlockQuantizedWeight(static_cast<int64_t>(bits.size()), 32, Encoding::kQ4Zp32, BlockOrder::kRowMajor);
  std::vector<uint8_t> payload(static_cast<size_t>(l->StorageBytes()), 0);
  for (size_t b = 0; b < bits.size(); ++b) {
    std::memcpy(&payload[b * 24], &bits[b], 4);
    payload[b * 24 + 8] = 1;
  }
  auto type = StructTypeForLayout(*l, "q4zp", 1);
  auto got = RunDecoderFunction(type.decoder(), *DecoderInputs(type, payload.data(), payload.size()), "q4zp");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSameFloats(*got, *UnpackFloats(payload.data(), payload.size(), *l), "f32 scales");
}

TEST(DecoderRunnerTest, PlanarBlockQuantMatchesReferenceAndSource) {
  for (bool zp : {false, true})
    for (Encoding se : {Encoding::kF32, Encoding::kF16})
      for (bool kn : {true, false})
        for (auto [n, k, bs] : {std::tuple{40, 64, 32}, {7, 33, 16}, {3, 5, 32}, {1, 1, 1}}) {
          PlanarBlockQuantSpec s{n, k, bs, zp, se, kn};
          const std::string what = "planar n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                   " B=" + std::to_string(bs) + (zp ? " zp" : "") +
                                   (se == Encoding::kF16 ? " f16" : "") + (kn ? " [K,N]" : " [N,K]");
          SCOPED_TRACE(what);
          auto type = PlanarBlockQuantType(s, "w4", 1);
          ASSERT_TRUE(type.ok()) << type.status().ToString();
          auto src = Random(n * k, 5);
          auto payload = PackPlanarBlockQuant(src.data(), s);
          ASSERT_TRUE(payload.ok()) << payload.status().ToString();
          ASSERT_EQ(static_cast<int64_t>(payload->size()), type->byte_size());
          auto got = RunDecoderFunction(type->decoder(),
                                        *DecoderInputs(*type, payload->data(), payload->size()), what);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          EXPECT_EQ(got->shape(), kn ? Shape({k, n}) : Shape({n, k}));
          auto ref = UnpackPlanarBlockQuant(payload->data(), payload->size(), s);
          ASSERT_TRUE(ref.ok());
          ExpectSameFloats(*got, *ref, what);
          // Half a quantization step per element (the documented bound), with slack for the
          // f16 rounding of the scale.
          float amax = 0, err = 0;
          for (size_t i = 0; i < src.size(); ++i) {
            amax = std::max(amax, std::fabs(src[i]));
            err = std::max(err, std::fabs(src[i] - (*ref)[i]));
          }
          EXPECT_LE(err, amax * (zp ? 1.0f / 15 : 1.0f / 14) * 1.01f);
        }
}

TEST(DecoderRunnerTest, PlanarSpecErrors) {
  EXPECT_FALSE(PlanarBlockQuantType({0, 4, 32}, "x").ok());
  EXPECT_FALSE(PlanarBlockQuantType({4, 4, 0}, "x").ok());
  EXPECT_FALSE(PlanarBlockQuantType({4, 4, 32, false, Encoding::kQ8_0}, "x").ok());
  std::vector<float> nan(4, std::nanf(""));
  auto p = PackPlanarBlockQuant(nan.data(), {2, 2, 2});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("non-finite value at logical index [0, 0]"), std::string::npos);
}

TEST(DecoderRunnerTest, Errors) {
  EXPECT_EQ(RunDecoderFunction("\xff\xff", {}, "x").status().code(), StatusCode::kInvalidArgument);
  auto type = StructTypeForLayout(*GemmColumnPanels(4, 4, 16), "t", 1);
  auto r = RunDecoderFunction(type.decoder(), {}, "type 't' decoder");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("type 't' decoder"), std::string::npos);
}

}  // namespace
}  // namespace vt
