// JPEG through libjpeg-turbo with its default decoder settings (islow DCT, "fancy" chroma
// upsampling, the method the operator text describes): the decoder Pillow uses, so pixels match
// it exactly. Colour pictures come out as RGB, greyscale ones as one channel, CMYK / YCCK ones
// as RGB the way Pillow converts them (below); streams that end before the picture does are
// refused.
// jpeglib.h uses FILE and size_t without including their headers.
#include <csetjmp>
#include <cstdio>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
};

void OnJpegError(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrors*>(cinfo->err);
  cinfo->err->format_message(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// A stream that ends early is corrupt (Pillow refuses it too); other warnings (bad entropy
// data that libjpeg-turbo resynchronises over) are not.
void OnJpegMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) OnJpegError(cinfo);
}

// Pillow reads a CMYK JPEG as Adobe writes it, inverted (c = 255 - stored), and converts
// CMYK to RGB as R = clip(nk - c * nk / 255) with nk = 255 - k, the division rounded as
// ((t >> 8) + t) >> 8 with t = c * nk + 128. In terms of the stored samples, nk is the stored k.
void CmykToRgb(const uint8_t* in, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i, in += 4) {
    const int nk = in[3];
    for (int c = 0; c < 3; ++c) {
      const int t = (255 - in[c]) * nk + 128;
      const int v = nk - (((t >> 8) + t) >> 8);
      *out++ = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

}  // namespace

Expected<DecodedImage> DecodeJpeg(std::span<const uint8_t> stream) {
  jpeg_decompress_struct cinfo;
  JpegErrors err;
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = OnJpegError;
  err.mgr.emit_message = OnJpegMessage;
  DecodedImage img;
  const char* refusal = nullptr;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidArgument(std::string("JPEG stream is corrupt: ") + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, stream.data(), stream.size());
  jpeg_read_header(&cinfo, TRUE);
  if (Status s = CheckImageSize(cinfo.image_height, cinfo.image_width); !s.ok())
    refusal = "picture too large";
  if (refusal != nullptr) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidArgument(std::string("JPEG stream: ") + refusal);
  }
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  cinfo.out_color_space = cmyk ? JCS_CMYK
                          : cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&cinfo);
  img.height = cinfo.output_height;
  img.width = cinfo.output_width;
  img.channels = cinfo.output_components;
  img.pixels.resize(img.height * img.width * img.channels);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = img.pixels.data() + int64_t{cinfo.output_scanline} * img.width * img.channels;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (cmyk) {
    std::vector<uint8_t> rgb(img.height * img.width * 3);
    CmykToRgb(img.pixels.data(), img.height * img.width, rgb.data());
    img.pixels = std::move(rgb);
    img.channels = 3;
  }
  return img;
}

}  // namespace vt::ops::image
