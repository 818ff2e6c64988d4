// Scalar element types of logical tensors. Numbering follows ONNX TensorProto.DataType
// (onnx.proto, "DataType") so that conversion from/to the file format is the identity.
// Block-quantized and sub-byte physical encodings live in layout/encoding.h.
//
// The 8-bit floats (float8e4m3fn .. float8e5m2fnuz) hold their one-byte codes; their values are
// given by layout/minifloat.h. The 4-bit types (uint4, int4, float4e2m1) are stored in a Tensor
// UNPACKED, one element per byte (int4 sign-extended to int8, uint4 as uint8 0..15, float4e2m1
// as its 4-bit code in the low nibble), so strides, slicing and every data-movement kernel work
// on them unchanged; ONNX's packed form (two per byte, element 2j in the low nibble of byte j)
// exists only at the file boundary: import unpacks, export and digests pack (layout/nibble_pack.h,
// docs/dtypes.md).
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
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
};

// Bytes per element in memory (0 for kUndefined; sizeof(std::string) for kString, whose
// elements are std::string objects in memory; 1 for the unpacked 4-bit types).
size_t DTypeSize(DType t);
// Lower-case ONNX-style name: "float32", "int64", "string", "float16", "bfloat16",
// "float8e4m3fn", "int4", "float4e2m1", ...
const char* DTypeName(DType t);
// True when `v` is a DataType value this runtime knows.
bool IsKnownDType(int32_t v);
bool IsFloatDType(DType t);    // f16, bf16, f32, f64
bool IsIntegerDType(DType t);  // signed and unsigned integers (not bool)
bool IsSignedDType(DType t);
bool IsFloat8DType(DType t);   // the four float8 types (17..20)
// uint4, int4, float4e2m1: packed two per byte in ONNX files, one per byte in memory.
bool IsSubByteDType(DType t);
// Bytes of `n` elements in ONNX's file form: ceil(n / 2) for the 4-bit types, n * size else.
size_t DTypeFileBytes(DType t, int64_t n);

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
