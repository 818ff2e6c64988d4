// ImageDecoder (ONNX Operators.md "ImageDecoder", opset 20): decodes one encoded picture (BMP,
// JPEG, JPEG 2000, TIFF, PNG, WebP, PBM / PGM / PPM) to uint8 [height, width, channels], channels 3
// for pixel_format "RGB" / "BGR" and 1 for "Grayscale". The format is told by the stream's
// signature, not by any name. As the operator text says, a stream that cannot be decoded for
// any reason (unknown signature, truncated, corrupt, unsupported variant) gives an empty
// [0, 0, channels] output, not an error; docs/image_decoder.md gives the conversions. The
// format libraries are in the operator libraries plugin (ops/common/op_libs.h), loaded when
// the first ImageDecoder node is prepared; a plugin that cannot be loaded is an error then.
#include <cstring>
#include <string>

#include "ops/common/op_libs.h"
#include "ops/common/op_util.h"
#include "ops/image/decoded_image.h"
#include "ops/image/pixel_format.h"

namespace vt::ops {
namespace {

using image::DecodedImage;

bool StartsWith(std::span<const uint8_t> s, const char* sig, size_t n) {
  return s.size() >= n && std::memcmp(s.data(), sig, n) == 0;
}

Expected<DecodedImage> Decode(const OpLibs& libs, std::span<const uint8_t> s) {
  if (StartsWith(s, "\x89PNG\r\n\x1a\n", 8)) return libs.decode_png(s);
  if (StartsWith(s, "\xff\xd8\xff", 3)) return libs.decode_jpeg(s);
  if (StartsWith(s, "\0\0\0\x0cjP  \r\n\x87\n", 12) || StartsWith(s, "\xff\x4f\xff\x51", 4))
    return libs.decode_jpeg2000(s);
  if (StartsWith(s, "II*\0", 4) || StartsWith(s, "MM\0*", 4) || StartsWith(s, "II+\0", 4) ||
      StartsWith(s, "MM\0+", 4))
    return libs.decode_tiff(s);
  if (s.size() >= 12 && StartsWith(s, "RIFF", 4) && std::memcmp(s.data() + 8, "WEBP", 4) == 0)
    return libs.decode_webp(s);
  if (StartsWith(s, "BM", 2)) return libs.decode_bmp(s);
  if (s.size() >= 2 && s[0] == 'P' && s[1] >= '1' && s[1] <= '6') return libs.decode_pnm(s);
  return InvalidArgument("the stream starts with no signature of a supported image format");
}

class ImageDecoderKernel : public OpKernel {
 public:
  static Expected<std::unique_ptr<OpKernel>> Create(const KernelInit& init) {
    const std::string f = init.node.GetString("pixel_format", "RGB");
    Expected<image::PixelFormat> pf = image::ParsePixelFormat(f);
    if (!pf.ok()) return AnnotateNode(pf.take_status(), init.node);
    Expected<const OpLibs*> libs = LoadOpLibs("ImageDecoder");
    if (!libs.ok()) return AnnotateNode(libs.take_status(), init.node);
    auto k = std::unique_ptr<ImageDecoderKernel>(new ImageDecoderKernel());
    k->format_ = *pf;
    k->libs_ = *libs;
    return std::unique_ptr<OpKernel>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
    if (x0.dtype() != DType::kUInt8)
      return ctx.Error(std::string("input 'encoded_stream' (0) has element type ") +
                       DTypeName(x0.dtype()) + ", expected uint8");
    if (x0.shape().size() != 1)
      return ctx.Error("input 'encoded_stream' (0) has rank " +
                       std::to_string(x0.shape().size()) + ", expected a 1-D byte stream");
    const Tensor x = x0.Contiguous();
    const auto* bytes = static_cast<const uint8_t*>(x.raw_data());
    Expected<DecodedImage> img = Decode(*libs_, {bytes, static_cast<size_t>(x.numel())});
    const int64_t c = image::OutputChannels(format_);
    if (!img.ok()) {
      ctx.AllocOutput(0, DType::kUInt8, {0, 0, c});
      return Status::Ok();
    }
    Tensor y = ctx.AllocOutput(0, DType::kUInt8, {img->height, img->width, c});
    image::ConvertPixels(*img, format_, static_cast<uint8_t*>(y.raw_mutable_data()));
    return Status::Ok();
  }

 private:
  image::PixelFormat format_ = image::PixelFormat::kRgb;
  const OpLibs* libs_ = nullptr;
};

VT_REGISTER_OP("", "ImageDecoder", 20, kMaxOpset, KernelFactory(ImageDecoderKernel::Create));

}  // namespace
}  // namespace vt::ops
