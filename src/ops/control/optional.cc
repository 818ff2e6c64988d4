// Optional, OptionalHasElement, OptionalGetElement (ONNX Operators.md, opset 15 / 18).
// An optional holding an element is represented by the element itself (tensor or sequence);
// an empty optional is a Value of kind kNone (Value::NoneOf keeps whether it wraps a sequence).
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

Status OptionalCompute(KernelContext& ctx) {
  if (ctx.has_input(0)) {
    ctx.SetOutput(0, *ctx.input_value(0));
    return Status::Ok();
  }
  const Attribute* a = ctx.node().FindAttr("type");
  if (a == nullptr) return ctx.Error("attribute 'type' is required when the input is absent");
  const TypeInfo& tp = a->tp;
  if (tp.kind == TypeInfo::Kind::kSequence) {
    DType elem = tp.inner ? tp.inner->elem : DType::kUndefined;
    ctx.SetOutput(0, Value::NoneOf(true, elem));
  } else if (tp.kind == TypeInfo::Kind::kTensor) {
    ctx.SetOutput(0, Value::NoneOf(false, tp.elem));
  } else {
    return ctx.Unsupported("optional of " + tp.ToString() + " is not supported");
  }
  return Status::Ok();
}

// Opset 18 makes the input optional: an absent input is an empty optional.
Status OptionalHasElementCompute(KernelContext& ctx) {
  const Value* v = ctx.input_value(0);
  Tensor out = ctx.AllocOutput(0, DType::kBool, {});
  *out.mutable_data<uint8_t>() = (v != nullptr && !v->is_none()) ? 1 : 0;
  return Status::Ok();
}

// Opset 18 also accepts a plain tensor or sequence, returned unchanged.
Status OptionalGetElementCompute(KernelContext& ctx) {
  const Value* v = ctx.input_value(0);
  if (v == nullptr) return ctx.Error("input 0 is required");
  if (v->is_none()) return ctx.Error("optional input is empty");
  ctx.SetOutput(0, *v);
  return Status::Ok();
}

VT_REGISTER_OP("", "Optional", 15, kMaxOpset, OptionalCompute);
VT_REGISTER_OP("", "OptionalHasElement", 15, kMaxOpset, OptionalHasElementCompute);
VT_REGISTER_OP("", "OptionalGetElement", 15, kMaxOpset, OptionalGetElementCompute);

}  // namespace
}  // namespace vt::ops
