// The StableHLO text builder and per-node conversion context (internal to src/export).
//
// Ops are written in MLIR's generic form ("stablehlo.add"(%a, %b) : (T, T) -> T) with the
// attribute syntax of the StableHLO specification (openxla/stablehlo docs/spec.md). SSA names
// are numbered once per function so nested regions never shadow. ONNX value names map to SSA
// values through a stack of scopes (one per region); initializers are materialized at first
// use in the current scope, as a stablehlo.constant or a util.global.load of an externalized
// parameter.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/graph/node_status.h"

namespace vt::hlo {

// Dynamic dims (docs/export.md, "Dynamic dims"): a dim unknown until run time is a negative
// number in a Shape, DynDimCode(k) = -(k + 1) for dynamic dim k, and every extent that equals
// dynamic dim k carries that code. Types print it as `?`.
inline bool IsDynamicDim(int64_t d) { return d < 0; }
inline int64_t DynDimCode(size_t k) { return -static_cast<int64_t>(k) - 1; }
inline size_t DynDimIndex(int64_t code) { return static_cast<size_t>(-code - 1); }
bool HasDynamicDims(const Shape& s);

struct Val {
  std::string ref;   // "%12", "%arg0"
  DType dtype = DType::kUndefined;
  Shape shape;
  std::string type;  // full MLIR type (may carry a #vt.layout encoding)
};

// How initializers are materialized (owned by the exporter, stablehlo_export.cc).
class ConstantSource {
 public:
  virtual ~ConstantSource() = default;
  // Emits the value of initializer `name` (tensor `t`) into the current region.
  virtual Expected<Val> Materialize(const std::string& name, const Tensor& t) = 0;
};

class Emitter {
 public:
  explicit Emitter(int indent) : indent_(indent) {}

  // ---- raw emission ----
  // Emits `%N = "op"(operands) {attrs} : (types) -> result_type` and returns %N.
  Val Op(const std::string& op, const std::vector<Val>& operands, const std::string& attrs,
         DType dt, const Shape& shape);
  // As Op with one region per `regions` entry (each already-indented text, including its
  // block header and terminator) and several results.
  std::vector<Val> OpWithRegions(const std::string& op, const std::vector<Val>& operands,
                                 const std::vector<std::string>& regions, const std::string& attrs,
                                 const std::vector<std::pair<DType, Shape>>& results);
  // Emits a line verbatim (with indentation).
  void Line(const std::string& s);
  // A fresh SSA name ("%N").
  std::string Fresh();
  // Starts a nested region (for stablehlo.if): subsequent ops go to a new buffer; EndRegion
  // returns its text (without braces).
  void BeginRegion();
  std::string EndRegion();
  const std::string& text() const { return bufs_.front(); }
  std::string TakeText() { return std::move(bufs_.front()); }
  int indent() const { return indent_; }

  // ---- dynamic dims ----
  // Names of the dynamic dims by index, for messages ("batch", "input 'x' dim 1"), and the
  // values computed from them at shape specialization (not constants of the module).
  void SetDynamicDims(std::vector<std::string> names, std::set<std::string> run_time_values);
  bool dynamic() const { return !dim_names_.empty(); }
  std::string DimName(int64_t code) const;
  bool IsRunTimeValue(const std::string& name) const { return run_time_values_.count(name) != 0; }
  // Records v's axes as the source of each dynamic dim not yet known in this region (Op does
  // it for every result; the exporter for the function's arguments).
  void NoteDims(const Val& v);
  // tensor<Rxi64> holding `shape` at run time: constants for static dims, get_dimension_size
  // of a recorded source for dynamic ones. A dynamic dim without a source is, when `whole` is
  // given (a reshape's operand), its element count divided by the other dims; at most one.
  Val ShapeTensor(const Shape& shape, const Val* whole = nullptr);
  // The first dynamic-shape failure since the last call (a dim without a source, an op that
  // takes static shapes given dynamic ones), or Ok; the exporter fails the node with it.
  Status TakeStatus();

  // ---- helpers building common ops ----
  Val Constant(const std::string& dense_literal, DType dt, const Shape& shape);
  Expected<Val> ConstantTensor(const Tensor& t);
  Val Scalar(double v, DType dt);                    // tensor<dt> constant
  // Broadcast of a scalar constant; stablehlo.dynamic_broadcast_in_dim for a dynamic shape.
  Val Splat(double v, DType dt, const Shape& shape);
  // stablehlo.reshape; stablehlo.dynamic_reshape when either shape is dynamic.
  Val Reshape(const Val& v, const Shape& shape);
  Val Transpose(const Val& v, const std::vector<int64_t>& perm);
  Val Convert(const Val& v, DType dt);
  // stablehlo.broadcast_in_dim; stablehlo.dynamic_broadcast_in_dim to a dynamic shape.
  Val BroadcastInDim(const Val& v, const Shape& shape, const std::vector<int64_t>& dims);
  // Numpy (right-aligned) broadcast of `v` to `shape`; returns v itself when equal.
  Val BroadcastTo(const Val& v, const Shape& shape);
  // A dynamic dim of `v` is taken whole (stablehlo.real_dynamic_slice); slicing inside one is a
  // failure (see TakeStatus).
  Val Slice(const Val& v, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
            const std::vector<int64_t>& strides);
  Val Reverse(const Val& v, const std::vector<int64_t>& dims);
  // `dim` must be static in every piece.
  Val Concat(const std::vector<Val>& vs, int64_t dim);
  // Element-wise binary op on equal shapes (result dtype = operand dtype).
  Val Binary(const std::string& op, const Val& a, const Val& b);
  Val Unary(const std::string& op, const Val& a);
  // stablehlo.compare with direction EQ/NE/LT/LE/GT/GE; result i1.
  Val Compare(const std::string& dir, const Val& a, const Val& b);
  Val Select(const Val& pred, const Val& a, const Val& b);
  Val Clamp(const Val& lo, const Val& x, const Val& hi);
  // stablehlo.reduce over `dims` with body op ("stablehlo.add", "stablehlo.maximum", ...) and
  // the scalar init value `init`. Result shape drops `dims`.
  Val Reduce(const Val& v, const std::vector<int64_t>& dims, const std::string& body_op, double init);
  // stablehlo.dot_general.
  Val DotGeneral(const Val& lhs, const Val& rhs, const std::vector<int64_t>& lb,
                 const std::vector<int64_t>& rb, const std::vector<int64_t>& lc,
                 const std::vector<int64_t>& rc, const Shape& result);
  // stablehlo.reduce_window.
  Val ReduceWindow(const Val& v, const std::string& body_op, double init,
                   const std::vector<int64_t>& window, const std::vector<int64_t>& strides,
                   const std::vector<std::pair<int64_t, int64_t>>& padding, const Shape& result);

 private:
  std::string BodyRegion(const std::string& body_op, DType dt);
  void Fail(const std::string& msg);
  // tensor<1xi64> holding dynamic dim `code` (from its recorded source).
  Val DimSize(int64_t code);
  Val DynamicSlice(const Val& v, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
                   const std::vector<int64_t>& strides);
  // tensor<1xi64> holding the element count of `v`.
  Val NumElementsOf(const Val& v);
  int next_ = 0;
  int indent_;
  std::vector<std::string> bufs_{std::string()};
  // Per region (parallel to bufs_): a value and axis holding each dynamic dim, and the
  // tensor<1xi64> of its extent once read (read once per region).
  std::vector<std::map<int64_t, std::pair<Val, int64_t>>> dim_sources_{{}};
  std::vector<std::map<int64_t, Val>> dim_sizes_{{}};
  std::vector<std::string> dim_names_;
  std::set<std::string> run_time_values_;
  Status status_;
};

// The conversion of one ONNX node.
class NodeContext {
 public:
  NodeContext(const Node& node, const Graph& graph, Emitter& e,
              std::function<Expected<Val>(const std::string&)> lookup,
              std::function<Status(const Graph&, const std::vector<Val>&, std::vector<Val>*)> sub)
      : node_(node), graph_(graph), e_(e), lookup_(std::move(lookup)), sub_(std::move(sub)) {}

  const Node& node() const { return node_; }
  const Graph& graph() const { return graph_; }
  Emitter& e() { return e_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  Expected<Val> In(size_t i);
  // The constant value of input i (an initializer visible here), or null.
  const Tensor* Const(size_t i) const;
  // Constant input i as int64 values (any integer dtype). Errors when absent or not constant.
  Expected<std::vector<int64_t>> ConstInts(size_t i) const;
  // Errors (Unimplemented naming the dim) unless dims `dims` of input `i` are static: for
  // converters whose arithmetic needs those extents (`why` says which).
  Status RequireStatic(size_t i, const Val& v, const std::vector<int64_t>& dims,
                       const std::string& why) const;
  // Static type of output o (dynamic dims as DynDimCode).
  DType OutDType(size_t o) const;
  Shape OutShape(size_t o) const;
  // Static type of input i (from the graph's values).
  Shape InShape(size_t i) const;
  DType InDType(size_t i) const;
  void Set(size_t o, Val v) { outputs_[o] = std::move(v); }
  std::map<size_t, Val>& outputs() { return outputs_; }
  // Converts a subgraph with the given argument values (If branches use none); appends its
  // output values.
  Status Subgraph(const Graph& g, const std::vector<Val>& args, std::vector<Val>* outs) {
    return sub_(g, args, outs);
  }
  // InvalidArgument / Unimplemented naming this node (graph/node_status.h).
  Status Error(std::string msg) const {
    return AnnotateNode(InvalidArgument(std::move(msg)), node_);
  }
  Status Unsupported(std::string msg) const {
    return AnnotateNode(Unimplemented(std::move(msg)), node_);
  }

 private:
  const Node& node_;
  const Graph& graph_;
  Emitter& e_;
  std::function<Expected<Val>(const std::string&)> lookup_;
  std::function<Status(const Graph&, const std::vector<Val>&, std::vector<Val>*)> sub_;
  std::map<size_t, Val> outputs_;
};

using Converter = Status (*)(NodeContext& cx);

// The converter of an ONNX op (default domain), or null. Tables live in the stablehlo_*.cc
// files, one per op family; this function joins them.
Converter FindConverter(const std::string& op_type);
// Every op with a converter, sorted (for docs and tests).
std::vector<std::string> SupportedOps();

// Per-family tables.
void AddElementwiseConverters(std::map<std::string, Converter>& m);
void AddShapeConverters(std::map<std::string, Converter>& m);
void AddNnConverters(std::map<std::string, Converter>& m);
void AddReduceConverters(std::map<std::string, Converter>& m);
void AddRnnConverters(std::map<std::string, Converter>& m);
void AddControlConverters(std::map<std::string, Converter>& m);

// Ops whose converters accept dynamic dims (each checks the dims its arithmetic needs with
// RequireStatic); a node of any other op with a dynamic dim is refused.
bool AcceptsDynamicDims(const std::string& op_type);

// The shape of `spec` with dynamic dims as DynDimCode (TensorSpec dims named
// kDynamicDimParam + k by the dynamic specialization, export/dynamic_dims.h); others as
// StaticShape.
Shape CodedShape(const TensorSpec& spec);

// Normalizes an ONNX axis (may be negative) against `rank`. Errors name the node.
Expected<int64_t> NormAxis(const NodeContext& cx, int64_t axis, int64_t rank);

}  // namespace vt::hlo
