// TIFF through libtiff's RGBA interface, which reads every photometric interpretation, sample
// size and compression libtiff knows, oriented top-left. Single-sample (greyscale, bilevel)
// pictures keep one channel; alpha is dropped, the colour samples kept as stored.
#include <tiffio.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

struct TiffSource {
  std::span<const uint8_t> stream;
  toff_t offset = 0;
  std::string error;
  // libtiff asked for bytes past the end: a truncated stream, which libtiff may only warn
  // about (a colour map it cannot read is ignored), and which Pillow refuses.
  bool truncated = false;
};

tmsize_t ReadTiff(thandle_t h, void* buf, tmsize_t n) {
  auto* src = static_cast<TiffSource*>(h);
  const tmsize_t left = src->offset >= src->stream.size()
                           ? 0 : static_cast<tmsize_t>(src->stream.size() - src->offset);
  const tmsize_t k = n < left ? n : left;
  if (k < n) src->truncated = true;
  if (k <= 0) return 0;
  std::memcpy(buf, src->stream.data() + src->offset, k);
  src->offset += k;
  return k;
}

tmsize_t WriteTiff(thandle_t, void*, tmsize_t) { return -1; }

toff_t SeekTiff(thandle_t h, toff_t off, int whence) {
  auto* src = static_cast<TiffSource*>(h);
  const toff_t base = whence == SEEK_CUR ? src->offset : whence == SEEK_END ? src->stream.size() : 0;
  src->offset = base + off;
  return src->offset;
}

int CloseTiff(thandle_t) { return 0; }
toff_t SizeTiff(thandle_t h) { return static_cast<TiffSource*>(h)->stream.size(); }

int OnTiffError(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  auto* src = static_cast<TiffSource*>(user);
  char buf[256];
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  if (src->error.empty()) src->error = std::string(module ? module : "libtiff") + ": " + buf;
  return 1;
}

int OnTiffWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

// Largest single allocation libtiff may make for a corrupt header (bytes).
constexpr tmsize_t kMaxTiffAlloc = tmsize_t{1} << 31;

}  // namespace

Expected<DecodedImage> DecodeTiff(std::span<const uint8_t> stream) {
  TiffSource src{stream, 0, {}, false};
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, OnTiffError, &src);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, OnTiffWarning, &src);
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts, kMaxTiffAlloc);
  TIFF* tif = TIFFClientOpenExt("stream", "rm", &src, ReadTiff, WriteTiff, SeekTiff, CloseTiff,
                                SizeTiff, nullptr, nullptr, opts);
  TIFFOpenOptionsFree(opts);
  if (tif == nullptr) return InvalidArgument("TIFF stream is corrupt: " + src.error);
  uint32_t w = 0, h = 0;
  uint16_t samples = 1;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  uint16_t extra_count = 0;
  uint16_t* extra = nullptr;
  TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
  uint16_t photometric = PHOTOMETRIC_MINISBLACK;
  TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photometric);
  if (Status s = CheckImageSize(h, w); !s.ok()) {
    TIFFClose(tif);
    return s;
  }
  // libtiff's RGBA reader premultiplies unassociated alpha into the colour samples; the
  // operator drops alpha and keeps the colour as stored (as Pillow does), so the extra samples
  // are declared associated, which the reader copies as they are.
  if (extra_count > 0) {
    std::vector<uint16_t> kinds(extra, extra + extra_count);
    for (uint16_t& k : kinds)
      if (k == EXTRASAMPLE_UNASSALPHA) k = EXTRASAMPLE_ASSOCALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, extra_count, kinds.data());
  }
  char why[1024] = {};
  if (!TIFFRGBAImageOK(tif, why)) {
    TIFFClose(tif);
    return InvalidArgument(std::string("TIFF stream: ") + why);
  }
  std::vector<uint32_t> rgba(size_t{w} * h);
  const int ok = TIFFReadRGBAImageOriented(tif, w, h, rgba.data(), ORIENTATION_TOPLEFT, 0);
  TIFFClose(tif);
  // libtiff reports damaged strips through the error handler and may still return success.
  if (!ok || !src.error.empty()) return InvalidArgument("TIFF stream is corrupt: " + src.error);
  if (src.truncated) return InvalidArgument("TIFF stream ends before the picture does");
  DecodedImage img;
  img.height = h;
  img.width = w;
  const bool grey = samples - extra_count == 1 && photometric != PHOTOMETRIC_PALETTE;
  img.channels = grey ? 1 : 3;
  img.pixels.resize(img.height * img.width * img.channels);
  uint8_t* out = img.pixels.data();
  for (uint32_t p : rgba) {
    *out++ = TIFFGetR(p);
    if (!grey) {
      *out++ = TIFFGetG(p);
      *out++ = TIFFGetB(p);
    }
  }
  return img;
}

}  // namespace vt::ops::image
