// A TensorProto file (ONNX backend-test data: DIR/input_N.pb, DIR/output_N.pb) decoded without
// protobuf or vtensor, for vtensor-ort-bench, which links only ONNX Runtime. It understands what
// those files use: dims, data_type, raw_data and the typed repeated fields (float_data,
// int32_data, int64_data, double_data, uint64_data), packed or not. Strings and external data
// are refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vt::ortbench {

// Element bytes of an ONNX TensorProto.DataType (the same numbering as ORT's
// ONNXTensorElementDataType); 0 for types this reader does not hold (string, undefined, ...).
size_t ElementBytes(int32_t data_type);

// Element i of a dense buffer of `data_type` as a double (integers converted, float16 and
// bfloat16 widened); NaN for a type ElementBytes does not know.
double ElementAsDouble(int32_t data_type, const void* data, int64_t i);

struct FreeDeleter {
  void operator()(void* p) const;
};

// A dense host tensor. `data` is 64-byte aligned (as vtensor aligns its inputs), little-endian,
// row-major, `bytes` = product(dims) * ElementBytes(data_type) (at least 1 byte allocated).
struct HostTensor {
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  std::unique_ptr<uint8_t, FreeDeleter> data;
  size_t bytes = 0;
  int64_t elements() const;
  double At(int64_t i) const { return ElementAsDouble(data_type, data.get(), i); }
};

// Decodes `bytes` (a serialized TensorProto). Returns "" and fills *out, or an error message.
std::string DecodeTensorProto(const uint8_t* bytes, size_t n, HostTensor* out);

// Reads and decodes the file at `path`; errors name the file.
std::string ReadTensorProtoFile(const std::string& path, HostTensor* out);

}  // namespace vt::ortbench
