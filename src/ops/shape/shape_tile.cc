// Tile (ONNX Operators.md "Tile"; opset 1 form with `tiles` + `axis` inputs too).
// The output is filled by block copies: first each input row is repeated along the last
// dim, then whole filled blocks are duplicated dim by dim from the innermost outwards.
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

void TileInto(const Tensor& in, const std::vector<int64_t>& reps, Tensor& out) {
  const DType dt = in.dtype();
  const Shape& is = in.shape();
  const Shape& os = out.shape();
  const int r = in.rank();
  if (out.numel() == 0) return;
  if (r == 0) {
    CopyElems(dt, out.raw_mutable_data(), in.raw_data(), 1);
    return;
  }
  const std::vector<int64_t> ostr = RowMajorStrides(os);
  const int64_t row = is[static_cast<size_t>(r - 1)];
  const int64_t rows = in.numel() / row;
  const int64_t rep_last = reps[static_cast<size_t>(r - 1)];
  // Stage 1: every input row lands at the same leading coordinates in the output.
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  for (int64_t k = 0; k < rows; ++k) {
    int64_t o = 0;
    for (int d = 0; d < r - 1; ++d) o += idx[static_cast<size_t>(d)] * ostr[static_cast<size_t>(d)];
    const void* src = ElemPtr(in.raw_data(), dt, k * row);
    for (int64_t t = 0; t < rep_last; ++t)
      CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, o + t * row), src, row);
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < is[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  // Stage 2: for dim d (innermost first), the block [0, in_d) of each filled prefix is
  // complete; copy it to the remaining repeats.
  for (int d = r - 2; d >= 0; --d) {
    const int64_t rep = reps[static_cast<size_t>(d)];
    if (rep == 1) continue;
    const int64_t block = is[static_cast<size_t>(d)] * ostr[static_cast<size_t>(d)];
    // Prefixes over dims [0, d) that have been filled: coordinates < in dims.
    const int64_t prefixes = DimProduct(is, 0, static_cast<size_t>(d));
    std::vector<int64_t> pidx(static_cast<size_t>(d), 0);
    for (int64_t p = 0; p < prefixes; ++p) {
      int64_t o = 0;
      for (int e = 0; e < d; ++e) o += pidx[static_cast<size_t>(e)] * ostr[static_cast<size_t>(e)];
      const void* src = ElemPtr(out.raw_data(), dt, o);
      for (int64_t t = 1; t < rep; ++t)
        CopyElems(dt, ElemPtr(out.raw_mutable_data(), dt, o + t * block), src, block);
      for (int e = d - 1; e >= 0; --e) {
        if (++pidx[static_cast<size_t>(e)] < is[static_cast<size_t>(e)]) break;
        pidx[static_cast<size_t>(e)] = 0;
      }
    }
  }
}

Status TileCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  Tensor x = x0.Contiguous();
  const int r = x.rank();
  std::vector<int64_t> reps;
  if (ctx.opset() < 6) {
    VT_ASSIGN_OR_RETURN(int64_t tiles, ReadIntScalar(ctx, 1, "tiles"));
    VT_ASSIGN_OR_RETURN(int64_t axis_raw, ReadIntScalar(ctx, 2, "axis"));
    VT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxisFor(ctx, axis_raw, r));
    reps.assign(static_cast<size_t>(r), 1);
    reps[static_cast<size_t>(axis)] = tiles;
  } else {
    VT_ASSIGN_OR_RETURN(reps, ReadIntList(ctx, 1, "repeats"));
  }
  if (static_cast<int>(reps.size()) != r)
    return ctx.Error("repeats has " + std::to_string(reps.size()) + " entries for input rank " +
                     std::to_string(r));
  Shape out_shape(static_cast<size_t>(r));
  for (int d = 0; d < r; ++d) {
    if (reps[static_cast<size_t>(d)] < 0)
      return ctx.Error("negative repeat " + std::to_string(reps[static_cast<size_t>(d)]));
    out_shape[static_cast<size_t>(d)] = x.dim(d);
  }
  for (int d = 0; d < r; ++d) {
    int64_t rep = reps[static_cast<size_t>(d)], dim = x.dim(d);
    if (dim != 0 && rep > (int64_t{1} << 40) / dim) return ctx.Error("output is too large");
    out_shape[static_cast<size_t>(d)] = dim * rep;
  }
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, out_shape));
  Tensor out = ctx.AllocOutput(0, x.dtype(), out_shape);
  TileInto(x, reps, out);
  return Status::Ok();
}

VT_REGISTER_OP("", "Tile", 1, kMaxOpset, TileCompute);

}  // namespace
}  // namespace vt::ops
