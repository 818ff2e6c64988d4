// MaxRoiPool (ONNX Operators.md "MaxRoiPool": opset 1; 22 adds bfloat16). X [N, C, H, W],
// rois [R, 5] rows (batch_id, x1, y1, x2, y2) in input units; attributes pooled_shape
// (required, [PH, PW]) and spatial_scale. Output [R, C, PH, PW].
// The operator text leaves the bin arithmetic to the original ROI pooling, which ONNX Runtime
// and Caffe implement as: corners round(v * spatial_scale) (half away from zero), roi size
// max(x2 - x1 + 1, 1), bin i covering [floor(i * size / P), ceil((i + 1) * size / P)) from the
// roi start, clipped to the image; an empty bin gives 0. The maximum is exact in every type,
// so values are widened to double and the result narrowed back without rounding.
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/common/op_util.h"
#include "ops/contrib/contrib_inputs.h"

namespace vt::ops {
namespace {

Status MaxRoiPoolCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, RequiredInput(ctx, 0, "X"));
  VT_ASSIGN_OR_RETURN(Tensor rois0, RequiredInput(ctx, 1, "rois"));
  VT_RETURN_IF_ERROR(ExpectFloat(ctx, x0, 0, "X"));
  VT_RETURN_IF_ERROR(ExpectSameDType(ctx, rois0, x0.dtype(), 1, "rois"));
  if (x0.rank() != 4)
    return ctx.Error(InputLabel(0, "X") + " must be [N, C, H, W], got " + ShapeToString(x0.shape()));
  if (rois0.rank() != 2 || rois0.dim(1) != 5)
    return ctx.Error(InputLabel(1, "rois") + " must be [num_rois, 5], got " +
                     ShapeToString(rois0.shape()));
  const Node& n = ctx.node();
  const std::vector<int64_t> pooled = n.GetInts("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1)
    return ctx.Error("attribute 'pooled_shape' must be two positive values [height, width]");
  const double scale = n.GetFloat("spatial_scale", 1.0f);
  const int64_t N = x0.dim(0), C = x0.dim(1), H = x0.dim(2), W = x0.dim(3), R = rois0.dim(0);
  const int64_t PH = pooled[0], PW = pooled[1];
  const Tensor x = CastTensor(x0, DType::kFloat64), rois = CastTensor(rois0, DType::kFloat64);
  const double* xd = x.data<double>();
  const double* rd = rois.data<double>();
  Tensor y = Tensor::Empty(DType::kFloat64, {R, C, PH, PW});
  double* yd = y.mutable_data<double>();
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = rd + r * 5;
    for (int k = 0; k < 5; ++k)
      if (!std::isfinite(roi[k]))
        return ctx.Error(InputLabel(1, "rois") + " row " + std::to_string(r) + " is not finite");
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N)
      return ctx.Error(InputLabel(1, "rois") + " row " + std::to_string(r) + ": batch_id " +
                       std::to_string(b) + " outside [0, " + std::to_string(N) + ")");
    const int64_t x1 = std::llround(roi[1] * scale), y1 = std::llround(roi[2] * scale);
    const int64_t x2 = std::llround(roi[3] * scale), y2 = std::llround(roi[4] * scale);
    const double rh = static_cast<double>(std::max<int64_t>(y2 - y1 + 1, 1));
    const double rw = static_cast<double>(std::max<int64_t>(x2 - x1 + 1, 1));
    for (int64_t c = 0; c < C; ++c) {
      const double* plane = xd + (b * C + c) * H * W;
      double* out = yd + (r * C + c) * PH * PW;
      for (int64_t ph = 0; ph < PH; ++ph) {
        const int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(ph * rh / PH)) + y1, 0, H);
        const int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((ph + 1) * rh / PH)) + y1, 0, H);
        for (int64_t pw = 0; pw < PW; ++pw) {
          const int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(pw * rw / PW)) + x1, 0, W);
          const int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((pw + 1) * rw / PW)) + x1, 0, W);
          double m = 0;
          bool any = false;
          for (int64_t i = hs; i < he; ++i)
            for (int64_t j = ws; j < we; ++j) {
              const double v = plane[i * W + j];
              if (!any || v > m) m = v;
              any = true;
            }
          out[ph * PW + pw] = any ? m : 0.0;
        }
      }
    }
  }
  ctx.SetOutput(0, Value(CastTensor(y, x0.dtype())));
  return Status::Ok();
}

VT_REGISTER_OP("", "MaxRoiPool", 1, kMaxOpset, MaxRoiPoolCompute);

}  // namespace
}  // namespace vt::ops
