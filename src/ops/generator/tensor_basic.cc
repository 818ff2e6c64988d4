// Constant, Identity: value plumbing ops.
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

Status ConstantCompute(KernelContext& ctx) {
  const Node& n = ctx.node();
  if (const Attribute* a = n.FindAttr("value")) {
    ctx.SetOutput(0, a->t);
  } else if (const Attribute* a2 = n.FindAttr("sparse_value")) {
    ctx.SetOutput(0, a2->t);
  } else if (const Attribute* f = n.FindAttr("value_float")) {
    ctx.SetOutput(0, Tensor::ScalarF32(f->f));
  } else if (const Attribute* fs = n.FindAttr("value_floats")) {
    ctx.SetOutput(0, Tensor::FromF32(fs->floats, {static_cast<int64_t>(fs->floats.size())}));
  } else if (const Attribute* i = n.FindAttr("value_int")) {
    ctx.SetOutput(0, Tensor::ScalarI64(i->i));
  } else if (const Attribute* is = n.FindAttr("value_ints")) {
    ctx.SetOutput(0, Tensor::FromI64(is->ints));
  } else if (const Attribute* s = n.FindAttr("value_string")) {
    Tensor t = Tensor::Empty(DType::kString, {});
    *t.mutable_data<std::string>() = s->s;
    ctx.SetOutput(0, t);
  } else if (const Attribute* ss = n.FindAttr("value_strings")) {
    Tensor t = Tensor::Empty(DType::kString, {static_cast<int64_t>(ss->strings.size())});
    for (size_t k = 0; k < ss->strings.size(); ++k) t.mutable_data<std::string>()[k] = ss->strings[k];
    ctx.SetOutput(0, t);
  } else {
    return ctx.Error("Constant needs one of value, value_float(s), value_int(s), value_string(s)");
  }
  return Status::Ok();
}

Status IdentityCompute(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.Error("input 0 is required");
  ctx.SetOutput(0, *ctx.input_value(0));
  return Status::Ok();
}

VT_REGISTER_OP("", "Constant", 1, kMaxOpset, ConstantCompute);
VT_REGISTER_OP("", "Identity", 1, kMaxOpset, IdentityCompute);

}  // namespace
}  // namespace vt::ops
