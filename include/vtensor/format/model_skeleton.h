// The zero-copy parse of a model file for loading (docs/design.md "§3.1 Capture (import)"):
// protobuf copies every bytes field it parses, so a stock ModelProto parse writes the whole
// weight payload into fresh memory. A skeleton parse scans the file's wire format first and
// leaves each large raw_data payload in the memory-mapped file: the ModelProto it builds (the
// skeleton) holds, in place of such a payload, a short token naming it, and TensorFromProto
// (format/tensor_proto.h) turns the token back into a tensor whose storage borrows the mapping.
//
// Scanned (the places the importer reads tensors from): ModelProto.graph and .functions;
// GraphProto.initializer, .sparse_initializer and .node; NodeProto.attribute; the attribute
// fields t, tensors, sparse_tensor, sparse_tensors, g and graphs; SparseTensorProto.values and
// .indices; FunctionProto.node and .attribute_proto. Every other field is kept byte for byte.
//
// A skeleton is for loading only: its elided tensors read as a token, not their bytes, without
// the payload table, so a path that writes or digests a ModelProto (compile, export, checker,
// `digest`) parses the whole file instead (ReadCompiledModel, ParseModelFile).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/file.h"
#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace vt {

// raw_data payloads of at least this many bytes are left in the file.
inline constexpr size_t kElideMinBytes = 4096;
// The same under SkeletonScope::kSources: a plan hit reads few of the source tensors (most
// stand folded into the plan's own tensors: batch norms into convolutions, ...), so copying
// each small one out of the file, twice (skeleton bytes, then the tensor), only costs fresh
// pages; a view the session reads after all is aligned then (ImportOptions::keep_misaligned).
inline constexpr size_t kSourcesElideMinBytes = 64;
// Bytes of the token standing for an elided payload in the skeleton's raw_data.
inline constexpr size_t kElidedTokenBytes = 16;

// The payloads a skeleton parse left in the mapped file. A token is a per-parse random nonce
// (8 bytes) and the payload's index (8 bytes, little-endian), so no bytes of a file can pass
// for one.
class ElidedPayloads {
 public:
  struct Span {
    uint64_t offset = 0;  // in the file
    uint64_t length = 0;
  };
  explicit ElidedPayloads(std::shared_ptr<MappedFile> file);

  // Appends a payload; returns its token.
  std::string Add(uint64_t offset, uint64_t length);
  // The payload a raw_data value stands for, or null when it is no token of this table.
  const Span* Find(std::string_view raw_data) const;

  const std::shared_ptr<MappedFile>& file() const { return file_; }
  size_t size() const { return spans_.size(); }

 private:
  std::shared_ptr<MappedFile> file_;
  uint64_t nonce_ = 0;
  std::vector<Span> spans_;
};

// A parsed skeleton.
struct ModelSkeleton {
  std::unique_ptr<onnx::ModelProto> proto;       // fields 27-30 not included
  std::shared_ptr<const ElidedPayloads> elided;  // the table the tokens name
  // Fields 27-30 (compiled tensors, session plans) when asked for; null when absent or malformed.
  std::shared_ptr<const vtensor::ModelExtension> ext;
  std::string ext_error;  // why the fields were malformed ("" when not)
  // The external data file of every scanned tensor whose data_location is EXTERNAL (the main
  // graph's initializers, tensors nested in its nodes' attributes at any depth: subgraph
  // initializers and nodes, Constant values, tensor attributes; the functions'), resolved
  // against the model's directory as the importer resolves them (ExternalDataDir). The same
  // set under either SkeletonScope: nodes kSources leaves out are scanned for it too. What a
  // verification memo keys on besides the model (runtime/session_plan.h MemoSourceFiles): a
  // subgraph's tensors are no source tensors, yet a session plan stores them. nullopt when the
  // file needed the stock parse (groups), which does not list them.
  std::optional<std::set<std::string>> external_data_files;
};

// The directory the external data locations of the model at `model_path` resolve against (the
// importer's ExternalDataResolver, format/tensor_proto.h): its directory, "." for a bare name
// or "". A location's file is JoinPath(dir, location).
std::string ExternalDataDir(const std::string& model_path);

// What of the model a skeleton holds.
enum class SkeletonScope {
  kWhole,    // every field
  // Of the main graph only its name, inputs, outputs, initializers, Constant nodes of the
  // default domain and nodes of other domains (calls of local functions, which the import
  // inlines): what holds the source tensors a session plan refers to (graph/plan_graph.h
  // SourceTensors), all that a plan hit under the memo reads of the source graph
  // (docs/compiled-tensors.md, "Loading rules"). Its other nodes and value_info are checked as
  // wire format and left out. Every other field of the model is kept.
  kSources,
  // Of the main graph only its name, doc_string, inputs, outputs and other fields but its
  // nodes, initializers and value_info (those are checked as wire format and left out): the
  // model-level facts a session plan hit needs when the plan lists its source tensors' places
  // itself (docs/compiled-tensors.md, "Loading rules"). Every other field of the model is kept.
  kModel,
};

// Parses `file` (the model at `path`) as a skeleton. `with_extension`: also parse fields 27-30
// into `ext` (a malformed extension is `ext_error`, not an error). Errors: InvalidArgument
// "PATH: not a valid ONNX ModelProto (protobuf parse failed: truncated or corrupted file)",
// followed by where the scan stopped (the field path, the tensor's name when known) for bytes
// that are no ModelProto; files over 2 GiB.
Expected<ModelSkeleton> ParseModelSkeleton(std::shared_ptr<MappedFile> file,
                                           const std::string& path, bool with_extension,
                                           SkeletonScope scope = SkeletonScope::kWhole);

// A parsed TensorProto file (a test data set's input_N.pb or output_N.pb, a --input file).
struct TensorSkeleton {
  std::unique_ptr<onnx::TensorProto> proto;
  std::shared_ptr<const ElidedPayloads> elided;  // the table its raw_data token names
};

// Parses `file` (the serialized TensorProto at `path`) as a skeleton: a raw_data payload of at
// least kElideMinBytes, when the field occurs once, stays in the mapped file, so that loading a
// large input costs one copy at most (TensorFromProto with `elided` borrows an aligned payload
// and copies a misaligned one) instead of three (read, parse, tensor). Errors: InvalidArgument
// "PATH: not a valid ONNX TensorProto (truncated or corrupted)", followed by where the scan
// stopped (the field, the tensor's name when known); files over 2 GiB.
Expected<TensorSkeleton> ParseTensorSkeleton(std::shared_ptr<MappedFile> file,
                                             const std::string& path);

// Where the main graph's source tensors' bytes stand in a serialized ModelProto (graph/
// plan_graph.h SourceTensors: the initializers, then the `value` of each Constant node of the
// default domain, named after its output): `in_file`, the span of each one's raw_data from
// kSourcesElideMinBytes on, offsets from `data`; `external`, those whose data_location is
// EXTERNAL. Both empty for a model the skeleton scan cannot read (groups).
struct SourceSpans {
  std::map<std::string, ElidedPayloads::Span> in_file;
  std::set<std::string> external;
};
// Errors: InvalidArgument as ParseModelSkeleton's, naming `path`.
Expected<SourceSpans> SourcePayloadSpans(const uint8_t* data, size_t size, const std::string& path);

// Whether the model's top-level fields include session plans (field 30), read from the wire
// format without parsing the graph (its bytes are skipped). False for bytes that are no
// ModelProto (the parse then says why).
bool HasSessionPlans(const MappedFile& file);

}  // namespace vt
