// The graph of a session plan (docs/compiled-tensors.md, "Session plans"): a Graph written as
// typed plan messages (format/vtensor_ext.proto PlanGraphProto) and read back into an equal
// Graph, and the digests that key a plan to its source graph.
//
// Equal means: the same nodes in the same order (name, op type, domain, opset, inputs,
// outputs, every attribute, subgraphs included), the same inputs, outputs and static types
// (Graph::values, metadata included) and initializers of the same names, types and bytes. A
// session built from the read graph therefore prepares the same kernels as one built from the
// written graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "vtensor/base/status.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/graph/graph.h"

namespace vt {

// The tensors of a source graph a plan refers to instead of storing them: the main graph's
// initializers, and the `value` of each of its Constant nodes, named after the node's output
// (models that keep their weights in Constant nodes fold them into initializers of that name).
std::map<std::string, Tensor> SourceTensors(const Graph& g);

// Stored tensors (but string and empty ones) go, when the writer is given `blobs`, to that
// buffer at this alignment (PlanBlobProto); the plan payload puts them ahead of the graph.
inline constexpr size_t kPlanBlobAlign = 64;

// The tensor bytes of a plan payload (ahead of its graph), kept alive by `keep_alive`.
struct PlanBlobs {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
  // Blobs at any address are borrowed, not only 64-byte aligned ones: for the raw_data of a
  // model file's tensors (SourcesToPlan), which the session aligns where it reads them.
  bool borrow_misaligned = false;
};

// Where a tensor's bytes stand in a file: [offset, offset + length).
struct PlanFileSpan {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Writes `g` into `p`. Main-graph initializers and Constant-node values equal to the tensor of
// the same name in `source` (SourceTensors of the source graph: type, shape and bytes; may be
// null) are written as references to it, every other tensor with its bytes. Subgraph tensors
// are always written with their bytes: in `blobs` (when given, for every tensor but string
// and empty ones, 64-byte aligned offsets into it), else as a serialized TensorProto.
// `referred`, when given, receives the names of the source tensors written as references.
void GraphToPlan(const Graph& g, const std::map<std::string, Tensor>* source,
                 vtensor::PlanGraphProto* p, std::string* blobs = nullptr,
                 std::set<std::string>* referred = nullptr);

// Writes `tensors` (source tensors a plan refers to) as the initializers of a graph named
// "sources" (docs/compiled-tensors.md "Session plans"): each one whose bytes are the span
// `in_file` names (the raw_data of its TensorProto in the model file, of its type's size) as a
// blob of that file, every other one as a serialized TensorProto. Read back by GraphFromPlan
// with the model file's bytes as `blobs` (borrow_misaligned).
void SourcesToPlan(const std::map<std::string, Tensor>& tensors,
                   const std::map<std::string, PlanFileSpan>& in_file,
                   vtensor::PlanGraphProto* p);

// Reads a graph written by GraphToPlan from the serialized PlanGraphProto [data, data + size),
// in place: no plan messages are built (graph/plan_wire.h). References resolve against
// `source` (SourceTensors of the source graph); blob tensors are read from `blobs`, in place
// when 64-byte aligned, else copied. Errors: InvalidArgument naming ctx.file, the graph and
// the field: bytes that are not the wire format of the plan messages, a reference to a
// missing source tensor or one of another type or shape, a blob outside `blobs` or of another
// size than its type, an unknown type or kind number, a tensor that does not parse.
Expected<std::shared_ptr<Graph>> GraphFromPlan(const uint8_t* data, size_t size,
                                               const std::map<std::string, Tensor>& source,
                                               const PlanBlobs& blobs, const Graph* parent,
                                               const TensorContext& ctx);

// "xxh3-128:HEX" of the graph's structure: GraphToPlan with every source tensor (main-graph
// initializers and Constant-node values) written as a reference (name, type and dims, not its
// bytes), serialized.
std::string GraphStructureDigest(const Graph& g);

// "xxh3-128:HEX" of the source tensors (SourceTensors): for each in name order its name, data
// type, dims and bytes (string tensors as their serialized TensorProto).
std::string InitializerDigest(const Graph& g);

}  // namespace vt
