// FuseResizeAdd (passes/fusion.h): Add(Resize(x), y) becomes one Resize that writes
// resize(x) + y row by row (ops/nn/resize.cc), so the resized tensor is never written out and
// read back. Matching is below; what the graph states of the operands' types and dims only
// ever refuses a fusion (the kernel checks the rest at run time).
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/fusion_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/fusion.h"

namespace vt {
namespace {

// Where a fused node's addend goes: after every input the op defines.
size_t AddendIndex(const Node& resize) { return resize.op_type == "Resize" ? 4 : 2; }

// A default-domain Resize / Upsample with one output and no addend yet.
bool IsPlainResize(const Node* n) {
  return n != nullptr && n->domain.empty() &&
         (n->op_type == "Resize" || n->op_type == "Upsample") && n->outputs.size() == 1 &&
         !n->inputs.empty() && n->inputs.size() <= AddendIndex(*n) &&
         n->FindAttr(kResizeAddAttr) == nullptr;
}

// The element type of `v` the graph states (its value type, or an initializer's), else
// kUndefined.
DType StatedType(const Graph& g, const std::string& v) {
  if (const Tensor* t = g.FindInitializer(v); t != nullptr) return t->dtype();
  auto it = g.values.find(v);
  return it != g.values.end() ? it->second.dtype() : DType::kUndefined;
}

// The dims of `v` known to be sizes (-1 for one that is not); nullopt when its rank is unknown.
// From the graph's value type, else the symbolic shapes.
std::optional<std::vector<int64_t>> KnownDims(const Graph& g, const SymbolicShapes& ss,
                                              const std::string& v) {
  auto it = g.values.find(v);
  if (it != g.values.end() && it->second.shape()) {
    std::vector<int64_t> dims;
    for (const Dim& d : *it->second.shape()) dims.push_back(d.known() ? d.value : -1);
    return dims;
  }
  const SymValue* s = ss.Find(v);
  if (s == nullptr || !s->has_rank) return std::nullopt;
  std::vector<int64_t> dims;
  for (const SymInt& d : s->dims) dims.push_back(d.known() ? d.v : -1);
  return dims;
}

// True when the stated facts show Add(r, y) is not an elementwise sum of two f32 tensors of one
// shape: a known element type other than float32 (the resized one is x's), ranks that differ,
// or a dim known on both sides with two sizes (a broadcast, or an error).
bool KnownMismatch(const Graph& g, const SymbolicShapes& ss, const Node& resize,
                   const std::string& r, const std::string& y) {
  DType rt = StatedType(g, r);
  if (rt == DType::kUndefined) rt = StatedType(g, resize.inputs[0]);
  const DType yt = StatedType(g, y);
  for (DType t : {rt, yt})
    if (t != DType::kUndefined && t != DType::kFloat32) return true;
  const auto rd = KnownDims(g, ss, r), yd = KnownDims(g, ss, y);
  if (!rd || !yd) return false;
  if (rd->size() != yd->size()) return true;
  for (size_t i = 0; i < rd->size(); ++i)
    if ((*rd)[i] >= 0 && (*yd)[i] >= 0 && (*rd)[i] != (*yd)[i]) return true;
  return false;
}

// The Resize feeding `add` as one operand, read by nothing else, with the other operand in
// `*y`; null when `add` is no such Add.
Node* ResizeOperand(const Graph& g, const fusion::ValueUses& vu,
                    const std::unordered_map<std::string, Node*>& producers, const Node& add,
                    std::string* y) {
  if (add.op_type != "Add" || !add.domain.empty() || add.inputs.size() != 2 ||
      add.outputs.size() != 1 || add.opset < 7)
    return nullptr;
  for (size_t side = 0; side < 2; ++side) {
    const std::string& r = add.inputs[side];
    auto it = producers.find(r);
    Node* resize = it != producers.end() ? it->second : nullptr;
    if (!IsPlainResize(resize) || resize->opset != add.opset || vu.Uses(r) != 1) continue;
    *y = add.inputs[1 - side];
    bool reads_y = false;  // the addend must not be one of the Resize's own inputs
    for (const std::string& in : resize->inputs) reads_y = reads_y || in == *y;
    if (!reads_y && !y->empty()) return resize;
  }
  return nullptr;
}

// `add` becomes the fused Resize (so the node stands where the Add stood, after both operands'
// producers); `resize` is left to be erased.
void Rewrite(Node& add, const Node& resize, const std::string& y) {
  Node fused = resize;
  fused.inputs.resize(AddendIndex(resize));  // absent optional inputs as empty names
  fused.inputs.push_back(y);
  fused.outputs = add.outputs;
  Attribute a;
  a.name = kResizeAddAttr;
  a.type = Attribute::Type::kInt;
  a.i = 1;
  fused.attrs[a.name] = a;
  add = std::move(fused);
}

}  // namespace

size_t FuseResizeAdd(Graph& g) {
  size_t fused = fusion::FuseSubgraphs(g, FuseResizeAdd);
  const fusion::ValueUses vu(g);
  const SymbolicShapes ss(g);
  std::unordered_set<const Node*> removed;
  const std::unordered_map<std::string, Node*> producers = fusion::Producers(g, removed);
  for (Node& add : g.nodes) {
    std::string y;
    Node* resize = ResizeOperand(g, vu, producers, add, &y);
    if (resize == nullptr || removed.count(resize) ||
        KnownMismatch(g, ss, *resize, resize->outputs[0], y))
      continue;
    Rewrite(add, *resize, y);
    removed.insert(resize);
    ++fused;
  }
  fusion::EraseNodes(g, removed);
  return fused;
}

}  // namespace vt
