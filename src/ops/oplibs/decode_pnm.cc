// PBM / PGM / PPM, plain and raw (P1 .. P6), any maxval, through libnetpbm (Debian
// libnetpbm-dev). Samples are scaled to 0..255 as Pillow does, round(v / maxval * 255) in double
// precision with ties to even; PBM's black bits give 0 and white ones 255.
//
// libnetpbm reports a bad stream by longjmp to one process-wide jump buffer (or by exit(), when
// none is set), so calls are serialised and made with the buffer set; nothing with a destructor
// is created between setjmp and the calls that may jump.
#include <pam.h>

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <mutex>
#include <string>

#include "ops/image/decoded_image.h"

namespace vt::ops::image {
namespace {

std::mutex g_netpbm_mutex;
char g_netpbm_error[256];  // under g_netpbm_mutex

void OnNetpbmError(const char* msg) { std::snprintf(g_netpbm_error, sizeof(g_netpbm_error), "%s", msg); }
void OnNetpbmMessage(const char*) {}

uint8_t To8Bits(sample v, sample maxval) {
  if (maxval == 255) return static_cast<uint8_t>(v);
  return static_cast<uint8_t>(std::nearbyint(static_cast<double>(v) / maxval * 255.0));
}

void StoreRow(const struct pam& p, const tuple* row, uint8_t* out) {
  for (int x = 0; x < p.width; ++x)
    for (unsigned c = 0; c < p.depth; ++c) *out++ = To8Bits(row[x][c], p.maxval);
}

}  // namespace

Expected<DecodedImage> DecodePnm(std::span<const uint8_t> stream) {
  std::lock_guard<std::mutex> lock(g_netpbm_mutex);
  static std::once_flag init;
  std::call_once(init, [] {
    pm_init("vtensor", 0);
    pm_setusererrormsgfn(OnNetpbmError);
    pm_setusermessagefn(OnNetpbmMessage);
  });
  FILE* f = fmemopen(const_cast<uint8_t*>(stream.data()), stream.size(), "rb");
  if (f == nullptr) return InvalidArgument("PNM stream cannot be opened");
  g_netpbm_error[0] = '\0';
  DecodedImage img;
  struct pam p;
  tuple* volatile row = nullptr;
  std::jmp_buf jump;
  if (setjmp(jump)) {
    pm_setjmpbuf(nullptr);
    if (row != nullptr) pnm_freepamrow(row);
    std::fclose(f);
    return InvalidArgument(std::string("PNM stream is corrupt: ") + g_netpbm_error);
  }
  pm_setjmpbuf(&jump);
  pnm_readpaminit(f, &p, PAM_STRUCT_SIZE(tuple_type));
  const bool fits = CheckImageSize(p.height, p.width).ok() && (p.depth == 1 || p.depth == 3);
  if (fits) {
    img.height = p.height;
    img.width = p.width;
    img.channels = static_cast<int>(p.depth);
    img.pixels.resize(img.height * img.width * img.channels);
    row = pnm_allocpamrow(&p);
    for (int64_t y = 0; y < img.height; ++y) {
      pnm_readpamrow(&p, row);
      StoreRow(p, row, img.pixels.data() + y * img.width * img.channels);
    }
    pnm_freepamrow(row);
  }
  pm_setjmpbuf(nullptr);
  std::fclose(f);
  if (!fits) return InvalidArgument("PNM picture of more than 2^28 pixels, or of depth other than 1 or 3");
  return img;
}

}  // namespace vt::ops::image
