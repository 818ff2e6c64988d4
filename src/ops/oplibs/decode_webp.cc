// WebP (lossy and lossless, still pictures) through libwebp, decoded straight to RGB: the alpha
// plane, if any, is dropped. Animated WebP streams are refused.
#include <webp/decode.h>

#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {

Expected<DecodedImage> DecodeWebp(std::span<const uint8_t> stream) {
  WebPBitstreamFeatures features;
  const VP8StatusCode st = WebPGetFeatures(stream.data(), stream.size(), &features);
  if (st != VP8_STATUS_OK)
    return InvalidArgument("WebP stream is corrupt (libwebp status " + std::to_string(st) + ")");
  if (features.has_animation) return InvalidArgument("animated WebP streams are not supported");
  VT_RETURN_IF_ERROR(CheckImageSize(features.height, features.width));
  DecodedImage img;
  img.height = features.height;
  img.width = features.width;
  img.channels = 3;
  img.pixels.resize(img.height * img.width * 3);
  if (WebPDecodeRGBInto(stream.data(), stream.size(), img.pixels.data(), img.pixels.size(),
                        static_cast<int>(img.width * 3)) == nullptr)
    return InvalidArgument("WebP stream is corrupt: the picture data does not decode");
  return img;
}

}  // namespace vt::ops::image
