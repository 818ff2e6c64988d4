// BMP through stb_image (Debian libstb): 1/4/8/16/24/32-bit BMP with palettes and bit fields.
// The caller sends only streams whose signature is BMP: stb_image reads other formats too,
// which the operator gives to their own decoders.
#include <stb_image.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

// stb_image reads missing bytes as zeros; reading from callbacks shows when it asks for bytes
// past the end, so a truncated stream is refused (Pillow refuses it too).
struct StbSource {
  std::span<const uint8_t> stream;
  size_t offset = 0;
  bool overrun = false;
};

int ReadStb(void* user, char* data, int size) {
  auto* src = static_cast<StbSource*>(user);
  const size_t left = src->stream.size() - src->offset;
  const size_t k = std::min(left, static_cast<size_t>(size));
  if (k == 0 && size > 0) src->overrun = true;
  std::memcpy(data, src->stream.data() + src->offset, k);
  src->offset += k;
  return static_cast<int>(k);
}

void SkipStb(void* user, int n) {
  auto* src = static_cast<StbSource*>(user);
  const int64_t to = static_cast<int64_t>(src->offset) + n;
  src->offset = static_cast<size_t>(std::clamp<int64_t>(to, 0, src->stream.size()));
}

int EofStb(void* user) {
  auto* src = static_cast<StbSource*>(user);
  return src->offset >= src->stream.size();
}

constexpr stbi_io_callbacks kStbCallbacks = {ReadStb, SkipStb, EofStb};

}  // namespace

Expected<DecodedImage> DecodeBmp(std::span<const uint8_t> stream) {
  int w = 0, h = 0, n = 0;
  StbSource info_src{stream, 0, false};
  if (!stbi_info_from_callbacks(&kStbCallbacks, &info_src, &w, &h, &n))
    return InvalidArgument(std::string("stream is corrupt: ") + stbi_failure_reason());
  VT_RETURN_IF_ERROR(CheckImageSize(h, w));
  // Grey (+alpha) pictures stay one channel, colour (+alpha) ones three; alpha is dropped.
  const int want = n <= 2 ? 1 : 3;
  StbSource src{stream, 0, false};
  stbi_uc* pixels = stbi_load_from_callbacks(&kStbCallbacks, &src, &w, &h, &n, want);
  if (pixels == nullptr)
    return InvalidArgument(std::string("stream is corrupt: ") + stbi_failure_reason());
  if (src.overrun) {
    stbi_image_free(pixels);
    return InvalidArgument("stream ends before the picture does");
  }
  DecodedImage img;
  img.height = h;
  img.width = w;
  img.channels = want;
  img.pixels.assign(pixels, pixels + int64_t{h} * w * want);
  stbi_image_free(pixels);
  return img;
}

}  // namespace vt::ops::image
