// Encoding: what an element or a block of elements means in physical memory (docs/design.md §2,
// "Encoding").
//
// Scalar encodings store one element per unit (f32, f16, bf16, i8, u8, and the float8 codes
// f8e4m3fn, f8e4m3fnuz, f8e5m2, f8e5m2fnuz). Sub-byte encodings store two elements per byte,
// element 2k in the low nibble (i4/u4/f4e2m1, as ONNX INT4/UINT4/FLOAT4E2M1 raw_data does).
// Block encodings store `block_elems` consecutive elements of one logical row with their own
// scale (and zero point / min) in a fixed-size struct:
//   q8_0   32 x int8 + f16 scale                      x = d * q
//   q4_0   32 x int4 + f16 scale                      x = d * (q - 8)
//   q4zp32 32 x uint4 + f32 scale + uint4 zero point  x = scale * (q - zp)   (ONNX blocked
//          DequantizeLinear / com.microsoft MatMulNBits with block_size 32, interleaved)
//   q4_k   256-element super-block: 8 sub-blocks of 32 with 6-bit scales and mins, f16 d/dmin
//          x = d * sc * q - dmin * m
// Every format is added in one place: the traits table in src/layout/encoding.cc (its facts are
// read there by the export, the checker and the layout text). The one switch elsewhere, the
// portable decoder generator (src/format/struct_decoder.cc), lists every encoding without a
// default, so the compiler names it when a format is added.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "vtensor/layout/dtype.h"

namespace vt {

enum class Encoding : uint8_t {
  kUnspecified = 0,  // element type given elsewhere (a runtime Tensor's dtype)
  kF32,
  kF16,
  kBF16,
  kI8,
  kU8,
  kI4,
  kU4,
  kQ8_0,
  kQ4_0,
  kQ4Zp32,
  kQ4_K,
  kF8E4M3FN,
  kF8E4M3FNUZ,
  kF8E5M2,
  kF8E5M2FNUZ,
  kF4E2M1,
  kCount,  // number of encodings; not an encoding
};

// Conversion between `n` logical elements and their encoded bytes. `n` need not be a multiple
// of block_elems: to_float writes only n values, from_float zero-fills the tail of the last
// block. from_float picks scales as documented per format (round to nearest, ties to even for
// scalars; amax-based for block formats).
using ToFloatFn = void (*)(const void* src, float* dst, int64_t n);
using FromFloatFn = void (*)(const float* src, void* dst, int64_t n);

struct EncodingTraits {
  Encoding id;
  const char* name;      // stable text name used in layouts, protos and the CLI ("q4_0")
  int32_t block_elems;   // logical elements per block (1 scalar, 2 for i4/u4)
  int32_t block_bytes;   // bytes per block
  bool has_scale;        // a block format with its own scale: blocks never straddle rows
  bool lossless;         // to_float(from_float(x)) == x for every x the encoding can hold
  DType dtype;           // ONNX element type of a scalar/sub-byte encoding; kUndefined otherwise
  ToFloatFn to_float;
  FromFloatFn from_float;
  // Block formats: the encoding of the scale each block carries (kF16, kF32); kUnspecified
  // without one. `zero_point`: blocks also carry a zero point (or a min).
  Encoding scale_encoding;
  bool zero_point;
  // Worst-case decode error relative to the tensor's largest |value| when a float32 source is
  // stored in this encoding (0: exact), and the same for a plane of quantized values stored
  // beside separate scales (i4/u4/i8/u8 planes: half a quantization step of (max - min) over the
  // levels). The checker's --decode tolerance (format/model_checker.h).
  float decode_error;
  float plane_error;
};

// Traits of `e` (e != kCount). For kUnspecified: block 1, bytes 0, null functions.
const EncodingTraits& GetEncodingTraits(Encoding e);
// Name lookup; nullopt for unknown names. Inverse of GetEncodingTraits(e).name.
std::optional<Encoding> EncodingFromName(std::string_view name);
// Scalar encoding of an ONNX element type (f32/f16/bf16/i8/u8/f8*); nullopt for others.
std::optional<Encoding> EncodingFromDType(DType t);
// Bytes needed to store `n` elements: ceil(n / block_elems) * block_bytes.
int64_t EncodedBytes(Encoding e, int64_t n);

// ---- Block structs (byte layouts are part of the file format: sizes are asserted) ----

constexpr int kQ8_0Elems = 32;
struct BlockQ8_0 {
  uint16_t d;  // f16 scale
  int8_t qs[kQ8_0Elems];
};
static_assert(sizeof(BlockQ8_0) == 34, "q8_0 block is 34 bytes");

constexpr int kQ4_0Elems = 32;
struct BlockQ4_0 {
  uint16_t d;                   // f16 scale
  uint8_t qs[kQ4_0Elems / 2];   // byte j: element j in low nibble, element j+16 in high nibble
};
static_assert(sizeof(BlockQ4_0) == 18, "q4_0 block is 18 bytes");

// ONNX blocked int4 (DequantizeLinear block_size=32 along the reduction axis, MatMulNBits
// bits=4 block_size=32) with the three planes interleaved per block. The quantized values keep
// ONNX's packing: byte j holds element 2j (low nibble) and 2j+1 (high nibble).
constexpr int kQ4Zp32Elems = 32;
struct BlockQ4Zp32 {
  float scale;
  uint8_t zero_point;  // 0..15; 8 when the model has no zero-point input
  uint8_t reserved[3];
  uint8_t qs[kQ4Zp32Elems / 2];
};
static_assert(sizeof(BlockQ4Zp32) == 24, "q4zp32 block is 24 bytes");

// Q4_K super-block: 8 sub-blocks of 32 elements. scales[12] packs 8 six-bit scales and 8
// six-bit mins: for j < 4, scale j = scales[j] & 63 and min j = scales[j+4] & 63; for j >= 4,
// scale j = (scales[j+4] & 15) | ((scales[j-4] >> 6) << 4) and
// min j = (scales[j+4] >> 4) | ((scales[j] >> 6) << 4). qs holds 4 groups of 32 bytes; group g
// stores sub-block 2g in the low nibbles and sub-block 2g+1 in the high nibbles.
constexpr int kQ4_KElems = 256;
struct BlockQ4_K {
  uint16_t d;     // f16 super-scale of the sub-block scales
  uint16_t dmin;  // f16 super-scale of the sub-block mins
  uint8_t scales[12];
  uint8_t qs[kQ4_KElems / 2];
};
static_assert(sizeof(BlockQ4_K) == 144, "q4_k block is 144 bytes");

// Sub-block scale and min of a Q4_K block, j in [0, 8).
void Q4KScaleMin(const uint8_t* scales, int j, uint8_t* sc, uint8_t* m);

}  // namespace vt
