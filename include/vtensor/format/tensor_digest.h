// Digest of an initializer's canonical content (docs/design.md §4, source_digest).
// The exact byte stream hashed and its test vectors are in docs/digest.md:
//
//   u64le data_type | u64le rank | rank x u64le dim | payload
//
// payload: the elements in row-major order, each as its ONNX raw_data bytes (little-endian;
// bool as 0/1; int4/uint4 packed two per byte, low nibble first, the unused final nibble 0);
// strings as u64le byte length + bytes. The stream is the same whether the tensor sits in
// raw_data, in a typed field (float_data, int32_data, ...) or in an external file, and it never
// includes the name, the location or the storage method.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "vtensor/base/status.h"

namespace onnx {
class TensorProto;
}

namespace vt {

class ExternalDataResolver;
class Tensor;

enum class DigestAlgorithm : uint8_t { kBlake3, kSha256 };

// "blake3" / "sha256" (the CompiledTensorProto.digest_algorithm strings).
const char* DigestAlgorithmName(DigestAlgorithm a);
std::optional<DigestAlgorithm> DigestAlgorithmFromName(std::string_view name);
// Digest length in bytes (32 for both).
size_t DigestLength(DigestAlgorithm a);

// Incremental digest over any supported algorithm. sha256 uses OpenSSL's libcrypto, loaded on
// the first sha256 Digester of the process (not linked: see docs/benchmarks.md, "Process start").
class Digester {
 public:
  explicit Digester(DigestAlgorithm a);
  ~Digester();
  Digester(const Digester&) = delete;
  Digester& operator=(const Digester&) = delete;
  void Update(const void* data, size_t n);
  // Raw digest bytes (DigestLength bytes). Call once. Errors: FailedPrecondition when sha256's
  // library cannot be loaded (naming it and dlerror's reason) or OpenSSL fails.
  Expected<std::string> Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Receives the canonical stream in pieces.
using ByteSink = std::function<void(const void* data, size_t n)>;

// Writes the canonical stream of `tp` to `sink`. `external` resolves external data (null:
// external tensors are an error); `file` names the model in messages.
// Errors (InvalidArgument / NotFound / OutOfRange naming file, tensor and field): unknown or
// undefined data_type, negative dims, a data field whose size disagrees with the dims,
// segmented tensors, external data outside its file.
Status CanonicalTensorStream(const onnx::TensorProto& tp, ExternalDataResolver* external,
                             const std::string& file, const ByteSink& sink);

// Digest of the canonical stream of `tp` (raw bytes, DigestLength long). Errors as above.
Expected<std::string> TensorProtoDigest(const onnx::TensorProto& tp, DigestAlgorithm a,
                                        ExternalDataResolver* external,
                                        const std::string& file);

// Digest of a runtime tensor (any strided layout), equal to the digest of the TensorProto it
// was loaded from. When `consumed` is set and the tensor is contiguous, its bytes are hashed in
// pieces of at most 8 MiB and `consumed(piece, bytes)` is called after each piece (the caller
// may then drop the piece's pages: verifying a mapped weight never keeps all of it resident).
// Errors: Unimplemented for an undefined dtype.
Expected<std::string> TensorDigest(const Tensor& t, DigestAlgorithm a,
                                   const ByteSink& consumed = nullptr);

}  // namespace vt
