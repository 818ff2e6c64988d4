// JPEG 2000 (JP2 files and raw J2K codestreams) through OpenJPEG. Samples of other precisions
// are shifted to 8 bits and signed ones offset to unsigned, as Pillow's JPEG 2000 reader does;
// one or two components are grey (+alpha), three or four RGB (+alpha), alpha is dropped.
// Subsampled components and sYCC / CMYK / e-YCC colour spaces are refused.
#include <openjpeg.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

struct J2kSource {
  std::span<const uint8_t> stream;
  OPJ_SIZE_T offset = 0;
  std::string error;
};

OPJ_SIZE_T ReadJ2k(void* buf, OPJ_SIZE_T n, void* user) {
  auto* src = static_cast<J2kSource*>(user);
  if (src->offset >= src->stream.size()) return static_cast<OPJ_SIZE_T>(-1);
  const OPJ_SIZE_T k = std::min<OPJ_SIZE_T>(n, src->stream.size() - src->offset);
  std::memcpy(buf, src->stream.data() + src->offset, k);
  src->offset += k;
  return k;
}

OPJ_OFF_T SkipJ2k(OPJ_OFF_T n, void* user) {
  auto* src = static_cast<J2kSource*>(user);
  const OPJ_OFF_T left = static_cast<OPJ_OFF_T>(src->stream.size() - src->offset);
  if (n > left) n = left;
  if (n < -static_cast<OPJ_OFF_T>(src->offset)) n = -static_cast<OPJ_OFF_T>(src->offset);
  src->offset += n;
  return n;
}

OPJ_BOOL SeekJ2k(OPJ_OFF_T to, void* user) {
  auto* src = static_cast<J2kSource*>(user);
  if (to < 0 || static_cast<OPJ_SIZE_T>(to) > src->stream.size()) return OPJ_FALSE;
  src->offset = static_cast<OPJ_SIZE_T>(to);
  return OPJ_TRUE;
}

void OnJ2kError(const char* msg, void* user) {
  auto* src = static_cast<J2kSource*>(user);
  if (src->error.empty()) src->error = msg;
  while (!src->error.empty() && src->error.back() == '\n') src->error.pop_back();
}

void OnJ2kMessage(const char*, void*) {}

// Pillow's reading of a sample of `prec` bits: signed ones offset by 2^(prec-1), then shifted
// to 8 bits.
uint8_t To8Bits(int32_t v, const opj_image_comp_t& c) {
  int64_t u = c.sgnd ? int64_t{v} + (int64_t{1} << (c.prec - 1)) : v;
  u = c.prec > 8 ? u >> (c.prec - 8) : u << (8 - c.prec);
  return static_cast<uint8_t>(u < 0 ? 0 : u > 255 ? 255 : u);
}

Expected<DecodedImage> Convert(const opj_image_t& im) {
  const uint32_t n = im.numcomps;
  if (n < 1 || n > 4) return InvalidArgument("JPEG 2000 stream has " + std::to_string(n) + " components");
  if (im.color_space == OPJ_CLRSPC_SYCC || im.color_space == OPJ_CLRSPC_EYCC ||
      im.color_space == OPJ_CLRSPC_CMYK)
    return InvalidArgument("JPEG 2000 sYCC, e-YCC and CMYK colour spaces are not supported");
  const uint32_t w = im.comps[0].w, h = im.comps[0].h;
  for (uint32_t c = 0; c < n; ++c) {
    const opj_image_comp_t& comp = im.comps[c];
    if (comp.w != w || comp.h != h || comp.dx != 1 || comp.dy != 1 || comp.data == nullptr)
      return InvalidArgument("JPEG 2000 subsampled components are not supported");
    if (comp.prec < 1 || comp.prec > 31) return InvalidArgument("JPEG 2000 component precision");
  }
  VT_RETURN_IF_ERROR(CheckImageSize(h, w));
  DecodedImage img;
  img.height = h;
  img.width = w;
  img.channels = n <= 2 ? 1 : 3;
  img.pixels.resize(img.height * img.width * img.channels);
  const size_t pixels = size_t{w} * h;
  for (int c = 0; c < img.channels; ++c)
    for (size_t i = 0; i < pixels; ++i)
      img.pixels[i * img.channels + c] = To8Bits(im.comps[c].data[i], im.comps[c]);
  return img;
}

}  // namespace

Expected<DecodedImage> DecodeJpeg2000(std::span<const uint8_t> stream) {
  static constexpr uint8_t kJp2Signature[] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'};
  const bool jp2 = stream.size() >= 12 && std::memcmp(stream.data(), kJp2Signature, 12) == 0;
  J2kSource src{stream, 0, {}};
  opj_codec_t* codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_set_error_handler(codec, OnJ2kError, &src);
  opj_set_warning_handler(codec, OnJ2kMessage, &src);
  opj_set_info_handler(codec, OnJ2kMessage, &src);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_stream_t* in = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  opj_stream_set_user_data(in, &src, nullptr);
  opj_stream_set_user_data_length(in, stream.size());
  opj_stream_set_read_function(in, ReadJ2k);
  opj_stream_set_skip_function(in, SkipJ2k);
  opj_stream_set_seek_function(in, SeekJ2k);
  opj_image_t* im = nullptr;
  const bool ok = opj_setup_decoder(codec, &params) && opj_read_header(in, codec, &im) &&
                  im != nullptr &&
                  CheckImageSize(int64_t{im->y1} - im->y0, int64_t{im->x1} - im->x0).ok() &&
                  opj_decode(codec, in, im) && opj_end_decompress(codec, in);
  Expected<DecodedImage> out =
      ok ? Convert(*im)
         : Expected<DecodedImage>(InvalidArgument("JPEG 2000 stream is corrupt: " +
                                                  (src.error.empty() ? std::string("no picture header, or more than 2^28 pixels") : src.error)));
  opj_image_destroy(im);
  opj_stream_destroy(in);
  opj_destroy_codec(codec);
  return out;
}

}  // namespace vt::ops::image
