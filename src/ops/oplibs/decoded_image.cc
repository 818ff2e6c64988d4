#include "ops/image/decoded_image.h"

#include <string>

namespace vt::ops::image {

Status CheckImageSize(int64_t height, int64_t width) {
  if (height <= 0 || width <= 0 || height > kMaxImagePixels / width)
    return InvalidArgument("picture of " + std::to_string(height) + " x " + std::to_string(width) +
                           " pixels: not within 1 .. 2^28 pixels");
  return Status::Ok();
}

}  // namespace vt::ops::image
