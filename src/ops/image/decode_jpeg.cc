// JPEG through libjpeg-turbo with its default decoder settings (islow DCT, "fancy" chroma
// upsampling, the method the operator text describes): the decoder Pillow uses, so pixels match
// it exactly. Colour pictures come out as RGB, greyscale ones as one channel; CMYK / YCCK
// pictures are refused, and so are streams that end before the picture does.
// jpeglib.h uses FILE and size_t without including their headers.
#include <csetjmp>
#include <cstdio>
#include <string>

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
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK)
    refusal = "CMYK and YCCK JPEG pictures are not supported";
  else if (Status s = CheckImageSize(cinfo.image_height, cinfo.image_width); !s.ok())
    refusal = "picture too large";
  if (refusal != nullptr) {
    jpeg_destroy_decompress(&cinfo);
    return InvalidArgument(std::string("JPEG stream: ") + refusal);
  }
  cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
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
  return img;
}

}  // namespace vt::ops::image
