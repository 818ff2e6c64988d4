// Spatial geometry shared by Conv, ConvTranspose and the pooling operators: kernel, strides,
// dilations, explicit pads or auto_pad, and the output extent (ONNX Operators.md, Conv and
// MaxPool "auto_pad", "pads", "ceil_mode").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/exec/kernel.h"

namespace vt::ops {

struct SpatialGeometry {
  std::vector<int64_t> in;         // input extent per spatial axis
  std::vector<int64_t> kernel;     // kernel extent (undilated)
  std::vector<int64_t> stride;
  std::vector<int64_t> dilation;
  std::vector<int64_t> pad_begin;  // may exceed the kernel for explicit pads
  std::vector<int64_t> pad_end;
  std::vector<int64_t> out;

  size_t rank() const { return in.size(); }
  int64_t out_numel() const;
  int64_t kernel_numel() const;
};

// Forward geometry (Conv, pooling). Reads strides, dilations (when `with_dilations`), pads and
// auto_pad from `node`; `kernel` comes from the weight shape or kernel_shape. Pooling with
// ceil_mode rounds the output up, dropping a last window that would start in the end padding.
// Errors: InvalidArgument naming the node for wrong attribute lengths, non-positive strides
// or dilations, negative pads, unknown auto_pad, or an empty/negative output extent.
Expected<SpatialGeometry> ComputeForwardGeometry(const KernelContext& ctx,
                                                 const std::vector<int64_t>& in,
                                                 const std::vector<int64_t>& kernel,
                                                 bool with_dilations, bool ceil_mode);

// Transposed-convolution geometry (ConvTranspose): `in` is X's spatial extent, the output
// extent per axis is output_shape[i] when given, else
//   stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end,
// with auto_pad SAME_* meaning out = in * stride. With output_shape or SAME_*, the total
// padding stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - out is split as the
// spec says: SAME_UPPER puts the odd element at the end, otherwise at the beginning (pad_end
// holds the rest). Errors: InvalidArgument naming the node for wrong attribute lengths,
// non-positive strides or dilations, unknown auto_pad or a negative output extent.
Expected<SpatialGeometry> ComputeTransposedGeometry(const KernelContext& ctx,
                                                    const std::vector<int64_t>& in,
                                                    const std::vector<int64_t>& kernel);

}  // namespace vt::ops
