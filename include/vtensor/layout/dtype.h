// Scalar element types of logical tensors. Numbering follows ONNX TensorProto.DataType
// (onnx.proto, "DataType") so that conversion from/to the file format is the identity.
// Block-quantized and sub-byte physical encodings live in layout/encoding.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace vt {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// Bytes per element (0 for kUndefined; sizeof(std::string) for kString, whose elements are
// std::string objects in memory).
size_t DTypeSize(DType t);
// Lower-case ONNX-style name: "float32", "int64", "string", "float16", "bfloat16", ...
const char* DTypeName(DType t);
// True when `v` is a DataType value this runtime knows.
bool IsKnownDType(int32_t v);
bool IsFloatDType(DType t);    // f16, bf16, f32, f64
bool IsIntegerDType(DType t);  // signed and unsigned integers (not bool)
bool IsSignedDType(DType t);

// IEEE binary16 <-> binary32, round-to-nearest-even, NaN/Inf preserved.
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
// bfloat16 <-> binary32, round-to-nearest-even, NaN kept quiet.
inline float BFloat16ToFloat(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t FloatToBFloat16(float f);

// Storage types for 16-bit floats, distinct from uint16_t so templates can dispatch.
struct Float16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

}  // namespace vt
