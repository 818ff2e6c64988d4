// ImageDecoder: every format of the opset 18-23 suite decodes to the suite's reference, the
// pixel formats relate as RGB / BGR / luma, bad models are refused, and truncated or bit-flipped
// streams of every format give either a picture or the empty [0, 0, C] output, never a crash.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ops/common/op_test_util.h"
#include "ops/image/pixel_format.h"
#include "vtensor/format/tensor_proto.h"

namespace vt::ops {
namespace {

using testing::AttrString;
using testing::OpCall;

const std::string kCases = std::string(VTENSOR_SOURCE_DIR) + "/tests/onnx_opset18_23/cases/";

std::string CaseDir(const std::string& c) { return kCases + "test_image_decoder_20_" + c; }

// One suite case's input stream or reference output.
Tensor LoadCaseTensor(const std::string& c, const std::string& file) {
  const std::string path = CaseDir(c) + "/test_data_set_0/" + file;
  Expected<std::string> bytes = ReadFileToString(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  onnx::TensorProto tp;
  EXPECT_TRUE(tp.ParseFromString(bytes.ok() ? *bytes : std::string())) << path;
  Expected<Tensor> t = TensorFromProto(tp, TensorContext{path, nullptr, nullptr});
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor();
}

OpCall Call(std::vector<Attribute> attrs, Tensor stream) {
  OpCall c;
  c.op = "ImageDecoder";
  c.opset = 20;
  c.attrs = std::move(attrs);
  c.inputs = {Value(std::move(stream))};
  return c;
}

Expected<Tensor> Decode(const Tensor& stream, const std::string& format) {
  OpCall c = Call({AttrString("pixel_format", format)}, stream);
  VT_ASSIGN_OR_RETURN(std::vector<Value> out, c.Run());
  return out[0].tensor();
}

std::vector<uint8_t> Bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return {p, p + t.numel()};
}

Tensor Stream(const std::vector<uint8_t>& b) {
  Tensor t = Tensor::Empty(DType::kUInt8, {static_cast<int64_t>(b.size())});
  if (!b.empty()) std::memcpy(t.raw_mutable_data(), b.data(), b.size());
  return t;
}

// One lossless and one lossy stream of each format the decoder reads.
const std::vector<std::string> kStreams = {
    "png_rgb", "png_grayscale", "png_16bit_rgb", "png_palette_rgb", "png_rgba_rgb",
    "png_gray_alpha_rgb", "bmp_rgb", "ppm_rgb", "pgm_grayscale", "jpeg_rgb", "jpeg_gray_rgb",
    "jpeg_444_rgb", "jpeg_cmyk_rgb", "jp2_rgb", "j2k_gray_rgb", "tiff_rgb", "tiff_lzw_gray_rgb",
    "webp_lossless_rgb", "webp_lossy_rgb", "pbm_rgb", "pbm_plain_rgb", "pgm_plain_maxval_100_rgb",
    "pgm_maxval_10_rgb", "ppm_plain_rgb", "ppm_16bit_maxval_1000_rgb", "tiff_deflate_palette_rgb",
    "tiff_rgba_rgb", "tiff_1bit_rgb", "bmp_palette_rgb", "bmp_gray_rgb", "bmp_1bit_rgb", "bmp_rgba_rgb"};

TEST(ImageDecoderTest, EveryFormatMatchesTheSuiteReference) {
  for (const std::string& c : kStreams) {
    // The case name's suffix is its pixel format; the other two derive from the same stream.
    Tensor stream = LoadCaseTensor(c, "input_0.pb");
    const std::string base = c.substr(0, c.rfind('_'));
    for (const char* f : {"rgb", "bgr", "grayscale"}) {
      const std::string name = base + "_" + f;
      if (!std::filesystem::exists(CaseDir(name))) continue;
      if (Bytes(LoadCaseTensor(name, "input_0.pb")) != Bytes(stream)) continue;
      const std::string format = f == std::string("rgb") ? "RGB" : f == std::string("bgr") ? "BGR" : "Grayscale";
      Expected<Tensor> y = Decode(stream, format);
      ASSERT_TRUE(y.ok()) << name << ": " << y.status().ToString();
      Tensor want = LoadCaseTensor(name, "output_0.pb");
      EXPECT_EQ(y->shape(), want.shape()) << name;
      EXPECT_EQ(Bytes(*y), Bytes(want)) << name;
    }
  }
}

TEST(ImageDecoderTest, GrayscaleIsPillowLumaOfRgbAndBgrIsReversed) {
  Tensor stream = LoadCaseTensor("jpeg_rgb", "input_0.pb");
  Expected<Tensor> rgb = Decode(stream, "RGB"), bgr = Decode(stream, "BGR"),
                   gray = Decode(stream, "Grayscale");
  ASSERT_TRUE(rgb.ok() && bgr.ok() && gray.ok());
  const std::vector<uint8_t> c = Bytes(*rgb), r = Bytes(*bgr), g = Bytes(*gray);
  ASSERT_EQ(c.size(), 3 * g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    EXPECT_EQ(r[3 * i], c[3 * i + 2]);
    EXPECT_EQ(r[3 * i + 2], c[3 * i]);
    EXPECT_EQ(g[i], image::Luma601(c[3 * i], c[3 * i + 1], c[3 * i + 2])) << i;
  }
  // Pillow's integer luma at the corners of the cube: (19595 R + 38470 G + 7471 B + 2^15) >> 16.
  EXPECT_EQ(image::Luma601(255, 255, 255), 255);
  EXPECT_EQ(image::Luma601(255, 0, 0), 76);
  EXPECT_EQ(image::Luma601(0, 255, 0), 150);
  EXPECT_EQ(image::Luma601(0, 0, 255), 29);
  EXPECT_EQ(image::Luma601(128, 128, 129), 128);
}

TEST(ImageDecoderTest, UnknownOrEmptyStreamGivesEmptyOutput) {
  for (const auto& [b, format, c] : std::vector<std::tuple<std::vector<uint8_t>, std::string, int64_t>>{
           {{}, "RGB", 3}, {{'G', 'I', 'F', '8', '9', 'a'}, "Grayscale", 1}, {{0x89, 'P'}, "BGR", 3}}) {
    Expected<Tensor> y = Decode(Stream(b), format);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->shape(), Shape({0, 0, c}));
  }
}

TEST(ImageDecoderTest, BadModelsAreRefused) {
  OpCall bad_format = Call({AttrString("pixel_format", "rgb")}, Stream({1, 2}));
  Expected<std::vector<Value>> r = bad_format.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("pixel_format"), std::string::npos) << r.status().ToString();
  OpCall rank2 = Call({}, Tensor::Zeros(DType::kUInt8, {2, 3}));
  r = rank2.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("encoded_stream"), std::string::npos) << r.status().ToString();
  OpCall floats = Call({}, Tensor::Zeros(DType::kFloat32, {4}));
  r = floats.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("uint8"), std::string::npos) << r.status().ToString();
}

// Decodes `b`; the output must be the empty picture or one of H x W x 3 with H, W > 0.
void ExpectPictureOrEmpty(const std::vector<uint8_t>& b, const std::string& what) {
  Expected<Tensor> y = Decode(Stream(b), "RGB");
  ASSERT_TRUE(y.ok()) << what << ": " << y.status().ToString();
  ASSERT_EQ(y->shape().size(), 3u) << what;
  EXPECT_EQ(y->shape()[2], 3) << what;
  EXPECT_EQ(y->shape()[0] == 0, y->shape()[1] == 0) << what;
}

TEST(ImageDecoderTest, TruncatedAndBitFlippedStreamsNeverCrash) {
  std::mt19937 gen(20);
  for (const std::string& c : kStreams) {
    const std::vector<uint8_t> good = Bytes(LoadCaseTensor(c, "input_0.pb"));
    for (size_t n = 0; n < good.size(); n += 1 + good.size() / 24) {
      ExpectPictureOrEmpty({good.begin(), good.begin() + n}, c + " cut at " + std::to_string(n));
      // A stream that ends early is refused by every decoder.
      Expected<Tensor> y = Decode(Stream({good.begin(), good.begin() + n}), "RGB");
      if (n < good.size() / 2 && y.ok()) {
        EXPECT_EQ(y->shape()[0], 0) << c << " cut at " << n;
      }
    }
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<uint8_t> b = good;
      for (int k = 0; k < 1 + trial % 4; ++k) b[gen() % b.size()] ^= uint8_t(1u << (gen() % 8));
      ExpectPictureOrEmpty(b, c + " flip trial " + std::to_string(trial));
    }
  }
}

}  // namespace
}  // namespace vt::ops
