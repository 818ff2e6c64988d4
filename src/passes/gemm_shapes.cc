// gemm-shapes: records, in Graph::values, the static type of the A operand of every MatMul and
// Gemm whose B is a constant f32 matrix, when the symbolic shapes of the graph
// (passes/symbolic_shapes.h) know all its dims. The weight-form resolver chooses such a
// weight's form by the GEMM's rows (forms/weight_use.h StaticGemmRows): a few rows read the
// weight in place in its source layout instead of packing it (docs/weight-forms.md, "Source
// layout, read in place"). Nothing else changes; types already fully known are left alone.
// Only dims that are known integers are recorded (no dim_param is bound), and a type that
// turned out wrong at run time could only pick a slower kernel, never another result.
// Top-level graph only. No errors.
#include "passes/pattern_util.h"
#include "passes/symbolic_shapes.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

bool FullyKnown(const TensorSpec& spec) {
  if (spec.type().kind != TypeInfo::Kind::kTensor || !spec.shape()) return false;
  for (const Dim& d : *spec.shape())
    if (!d.known()) return false;
  return true;
}

size_t RecordGemmShapes(Graph& g) {
  size_t recorded = 0;
  SymbolicShapes ss(g);
  for (const Node& n : g.nodes) {
    if (!IsOp(&n, "MatMul") && !IsOp(&n, "Gemm")) continue;
    if (n.inputs.size() < 2 || n.inputs[0].empty()) continue;
    const Tensor* b = F32Initializer(g, n.inputs[1]);
    if (b == nullptr || b->rank() != 2) continue;
    auto it = g.values.find(n.inputs[0]);
    if (it != g.values.end() && FullyKnown(it->second)) continue;
    const SymValue* v = ss.Find(n.inputs[0]);
    if (v == nullptr || !v->has_rank || v->dims.empty()) continue;
    SymShape shape;
    for (SymInt d : v->dims) {
      if (!d.known()) break;
      shape.push_back(Dim{d.v, ""});
    }
    if (shape.size() != v->dims.size()) continue;
    // MatMul and Gemm take A of B's element type.
    g.values[n.inputs[0]].mutable_type() = TypeInfo::Tensor(DType::kFloat32, shape);
    ++recorded;
  }
  return recorded;
}

class GemmShapesPass final : public Pass {
 public:
  const char* name() const override { return "gemm-shapes"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = RecordGemmShapes(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

}  // namespace

std::unique_ptr<Pass> MakeGemmShapesPass() { return std::make_unique<GemmShapesPass>(); }

}  // namespace vt
