// NonMaxSuppression (opset 10/11) and RoiAlign (opset 10/16/22), ONNX Operators.md.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

// ---------------------------------------------------------------------------------------------
// NonMaxSuppression: boxes [B, S, 4], scores [B, C, S], max_output_boxes_per_class? (int64
// scalar, default 0), iou_threshold? (default 0), score_threshold? (default: none).
// center_point_box 0: [y1, x1, y2, x2] with any pair of diagonal corners; 1: [xc, yc, w, h].
// Output selected_indices int64 [K, 3] of (batch, class, box), batch-major, then class, then
// descending score (ties: lower box index first).

struct Box {
  float y1, x1, y2, x2;  // normalised: y1 <= y2, x1 <= x2
  float area() const { return (y2 - y1) * (x2 - x1); }
};

Box ReadBox(const float* b, bool center) {
  Box r;
  if (center) {
    const float xc = b[0], yc = b[1], w = b[2], h = b[3];
    r = {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  } else {
    r = {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
  }
  return r;
}

bool Overlaps(const Box& a, const Box& b, float iou_threshold) {
  const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (ih <= 0 || iw <= 0) return false;
  const float inter = ih * iw;
  const float uni = a.area() + b.area() - inter;
  if (uni <= 0) return false;
  return inter / uni > iou_threshold;
}

Expected<double> OptionalScalar(KernelContext& ctx, size_t i, const char* name, double def,
                                bool* present = nullptr) {
  if (present) *present = false;
  if (!ctx.has_input(i) || ctx.input_value(i)->is_none()) return def;
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.numel() == 0) return def;
  if (t.numel() != 1 || t.dtype() == DType::kString)
    return ctx.Error(std::string(name) + " must be a one-element numeric tensor");
  if (present) *present = true;
  return t.GetDouble(0);
}

Status NonMaxSuppressionCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor boxes0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor scores0, ctx.RequireTensor(1));
  if (boxes0.rank() != 3 || boxes0.dim(2) != 4)
    return ctx.Error("boxes must be [batches, boxes, 4], got " + ShapeToString(boxes0.shape()));
  if (scores0.rank() != 3 || scores0.dim(0) != boxes0.dim(0) || scores0.dim(2) != boxes0.dim(1))
    return ctx.Error("scores " + ShapeToString(scores0.shape()) + " do not match boxes " +
                     ShapeToString(boxes0.shape()));
  if (!IsFloatDType(boxes0.dtype()) || !IsFloatDType(scores0.dtype()))
    return ctx.Error("boxes and scores must be floating point");
  int64_t max_out = 0;
  if (ctx.has_input(2) && !ctx.input_value(2)->is_none()) {
    VT_ASSIGN_OR_RETURN(Tensor m, ctx.RequireTensor(2));
    if (m.numel() > 1 || !IsIntegerDType(m.dtype()))
      return ctx.Error("max_output_boxes_per_class must be a one-element integer tensor");
    if (m.numel() == 1) max_out = m.GetInt64(0);
  }
  VT_ASSIGN_OR_RETURN(double iou, OptionalScalar(ctx, 3, "iou_threshold", 0.0));
  bool has_score_th = false;
  VT_ASSIGN_OR_RETURN(double score_th,
                      OptionalScalar(ctx, 4, "score_threshold", 0.0, &has_score_th));
  if (iou < 0 || iou > 1) return ctx.Error("iou_threshold must be in [0, 1]");
  const bool center = ctx.node().GetInt("center_point_box", 0) != 0;

  Tensor boxes = CastTensor(boxes0, DType::kFloat32), scores = CastTensor(scores0, DType::kFloat32);
  const int64_t nb = boxes.dim(0), ns = boxes.dim(1), nc = scores.dim(1);
  std::vector<int64_t> selected;  // triples
  std::vector<int64_t> order;
  std::vector<Box> kept;
  std::vector<Box> all(static_cast<size_t>(ns));
  for (int64_t b = 0; b < nb && max_out > 0; ++b) {
    const float* bp = boxes.data<float>() + b * ns * 4;
    for (int64_t s = 0; s < ns; ++s) all[static_cast<size_t>(s)] = ReadBox(bp + s * 4, center);
    for (int64_t c = 0; c < nc; ++c) {
      const float* sp = scores.data<float>() + (b * nc + c) * ns;
      order.clear();
      for (int64_t s = 0; s < ns; ++s)
        if (!has_score_th || sp[s] > score_th) order.push_back(s);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return sp[x] > sp[y]; });
      kept.clear();
      int64_t n_sel = 0;
      for (int64_t s : order) {
        if (n_sel >= max_out) break;
        const Box& cand = all[static_cast<size_t>(s)];
        bool suppressed = false;
        for (const Box& k : kept)
          if (Overlaps(k, cand, static_cast<float>(iou))) {
            suppressed = true;
            break;
          }
        if (suppressed) continue;
        kept.push_back(cand);
        selected.insert(selected.end(), {b, c, s});
        ++n_sel;
      }
    }
  }
  const int64_t k = static_cast<int64_t>(selected.size() / 3);
  Tensor out = ctx.AllocOutput(0, DType::kInt64, {k, 3});
  std::copy(selected.begin(), selected.end(), out.mutable_data<int64_t>());
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// RoiAlign: X [N, C, H, W], rois [R, 4] as (x1, y1, x2, y2) in input-image units,
// batch_indices [R]. Output [R, C, output_height, output_width]. Each bin averages (or, in
// max mode, takes the maximum of) bilinear samples on a sampling_ratio^2 grid (adaptive
// ceil(roi/bin) when 0). coordinate_transformation_mode "half_pixel" (opset 16 default)
// shifts by -0.5 pixel; "output_half_pixel" (the opset-10 behaviour) does not and forces
// rois to be at least 1x1. Max mode takes the maximum of the weighted corner values of each
// sample, as ONNX Runtime does.

template <typename T>
void RoiAlignImpl(const T* x, int64_t C, int64_t H, int64_t W, const T* rois,
                  const int64_t* batch_idx, int64_t R, int64_t oh, int64_t ow, int64_t sampling,
                  float scale, bool half_pixel, bool max_mode, T* out) {
  const T offset = half_pixel ? T(0.5) : T(0);
  for (int64_t r = 0; r < R; ++r) {
    const T* roi = rois + r * 4;
    const T sw = roi[0] * scale - offset, sh = roi[1] * scale - offset;
    const T ew = roi[2] * scale - offset, eh = roi[3] * scale - offset;
    T rw = ew - sw, rh = eh - sh;
    if (!half_pixel) {
      rw = std::max(rw, T(1));
      rh = std::max(rh, T(1));
    }
    const T bh = rh / static_cast<T>(oh), bw = rw / static_cast<T>(ow);
    const int64_t gh = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(rh / oh));
    const int64_t gw = sampling > 0 ? sampling : static_cast<int64_t>(std::ceil(rw / ow));
    const T count = static_cast<T>(std::max<int64_t>(gh * gw, 1));
    const T* img = x + batch_idx[r] * C * H * W;
    for (int64_t c = 0; c < C; ++c) {
      const T* plane = img + c * H * W;
      T* o = out + ((r * C) + c) * oh * ow;
      for (int64_t ph = 0; ph < oh; ++ph) {
        for (int64_t pw = 0; pw < ow; ++pw) {
          T acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy) {
            T y = sh + ph * bh + (iy + T(0.5)) * bh / static_cast<T>(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              T xx = sw + pw * bw + (ix + T(0.5)) * bw / static_cast<T>(gw);
              T v1 = 0, v2 = 0, v3 = 0, v4 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0;
              // Samples more than one pixel outside the image contribute zero.
              if (!(y < -1 || y > H || xx < -1 || xx > W)) {
                T yy = std::max(y, T(0)), xv = std::max(xx, T(0));
                int64_t y0 = static_cast<int64_t>(yy), x0 = static_cast<int64_t>(xv), y1, x1;
                if (y0 >= H - 1) {
                  y0 = y1 = H - 1;
                  yy = static_cast<T>(y0);
                } else {
                  y1 = y0 + 1;
                }
                if (x0 >= W - 1) {
                  x0 = x1 = W - 1;
                  xv = static_cast<T>(x0);
                } else {
                  x1 = x0 + 1;
                }
                const T ly = yy - y0, lx = xv - x0, hy = 1 - ly, hx = 1 - lx;
                w1 = hy * hx;
                w2 = hy * lx;
                w3 = ly * hx;
                w4 = ly * lx;
                v1 = plane[y0 * W + x0];
                v2 = plane[y0 * W + x1];
                v3 = plane[y1 * W + x0];
                v4 = plane[y1 * W + x1];
              }
              if (max_mode) {
                T m = std::max(std::max(w1 * v1, w2 * v2), std::max(w3 * v3, w4 * v4));
                acc = first ? m : std::max(acc, m);
                first = false;
              } else {
                acc += w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
              }
            }
          }
          o[ph * ow + pw] = max_mode ? acc : acc / count;
        }
      }
    }
  }
}

Status RoiAlignCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor rois0, ctx.RequireTensor(1));
  VT_ASSIGN_OR_RETURN(Tensor bi0, ctx.RequireTensor(2));
  if (x0.rank() != 4) return ctx.Error("X must be [N, C, H, W], got " + ShapeToString(x0.shape()));
  if (rois0.rank() != 2 || rois0.dim(1) != 4)
    return ctx.Error("rois must be [num_rois, 4], got " + ShapeToString(rois0.shape()));
  if (bi0.numel() != rois0.dim(0) || !IsIntegerDType(bi0.dtype()))
    return ctx.Error("batch_indices must be an integer tensor with one entry per roi");
  if (rois0.dtype() != x0.dtype()) return ctx.Error("rois dtype must match X");
  const Node& n = ctx.node();
  const std::string mode = n.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.Error("mode must be avg or max");
  const int64_t oh = n.GetInt("output_height", 1), ow = n.GetInt("output_width", 1);
  const int64_t sampling = n.GetInt("sampling_ratio", 0);
  const float scale = n.GetFloat("spatial_scale", 1.0f);
  const std::string ctm = n.GetString(
      "coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return ctx.Error("unknown coordinate_transformation_mode '" + ctm + "'");
  if (oh <= 0 || ow <= 0) return ctx.Error("output_height and output_width must be positive");
  if (sampling < 0) return ctx.Error("sampling_ratio must be >= 0");
  const int64_t N = x0.dim(0), C = x0.dim(1), H = x0.dim(2), W = x0.dim(3), R = rois0.dim(0);
  std::vector<int64_t> bidx = ToInt64Vector(bi0);
  for (int64_t b : bidx)
    if (b < 0 || b >= N)
      return ctx.Error("batch index " + std::to_string(b) + " outside [0, " + std::to_string(N) + ")");
  if ((H == 0 || W == 0) && R > 0 && C > 0) return ctx.Error("X has an empty spatial extent");
  // Adaptive sampling grids grow with the roi size: refuse non-finite rois and inputs whose
  // sample count would make the work unbounded.
  Tensor x = x0.Contiguous(), rois = rois0.Contiguous();
  constexpr double kMaxSamples = 1e10;
  double samples = 0;
  for (int64_t r = 0; r < R; ++r) {
    double v[4];
    for (int k = 0; k < 4; ++k) {
      v[k] = rois.GetDouble(r * 4 + k) * scale;
      if (!std::isfinite(v[k])) return ctx.Error("roi " + std::to_string(r) + " is not finite");
    }
    const double rw = std::max(v[2] - v[0], 1.0), rh = std::max(v[3] - v[1], 1.0);
    const double grid = sampling > 0 ? static_cast<double>(sampling) * sampling
                                     : std::ceil(rh / oh) * std::ceil(rw / ow);
    samples += grid * static_cast<double>(oh * ow) * static_cast<double>(C);
  }
  if (samples > kMaxSamples) return ctx.Error("rois need too many bilinear samples");
  // float16 (opset 10) and bfloat16 (opset 22) are computed in float32 and rounded once.
  const DType dt = x.dtype();
  const bool low = dt == DType::kFloat16 || dt == DType::kBFloat16;
  if (low) {
    x = CastTensor(x, DType::kFloat32);
    rois = CastTensor(rois, DType::kFloat32);
  }
  Tensor out = low ? Tensor::Empty(DType::kFloat32, {R, C, oh, ow})
                   : ctx.AllocOutput(0, dt, {R, C, oh, ow});
  const bool hp = ctm == "half_pixel", mx = mode == "max";
  Status st = DispatchElem<kSetFloat>(x.dtype(), [&](auto tag) -> Status {
    using T = decltype(tag);
    RoiAlignImpl<T>(x.data<T>(), C, H, W, rois.data<T>(), bidx.data(), R, oh, ow, sampling,
                    scale, hp, mx, out.mutable_data<T>());
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  if (low) ctx.SetOutput(0, Value(CastTensor(out, dt)));
  return Status::Ok();
}

VT_REGISTER_OP("", "NonMaxSuppression", 10, kMaxOpset, NonMaxSuppressionCompute);
VT_REGISTER_OP("", "RoiAlign", 10, kMaxOpset, RoiAlignCompute);

}  // namespace
}  // namespace vt::ops
