#include "ops/common/constant_operand.h"

namespace vt::ops {

const Tensor* FindConstantOperand(const KernelInit& init, const std::string& name) {
  if (name.empty()) return nullptr;
  if (const Tensor* t = init.FindInitializer(name)) return t;
  for (const Graph* g = &init.graph; g != nullptr; g = g->parent) {
    for (const auto& in : g->inputs)
      if (in.name == name) return nullptr;  // fed at run time; shadows outer names
    for (const Node& n : g->nodes) {
      for (const auto& o : n.outputs) {
        if (o != name) continue;
        if (n.op_type != "Constant" || !n.domain.empty()) return nullptr;
        const Attribute* a = n.FindAttr("value");
        if (a == nullptr || a->type != Attribute::Type::kTensor || !a->t.defined()) return nullptr;
        return &a->t;
      }
    }
  }
  return nullptr;
}

bool IsSameConstant(const Tensor& t, const Tensor& constant) {
  return t.defined() && constant.defined() && t.storage() == constant.storage() &&
         t.layout() == constant.layout() && t.dtype() == constant.dtype();
}

}  // namespace vt::ops
