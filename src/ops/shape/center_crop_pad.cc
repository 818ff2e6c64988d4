// CenterCropPad (ONNX Operators.md "CenterCropPad", opset 18). Per listed axis the output
// length is the requested one: a longer input is cropped starting at floor((dim - s) / 2), a
// shorter one is padded with zeros (false, empty strings) floor((s - dim) / 2) before and the
// rest after. Any element type; the overlap is copied one innermost run at a time.
#include <algorithm>
#include <string>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

// Copies the box of lengths `len` from `src` (dense, shape `in`) at `in_start` to `dst`
// (dense, shape `out`) at `out_start`. Precondition: the box fits both.
void CopyBox(DType dt, const void* src, const Shape& in, const std::vector<int64_t>& in_start,
             void* dst, const Shape& out, const std::vector<int64_t>& out_start,
             const std::vector<int64_t>& len) {
  const size_t r = in.size();
  for (int64_t l : len)
    if (l == 0) return;
  if (r == 0) {
    CopyElems(dt, dst, src, 1);
    return;
  }
  std::vector<int64_t> in_str(r, 1), out_str(r, 1);
  for (size_t d = r - 1; d > 0; --d) {
    in_str[d - 1] = in_str[d] * in[d];
    out_str[d - 1] = out_str[d] * out[d];
  }
  std::vector<int64_t> idx(r, 0);  // position inside the box, last dim excluded
  while (true) {
    int64_t si = 0, di = 0;
    for (size_t d = 0; d < r; ++d) {
      si += (in_start[d] + idx[d]) * in_str[d];
      di += (out_start[d] + idx[d]) * out_str[d];
    }
    CopyElems(dt, ElemPtr(dst, dt, di), ElemPtr(src, dt, si), len[r - 1]);
    size_t d = r - 1;
    while (d > 0) {
      --d;
      if (++idx[d] < len[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (r == 1) return;
  }
}

Status CenterCropPadCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const int64_t rank = x0.rank();
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> target, ReadIntList(ctx, 1, "shape"));
  std::vector<int64_t> axes;
  if (ctx.node().FindAttr("axes") != nullptr) {
    VT_ASSIGN_OR_RETURN(axes, NormalizeAxisList(ctx, ctx.node().GetInts("axes"), rank));
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (target.size() != axes.size())
    return ctx.Error("input 'shape' (1) has " + std::to_string(target.size()) +
                     " values for " + std::to_string(axes.size()) + " axes (input rank " +
                     std::to_string(rank) + ")");
  const Shape& in = x0.shape();
  Shape out = in;
  std::vector<int64_t> in_start(static_cast<size_t>(rank), 0), out_start(in_start);
  std::vector<int64_t> len(in.begin(), in.end());
  for (size_t a = 0; a < axes.size(); ++a) {
    const size_t d = static_cast<size_t>(axes[a]);
    const int64_t s = target[a];
    if (s < 0)
      return ctx.Error("input 'shape' (1) value " + std::to_string(s) + " for axis " +
                       std::to_string(d) + " is negative");
    out[d] = s;
    len[d] = std::min(in[d], s);
    if (in[d] > s) in_start[d] = (in[d] - s) / 2;
    else out_start[d] = (s - in[d]) / 2;
  }
  const Tensor x = x0.Contiguous();
  Tensor y = ctx.AllocOutput(0, x.dtype(), out);
  // Padding is zero: all-zero bytes for fixed-size types, "" for strings.
  if (x.dtype() == DType::kString) {
    std::string* p = y.mutable_data<std::string>();
    std::fill(p, p + y.numel(), std::string());
  } else {
    std::fill_n(static_cast<uint8_t*>(y.raw_mutable_data()), y.nbytes(), uint8_t{0});
  }
  CopyBox(x.dtype(), x.raw_data(), in, in_start, y.raw_mutable_data(), out, out_start, len);
  return Status::Ok();
}

VT_REGISTER_OP("", "CenterCropPad", 18, kMaxOpset, CenterCropPadCompute);

}  // namespace
}  // namespace vt::ops
