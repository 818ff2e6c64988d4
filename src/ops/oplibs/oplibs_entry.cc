// The operator libraries plugin's entry (ops/common/op_libs.h): its one exported symbol.
#include "ops/common/op_libs.h"
#include "ops/oplibs/oplibs_table.h"

extern "C" __attribute__((visibility("default"))) const void* vt_oplibs_table(
    int abi, size_t table_bytes) {
  namespace image = vt::ops::image;
  namespace oplibs = vt::ops::oplibs;
  static const vt::ops::OpLibs table{&image::DecodePng,      &image::DecodeJpeg,
                                     &image::DecodeTiff,     &image::DecodeWebp,
                                     &image::DecodeJpeg2000, &image::DecodeBmp,
                                     &image::DecodePnm,      &oplibs::RegexCompile,
                                     &oplibs::RegexFullMatch, &oplibs::RegexFree};
  return abi == vt::ops::kOpLibsAbi && table_bytes == sizeof(vt::ops::OpLibs) ? &table : nullptr;
}
