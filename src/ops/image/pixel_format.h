// ImageDecoder's pixel_format attribute and the conversion of a decoded picture to it.
#pragma once

#include <cstdint>
#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {

enum class PixelFormat { kRgb, kBgr, kGrayscale };

// "RGB", "BGR" or "Grayscale" (case-sensitive, as the operator text spells them).
// Error: InvalidArgument naming the attribute and the value.
Expected<PixelFormat> ParsePixelFormat(const std::string& s);

// 3 for RGB / BGR, 1 for Grayscale.
int64_t OutputChannels(PixelFormat f);

// Writes img as [height, width, OutputChannels(f)] to out. Grey to colour repeats the sample;
// colour to grey is ITU-R 601-2 luma in Pillow's integer form,
// (19595 R + 38470 G + 7471 B + 32768) >> 16, so results match Pillow's convert("L").
void ConvertPixels(const DecodedImage& img, PixelFormat f, uint8_t* out);

// The luma above for one pixel.
inline uint8_t Luma601(uint8_t r, uint8_t g, uint8_t b) {
  return static_cast<uint8_t>((19595u * r + 38470u * g + 7471u * b + 0x8000u) >> 16);
}

}  // namespace vt::ops::image
