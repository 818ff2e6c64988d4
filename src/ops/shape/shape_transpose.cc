// Transpose (ONNX Operators.md "Transpose"): a zero-copy strided view; consumers that need
// dense data materialise it with Tensor::Contiguous().
#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

Status TransposeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  const Tensor x = StridedForm(x0);
  const int rank = x.rank();
  std::vector<int64_t> perm;
  if (ctx.node().FindAttr("perm")) {
    perm = ctx.node().GetInts("perm");
    if (static_cast<int>(perm.size()) != rank)
      return ctx.Error("perm has " + std::to_string(perm.size()) + " entries for rank " +
                       std::to_string(rank));
    // Negative entries are not in the spec; accept them like other axis lists do.
    for (auto& p : perm)
      if (p < 0) p += rank;
  } else {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  auto l = x.layout().Transpose(perm);
  if (!l.ok()) return ctx.Annotate(l.take_status());
  ctx.SetOutput(0, x.WithLayout(std::move(l).value()));
  return Status::Ok();
}

VT_REGISTER_OP("", "Transpose", 1, kMaxOpset, TransposeCompute);

}  // namespace
}  // namespace vt::ops
