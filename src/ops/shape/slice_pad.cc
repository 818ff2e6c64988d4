// Pad (ONNX Operators.md "Pad": `paddings` attribute in opset 1, `pads` attribute in 2-10,
// `pads`/`constant_value` inputs from 11, optional `axes` input from 18, `wrap` mode from 19).
// Negative pads crop. Rows are written as a left border, one memcpy of the source row and a
// right border.
#include <algorithm>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Source index along one dim for every output position (-1 = constant fill).
std::vector<int64_t> PadIndexMap(int64_t in, int64_t before, int64_t out, PadMode mode) {
  std::vector<int64_t> m(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = o - before;
    if (i < 0 || i >= in) {
      switch (mode) {
        case PadMode::kConstant: i = -1; break;
        case PadMode::kEdge: i = i < 0 ? 0 : in - 1; break;
        case PadMode::kWrap: i = ((i % in) + in) % in; break;
        case PadMode::kReflect:
          if (in == 1) {
            i = 0;
          } else {
            // numpy 'reflect': period 2(n-1), mirrored about the first and last element.
            const int64_t period = 2 * (in - 1);
            i = ((i % period) + period) % period;
            if (i >= in) i = period - i;
          }
          break;
      }
    }
    m[static_cast<size_t>(o)] = i;
  }
  return m;
}

// The pads as [begin of every axis..., end of every axis...] for all `rank` axes, from the
// attribute (opsets 1-10) or input 1 with the optional axes input 3 (opset 18). Errors:
// InvalidArgument naming the node for a wrong count or a pad beyond +-2^40.
Expected<std::vector<int64_t>> ReadPads(const KernelContext& ctx, int rank) {
  const Node& node = ctx.node();
  std::vector<int64_t> pads;
  if (ctx.opset() < 2) {
    pads = node.GetInts("paddings");
  } else if (ctx.opset() < 11) {
    pads = node.GetInts("pads");
  } else {
    VT_ASSIGN_OR_RETURN(pads, ReadIntList(ctx, 1, "pads"));
  }
  // Opset 18: pads may cover a subset of axes.
  if (ctx.opset() >= 18 && ctx.has_input(3) && ctx.input_value(3)->is_tensor()) {
    VT_ASSIGN_OR_RETURN(auto axes_raw, ReadIntList(ctx, 3, "axes"));
    VT_ASSIGN_OR_RETURN(auto axes, NormalizeAxisList(ctx, axes_raw, rank));
    if (pads.size() != 2 * axes.size())
      return ctx.Error("pads has " + std::to_string(pads.size()) + " entries for " +
                       std::to_string(axes.size()) + " axes");
    std::vector<int64_t> full(2 * static_cast<size_t>(rank), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      full[static_cast<size_t>(axes[k])] = pads[k];
      full[static_cast<size_t>(axes[k] + rank)] = pads[k + axes.size()];
    }
    pads = std::move(full);
  }
  if (pads.size() != 2 * static_cast<size_t>(rank))
    return ctx.Error("pads has " + std::to_string(pads.size()) + " entries, expected " +
                     std::to_string(2 * rank));
  for (int64_t p : pads)
    if (p > (int64_t{1} << 40) || p < -(int64_t{1} << 40))
      return ctx.Error("pad " + std::to_string(p) + " is out of range");
  return pads;
}

Expected<PadMode> ReadPadMode(const KernelContext& ctx) {
  const std::string mode = ctx.node().GetString("mode", "constant");
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap" && ctx.opset() >= 19) return PadMode::kWrap;
  return ctx.Error("unsupported mode '" + mode + "'");
}

// The constant mode's fill value as one element of dtype `dt` (0 when not given).
Expected<Tensor> ReadFillValue(const KernelContext& ctx, DType dt) {
  Tensor fill = Tensor::Zeros(dt, {});
  if (ctx.opset() < 11) {
    if (dt == DType::kString) return ctx.Unsupported("string input before opset 11");
    Status st = StoreDouble(dt, fill.raw_mutable_data(), ctx.node().GetFloat("value", 0.0f));
    if (!st.ok()) return ctx.Annotate(std::move(st));
  } else if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
    const Tensor& cv = ctx.input(2);
    if (cv.dtype() != dt)
      return ctx.Error(std::string("constant_value dtype ") + DTypeName(cv.dtype()) +
                       " differs from data dtype " + DTypeName(dt));
    if (cv.numel() != 1) return ctx.Error("constant_value must have one element");
    fill = cv.Contiguous();
  }
  return fill;
}

// Negative pads crop `x` first (a view, then densified); `before` / `after` receive the
// non-negative pads that remain. Errors: a crop larger than its axis.
Expected<Tensor> CropNegativePads(const KernelContext& ctx, const Tensor& x,
                                  const std::vector<int64_t>& pads, std::vector<int64_t>* before,
                                  std::vector<int64_t>* after) {
  const int rank = x.rank();
  Layout l = x.layout();
  before->assign(static_cast<size_t>(rank), 0);
  after->assign(static_cast<size_t>(rank), 0);
  for (int d = 0; d < rank; ++d) {
    const int64_t b = pads[static_cast<size_t>(d)], e = pads[static_cast<size_t>(d) + static_cast<size_t>(rank)];
    const int64_t dim = l.dim(d);
    const int64_t start = b < 0 ? -b : 0;
    const int64_t stop = e < 0 ? dim + e : dim;
    if (-b > dim || -e > dim || dim + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0) < 0)
      return ctx.Error("pads " + std::to_string(b) + "," + std::to_string(e) +
                       " crop more than dim " + std::to_string(dim) + " of axis " +
                       std::to_string(d));
    if (b < 0 || e < 0) {
      const int64_t count = std::max<int64_t>(stop - start, 0);
      auto sl = l.Slice(d, count > 0 ? start : 0, 1, count);
      if (!sl.ok()) return ctx.Annotate(sl.take_status());
      l = std::move(sl).value();
    }
    (*before)[static_cast<size_t>(d)] = std::max<int64_t>(b, 0);
    (*after)[static_cast<size_t>(d)] = std::max<int64_t>(e, 0);
  }
  return x.WithLayout(l).Contiguous();
}

// Writes `out` (rank >= 1) from the cropped, contiguous `x`, row by row: a row whose outer
// index falls in a constant border is a copy of the fill row; any other row is a left border,
// one copy of the source row and a right border.
void WritePadded(const Tensor& x, const Tensor& fill, const std::vector<int64_t>& before,
                 PadMode mode, Tensor& out) {
  const DType dt = x.dtype();
  const Shape& out_shape = out.shape();
  const int rank = x.rank();
  std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d)
    maps[static_cast<size_t>(d)] = PadIndexMap(x.dim(d), before[static_cast<size_t>(d)],
                                               out_shape[static_cast<size_t>(d)], mode);
  const std::vector<int64_t> istr = RowMajorStrides(x.shape());
  const size_t last = static_cast<size_t>(rank - 1);
  const int64_t out_row = out_shape[last], in_row = x.dim(rank - 1);
  const int64_t left = before[last], right = out_row - left - in_row;
  const std::vector<int64_t>& lmap = maps[last];
  // One output row of the constant: constant rows and constant borders are single copies.
  // Only the constant mode reads it (the other modes fill every border from the source).
  Tensor fill_row;
  if (mode == PadMode::kConstant) {
    fill_row = Tensor::Empty(dt, {out_row});
    for (int64_t k = 0; k < out_row; ++k)
      CopyElems(dt, ElemPtr(fill_row.raw_mutable_data(), dt, k), fill.raw_data(), 1);
  }
  const void* fill_p = mode == PadMode::kConstant ? fill_row.raw_data() : nullptr;
  const int64_t rows = out.numel() / out_row;
  std::vector<int64_t> idx(last, 0);
  for (int64_t r = 0; r < rows; ++r) {
    void* dst = ElemPtr(out.raw_mutable_data(), dt, r * out_row);
    int64_t src_off = 0;
    bool constant_row = false;
    for (size_t d = 0; d < last && !constant_row; ++d) {
      const int64_t s = maps[d][static_cast<size_t>(idx[d])];
      constant_row = s < 0;
      src_off += s * istr[d];
    }
    if (constant_row) {
      CopyElems(dt, dst, fill_p, out_row);
    } else {
      const void* src = ElemPtr(x.raw_data(), dt, src_off);
      if (mode == PadMode::kConstant) {
        CopyElems(dt, dst, fill_p, left);
        CopyElems(dt, ElemPtr(dst, dt, left + in_row), fill_p, right);
      } else {
        for (int64_t k = 0; k < left; ++k)
          CopyElems(dt, ElemPtr(dst, dt, k), ElemPtr(src, dt, lmap[static_cast<size_t>(k)]), 1);
        for (int64_t k = left + in_row; k < out_row; ++k)
          CopyElems(dt, ElemPtr(dst, dt, k), ElemPtr(src, dt, lmap[static_cast<size_t>(k)]), 1);
      }
      CopyElems(dt, ElemPtr(dst, dt, left), src, in_row);
    }
    for (int d = static_cast<int>(last) - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < out_shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

Status PadCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor xin, ctx.RequireTensor(0));
  const Tensor x0 = StridedForm(xin);
  const int rank = x0.rank();
  const DType dt = x0.dtype();
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ReadPads(ctx, rank));
  VT_ASSIGN_OR_RETURN(PadMode mode, ReadPadMode(ctx));
  Tensor fill = Tensor::Zeros(dt, {});
  if (mode == PadMode::kConstant) {
    VT_ASSIGN_OR_RETURN(fill, ReadFillValue(ctx, dt));
  }
  std::vector<int64_t> before, after;
  VT_ASSIGN_OR_RETURN(Tensor x, CropNegativePads(ctx, x0, pads, &before, &after));
  Shape out_shape(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int64_t in = x.dim(d), b = before[static_cast<size_t>(d)], e = after[static_cast<size_t>(d)];
    out_shape[static_cast<size_t>(d)] = in + b + e;
    if (in == 0 && b + e > 0 && mode != PadMode::kConstant)
      return ctx.Error("cannot pad an empty axis " + std::to_string(d) + " in " +
                       ctx.node().GetString("mode", "constant") + " mode");
  }
  VT_RETURN_IF_ERROR(CheckOutputShape(ctx, out_shape));
  Tensor out = ctx.AllocOutput(0, dt, out_shape);
  if (out.numel() == 0) return Status::Ok();
  if (rank == 0) {
    CopyElems(dt, out.raw_mutable_data(), x.raw_data(), 1);
    return Status::Ok();
  }
  WritePadded(x, fill, before, mode, out);
  return Status::Ok();
}

VT_REGISTER_OP("", "Pad", 1, kMaxOpset, PadCompute);

}  // namespace
}  // namespace vt::ops
