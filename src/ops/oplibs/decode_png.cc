// PNG through libpng: palettes expanded to RGB, 1/2/4-bit grey scaled to 8 bits, 16-bit samples
// cut to their high byte and alpha (channel or tRNS) dropped, as Pillow reads PNG
// (docs/image_decoder.md).
#include <png.h>

#include <csetjmp>
#include <cstring>
#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

struct PngSource {
  std::span<const uint8_t> stream;
  size_t offset = 0;
  char error[200] = {};
};

void OnPngError(png_structp png, png_const_charp msg) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->error, sizeof(src->error), "%s", msg);
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}

void ReadFromStream(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->stream.size() - src->offset) png_error(png, "stream ends inside the image");
  std::memcpy(out, src->stream.data() + src->offset, n);
  src->offset += n;
}

// Sets the transforms that leave 8-bit grey or RGB samples; returns the channel count.
int SetTransforms(png_structp png, png_infop info) {
  const int color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);
  if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  return png_get_channels(png, info);
}

}  // namespace

Expected<DecodedImage> DecodePng(std::span<const uint8_t> stream) {
  PngSource src{stream, 0, {}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, OnPngError, OnPngWarning);
  if (png == nullptr) return Internal("libpng: cannot create a read structure");
  png_infop info = png_create_info_struct(png);
  DecodedImage img;
  std::vector<png_bytep> rows;
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return InvalidArgument(std::string("PNG stream is corrupt: ") + src.error);
  }
  png_set_read_fn(png, &src, ReadFromStream);
  png_read_info(png, info);
  img.height = png_get_image_height(png, info);
  img.width = png_get_image_width(png, info);
  if (Status s = CheckImageSize(img.height, img.width); !s.ok()) {
    png_destroy_read_struct(&png, &info, nullptr);
    return s;
  }
  img.channels = SetTransforms(png, info);
  img.pixels.resize(img.height * img.width * img.channels);
  rows.resize(img.height);
  for (int64_t y = 0; y < img.height; ++y) rows[y] = img.pixels.data() + y * img.width * img.channels;
  png_read_image(png, rows.data());
  png_destroy_read_struct(&png, &info, nullptr);
  return img;
}

}  // namespace vt::ops::image
