#include "ops/image/pixel_format.h"

namespace vt::ops::image {

Expected<PixelFormat> ParsePixelFormat(const std::string& s) {
  if (s == "RGB") return PixelFormat::kRgb;
  if (s == "BGR") return PixelFormat::kBgr;
  if (s == "Grayscale") return PixelFormat::kGrayscale;
  return InvalidArgument("attribute 'pixel_format' is \"" + s +
                         "\", expected \"RGB\", \"BGR\" or \"Grayscale\"");
}

int64_t OutputChannels(PixelFormat f) { return f == PixelFormat::kGrayscale ? 1 : 3; }

void ConvertPixels(const DecodedImage& img, PixelFormat f, uint8_t* out) {
  const int64_t n = img.height * img.width;
  const uint8_t* in = img.pixels.data();
  if (f == PixelFormat::kGrayscale) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = img.channels == 1 ? in[i] : Luma601(in[3 * i], in[3 * i + 1], in[3 * i + 2]);
    return;
  }
  const bool bgr = f == PixelFormat::kBgr;
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* p = img.channels == 1 ? nullptr : in + 3 * i;
    const uint8_t r = p ? p[0] : in[i], g = p ? p[1] : in[i], b = p ? p[2] : in[i];
    out[3 * i] = bgr ? b : r;
    out[3 * i + 1] = g;
    out[3 * i + 2] = bgr ? r : b;
  }
}

}  // namespace vt::ops::image
