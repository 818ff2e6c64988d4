// Planar block-quantized int4 weights: the physical form of ONNX blocked
// DequantizeLinear (opset 21, axis 1, block_size B) and com.microsoft MatMulNBits (bits 4),
// as one struct type with separate planes instead of interleaved blocks (compare the q4zp32
// encoding, layout/encoding.h):
//   quantized    i4 [N, K] (symmetric) or u4 [N, K] (with zero points), ONNX INT4 packing:
//                row-major elements, element 2j in the low nibble of byte j
//   scales       f32 or f16 [N, ceil(K / B)]
//   zero_points  u4 [N, ceil(K / B)] (only when zero_point is set)
// Each field starts 64-byte aligned, in that order. Row n, block b covers elements
// k in [b*B, min(K, (b+1)*B)); x[n, k] = scales[n, b] * (quantized[n, k] - zero_points[n, b])
// (zero point 0 without the plane), exactly DequantizeLinear's formula. The type has no Layout
// (several planes); its logical shape is its decoder's output: [K, N] (the MatMul right
// operand W, x transposed) or [N, K] when logical_kn is false.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/layout/encoding.h"

namespace vt {

struct PlanarBlockQuantSpec {
  int64_t n = 0;           // rows of the quantized plane (MatMulNBits N), >= 1
  int64_t k = 0;           // quantized axis length (K), >= 1
  int64_t block_size = 32; // elements per block along K, >= 1
  bool zero_point = false; // false: i4, symmetric; true: u4 with a u4 zero-point plane
  Encoding scale_encoding = Encoding::kF32;  // kF32 or kF16
  bool logical_kn = true;  // logical tensor is [K, N] (transposed planes) rather than [N, K]
};

// The struct type (name, format_version, three or two fields, byte_size, doc_string) with its
// portable decoder (struct_decoder.h contract: inputs quantized/scales[/zero_points], output
// float32 logical tensor; standard opset-13 ops only, since INT4 tensors and blocked
// DequantizeLinear need opset 21). Errors: InvalidArgument naming the bad spec member.
Expected<vtensor::StructTypeProto> PlanarBlockQuantType(const PlanarBlockQuantSpec& spec,
                                                        const std::string& name,
                                                        int64_t format_version = 1);

// Quantizes the logical tensor (row-major, shape as spec.logical_kn says) into a payload of the
// type's byte_size. Per block: symmetric scale = amax / 7, q = round(x / scale) clamped to
// [-8, 7]; with zero points scale = (max(0, max) - min(0, min)) / 15, zp = round(-min / scale),
// q = round(x / scale) + zp clamped to [0, 15]; the scale is rounded to scale_encoding first,
// so |x - decoded| <= scale / 2 per element. Errors: InvalidArgument for a bad spec, a NaN or
// infinite value (naming its logical index) or a scale not finite in scale_encoding.
Expected<std::vector<uint8_t>> PackPlanarBlockQuant(const float* logical,
                                                    const PlanarBlockQuantSpec& spec);

// Reference dequantization of a payload (the decoder's scalar twin): the logical tensor in
// row-major order. Errors: InvalidArgument for a bad spec or fewer than byte_size bytes.
Expected<std::vector<float>> UnpackPlanarBlockQuant(const uint8_t* bytes, size_t size,
                                                    const PlanarBlockQuantSpec& spec);

}  // namespace vt
