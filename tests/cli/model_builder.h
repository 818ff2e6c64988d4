// Builds small ONNX models and tensor files with the onnx protobuf classes, so CLI tests can
// write exactly the malformed bytes they need (libonnx-dev's <onnx/onnx_pb.h>).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vt::testing {

// A float tensor proto with raw_data holding `values` (little-endian, as on x86/ARM hosts).
onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<float>& values);
onnx::TensorProto Int64Tensor(const std::string& name, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& values);

// Declares a float tensor graph input/output `name` with fixed dims.
void AddFloatIO(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims);

// y = Add(x, w): x float[2,3] input, w float[2,3] initializer = {1..6}, opset 13, IR 8.
// The smallest model that exercises the importer, a kernel and initializers.
onnx::ModelProto AddModel();

// y = MatMul(x, w): x float[4,64] input, w float[64,128] initializer with 17 levels per column
// (i % 17 - 8): one weight that `compile` packs, and that int4 blocks cannot hold exactly.
onnx::ModelProto MatMulModel();

// Writes `bytes` / a serialized message to `path`; aborts the test binary on I/O failure since
// nothing sensible can follow.
void WriteBytes(const std::string& path, const std::string& bytes);
void WriteProto(const std::string& path, const google::protobuf::MessageLite& msg);

// A fresh empty directory under the test temp dir.
std::string MakeTempDir(const std::string& tag);

}  // namespace vt::testing
