// One decoded picture, as the ImageDecoder operator's format decoders hand it over: 8-bit
// samples, row-major, interleaved, alpha already dropped and palettes already expanded.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vtensor/base/status.h"

namespace vt::ops::image {

struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;             // 1 (luminance) or 3 (R, G, B)
  std::vector<uint8_t> pixels;  // height * width * channels bytes
};

// Largest picture a decoder accepts (pixels): a corrupt header must not make one allocate
// gigabytes. 2^28 pixels is 16384 x 16384.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// Checks the header's dimensions against kMaxImagePixels. Error: InvalidArgument naming them.
Status CheckImageSize(int64_t height, int64_t width);

// Each decoder takes the whole encoded stream; errors (InvalidArgument) describe why the stream
// is not a picture that decoder can read (truncated, corrupt, unsupported variant).
// 16-bit samples keep their most significant byte.
Expected<DecodedImage> DecodePng(std::span<const uint8_t> stream);
Expected<DecodedImage> DecodeJpeg(std::span<const uint8_t> stream);
Expected<DecodedImage> DecodeTiff(std::span<const uint8_t> stream);
Expected<DecodedImage> DecodeWebp(std::span<const uint8_t> stream);
Expected<DecodedImage> DecodeJpeg2000(std::span<const uint8_t> stream);
// BMP, through stb_image.
Expected<DecodedImage> DecodeBmp(std::span<const uint8_t> stream);
// PBM / PGM / PPM (P1 .. P6), through libnetpbm; samples scaled to 0..255.
Expected<DecodedImage> DecodePnm(std::span<const uint8_t> stream);

}  // namespace vt::ops::image
