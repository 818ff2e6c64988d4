#include "ops/nn/conv_geometry.h"

#include <algorithm>

namespace vt::ops {

int64_t SpatialGeometry::out_numel() const {
  int64_t n = 1;
  for (int64_t v : out) n *= v;
  return n;
}
int64_t SpatialGeometry::kernel_numel() const {
  int64_t n = 1;
  for (int64_t v : kernel) n *= v;
  return n;
}

namespace {
std::string Join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

Expected<SpatialGeometry> ComputeForwardGeometry(const KernelContext& ctx,
                                                 const std::vector<int64_t>& in,
                                                 const std::vector<int64_t>& kernel,
                                                 bool with_dilations, bool ceil_mode) {
  const Node& node = ctx.node();
  const size_t r = in.size();
  SpatialGeometry g;
  g.in = in;
  g.kernel = kernel;
  if (kernel.size() != r)
    return ctx.Error("kernel has " + std::to_string(kernel.size()) + " spatial dims, input " +
                     std::to_string(r));
  for (int64_t k : kernel)
    if (k <= 0) return ctx.Error("kernel_shape " + Join(kernel) + " must be positive");
  g.stride = node.GetInts("strides");
  if (g.stride.empty()) g.stride.assign(r, 1);
  g.dilation = with_dilations ? node.GetInts("dilations") : std::vector<int64_t>{};
  if (g.dilation.empty()) g.dilation.assign(r, 1);
  if (g.stride.size() != r) return ctx.Error("strides " + Join(g.stride) + " must have " + std::to_string(r) + " values");
  if (g.dilation.size() != r)
    return ctx.Error("dilations " + Join(g.dilation) + " must have " + std::to_string(r) + " values");
  for (size_t i = 0; i < r; ++i) {
    if (g.stride[i] <= 0) return ctx.Error("strides " + Join(g.stride) + " must be positive");
    if (g.dilation[i] <= 0)
      return ctx.Error("dilations " + Join(g.dilation) + " must be positive");
  }
  std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  g.pad_begin.assign(r, 0);
  g.pad_end.assign(r, 0);
  g.out.assign(r, 0);
  if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = node.GetInts("pads");
    if (!pads.empty()) {
      if (pads.size() != 2 * r)
        return ctx.Error("pads " + Join(pads) + " must have " + std::to_string(2 * r) + " values");
      for (int64_t p : pads)
        if (p < 0) return ctx.Error("pads " + Join(pads) + " must not be negative");
      for (size_t i = 0; i < r; ++i) {
        g.pad_begin[i] = pads[i];
        g.pad_end[i] = pads[i + r];
      }
    }
  } else if (auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return ctx.Error("unknown auto_pad '" + auto_pad + "'");
  }
  for (size_t i = 0; i < r; ++i) {
    const int64_t dk = (kernel[i] - 1) * g.dilation[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (in[i] + g.stride[i] - 1) / g.stride[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * g.stride[i] + dk - in[i]);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[i] = total - g.pad_begin[i];
      g.out[i] = out;
      continue;
    }
    const int64_t span = in[i] + g.pad_begin[i] + g.pad_end[i] - dk;
    if (span < 0)
      return ctx.Error("kernel extent " + std::to_string(dk) + " exceeds padded input " +
                       std::to_string(in[i] + g.pad_begin[i] + g.pad_end[i]) + " on spatial axis " +
                       std::to_string(i));
    int64_t out = span / g.stride[i] + 1;
    if (ceil_mode) {
      out = (span + g.stride[i] - 1) / g.stride[i] + 1;
      // A window must start inside the input or the leading padding.
      if ((out - 1) * g.stride[i] >= in[i] + g.pad_begin[i]) --out;
    }
    g.out[i] = out;
  }
  return g;
}

Expected<SpatialGeometry> ComputeTransposedGeometry(const KernelContext& ctx,
                                                    const std::vector<int64_t>& in,
                                                    const std::vector<int64_t>& kernel) {
  const Node& node = ctx.node();
  const size_t r = in.size();
  auto per_axis = [&](const char* name, int64_t def) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = node.GetInts(name);
    if (v.empty()) v.assign(r, def);
    if (v.size() != r)
      return ctx.Error(std::string(name) + " " + Join(v) + " must have " + std::to_string(r) +
                       " values");
    return v;
  };
  SpatialGeometry g;
  g.in = in;
  g.kernel = kernel;
  VT_ASSIGN_OR_RETURN(g.stride, per_axis("strides", 1));
  VT_ASSIGN_OR_RETURN(g.dilation, per_axis("dilations", 1));
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, per_axis("output_padding", 0));
  for (size_t i = 0; i < r; ++i)
    if (g.stride[i] <= 0 || g.dilation[i] <= 0)
      return ctx.Error("strides and dilations must be positive");
  std::vector<int64_t> pads = node.GetInts("pads");
  if (pads.empty()) pads.assign(2 * r, 0);
  if (pads.size() != 2 * r)
    return ctx.Error("pads " + Join(pads) + " must have " + std::to_string(2 * r) + " values");
  std::vector<int64_t> out_shape = node.GetInts("output_shape");
  if (out_shape.size() == r + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  if (!out_shape.empty() && out_shape.size() != r)
    return ctx.Error("output_shape " + Join(out_shape) + " must have " + std::to_string(r) +
                     " values");
  const std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER")
    return ctx.Error("unknown auto_pad '" + auto_pad + "'");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  g.out.assign(r, 0);
  g.pad_begin.assign(r, 0);
  g.pad_end.assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t full =
        g.stride[i] * (in[i] - 1) + out_pad[i] + (kernel[i] - 1) * g.dilation[i] + 1;
    if (!out_shape.empty() || same) {
      g.out[i] = !out_shape.empty() ? out_shape[i] : in[i] * g.stride[i];
      const int64_t total = std::max<int64_t>(0, full - g.out[i]);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      g.out[i] = full;
    } else {
      g.out[i] = full - pads[i] - pads[i + r];
      g.pad_begin[i] = pads[i];
    }
    g.pad_end[i] = full - g.out[i] - g.pad_begin[i];
    if (g.out[i] < 0)
      return ctx.Error("negative output extent on spatial axis " + std::to_string(i));
  }
  return g;
}

}  // namespace vt::ops
