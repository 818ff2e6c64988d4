// Graph IR: nodes, values with TensorSpecs, initializers and nested subgraphs (docs/design.md §3.2).
// Built by the ONNX importer (format/onnx_import.h); consumed by passes and the runtime.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/type_info.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

class Graph;

// A node attribute (ONNX AttributeProto). Only the member matching `type` is meaningful.
struct Attribute {
  enum class Type { kUndefined, kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts,
                    kStrings, kTensors, kGraphs, kTypeProto, kTypeProtos, kSparseTensor };
  std::string name;
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  TypeInfo tp;
  std::vector<TypeInfo> tps;
};

struct Node {
  std::string name;     // may be empty in the file; the importer fills "<op_type>_<index>"
  std::string op_type;
  std::string domain;   // "" for the default ONNX domain ("ai.onnx" is normalised to "")
  int64_t opset = 0;    // opset version of `domain` imported by the model
  std::vector<std::string> inputs;   // "" = absent optional input
  std::vector<std::string> outputs;  // "" = unused optional output
  std::map<std::string, Attribute> attrs;

  const Attribute* FindAttr(const std::string& n) const {
    auto it = attrs.find(n);
    return it == attrs.end() ? nullptr : &it->second;
  }
  int64_t GetInt(const std::string& n, int64_t def) const;
  float GetFloat(const std::string& n, float def) const;
  std::string GetString(const std::string& n, const std::string& def) const;
  std::vector<int64_t> GetInts(const std::string& n) const;  // empty when absent
  std::vector<float> GetFloats(const std::string& n) const;
  std::vector<std::string> GetStrings(const std::string& n) const;
  // "node 'name' (op_type, opset N)" for error messages.
  std::string Describe() const;
};

struct GraphIO {
  std::string name;
  TensorSpec spec;
};

class Graph {
 public:
  std::string name;
  std::vector<Node> nodes;       // in file order; see TopologicalOrder()
  std::vector<GraphIO> inputs;   // includes initializers listed as inputs (IR < 4)
  std::vector<GraphIO> outputs;
  std::map<std::string, Tensor> initializers;
  // Static types of every named value known to the importer or shape propagation.
  std::unordered_map<std::string, TensorSpec> values;
  const Graph* parent = nullptr;  // enclosing graph for subgraphs (outer-scope lookup)

  // Node indices in an order where every producer precedes its consumers. Values that no
  // node produces must be graph inputs, initializers or (for subgraphs) outer-scope names.
  // Errors: InvalidArgument naming the node for a cycle or an undefined input.
  Expected<std::vector<size_t>> TopologicalOrder() const;

  // Graph inputs that are not initializers (the values a caller feeds).
  std::vector<const GraphIO*> RealInputs() const;
  // True when `name` is visible here: input, initializer, node output, or in a parent.
  bool IsVisible(const std::string& name) const;
  // The initializer `name` resolves to from this scope (own or enclosing graphs), or null when
  // a graph input or node output of a nearer scope shadows it or it is not an initializer.
  const Tensor* FindInitializer(const std::string& name) const;
  // Stores `t` as initializer `name` (replacing one of that name) with its static type (dtype,
  // fixed shape, identity `name`) in `values`, as the passes that create constants need.
  void SetInitializer(const std::string& name, Tensor t);
};

// Names `g` (and its nested subgraphs) read from enclosing scopes.
std::vector<std::string> OuterReferences(const Graph& g);

struct Model {
  std::string path;                 // file the model was read from ("" when in memory)
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::string producer_name, producer_version;
  std::string domain;          // ModelProto.domain (reverse-DNS namespace of the model)
  int64_t model_version = 0;   // ModelProto.model_version
  std::string doc_string;      // ModelProto.doc_string
  std::string graph_doc_string;  // GraphProto.doc_string of the main graph
  std::map<std::string, std::string> metadata_props;
  std::shared_ptr<Graph> graph;
  // Model-local functions are inlined by the importer (see format/onnx_import.h).
};

}  // namespace vt
