// RegexFullMatch (ONNX Operators.md "RegexFullMatch", opset 20): Y[i] = true iff the whole of
// X[i] matches `pattern` (RE2 syntax, UTF-8). The pattern is compiled once when the node is
// prepared; an invalid one is refused then, with RE2's own description of the error. RE2 is in
// the operator libraries plugin (ops/common/op_libs.h), loaded by the first such node.
#include <memory>

#include "ops/common/op_libs.h"
#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

class RegexFullMatchKernel : public OpKernel {
 public:
  static Expected<std::unique_ptr<OpKernel>> Create(const KernelInit& init) {
    const Node& n = init.node;
    const Attribute* a = n.FindAttr("pattern");
    if (a == nullptr) return AnnotateNode(InvalidArgument("attribute 'pattern' is required"), n);
    Expected<const OpLibs*> libs = LoadOpLibs("RegexFullMatch");
    if (!libs.ok()) return AnnotateNode(libs.take_status(), n);
    const std::string pattern = n.GetString("pattern", "");
    std::string error;
    void* re = (*libs)->regex_compile(pattern, &error);
    if (re == nullptr)
      return AnnotateNode(InvalidArgument("attribute 'pattern' \"" + pattern +
                                          "\" is not valid RE2 syntax: " + error),
                          n);
    auto k = std::unique_ptr<RegexFullMatchKernel>(new RegexFullMatchKernel());
    k->re_ = Compiled(re, Free{*libs});
    k->libs_ = *libs;
    return std::unique_ptr<OpKernel>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
    if (x0.dtype() != DType::kString)
      return ctx.Error(std::string("input 'X' (0) has element type ") + DTypeName(x0.dtype()) +
                       ", expected string");
    const Tensor x = x0.Contiguous();
    Tensor y = ctx.AllocOutput(0, DType::kBool, x.shape());
    const std::string* xs = x.data<std::string>();
    uint8_t* ys = static_cast<uint8_t*>(y.raw_mutable_data());
    for (int64_t i = 0; i < x.numel(); ++i) ys[i] = libs_->regex_full_match(re_.get(), xs[i]) ? 1 : 0;
    return Status::Ok();
  }

 private:
  struct Free {
    const OpLibs* libs;
    void operator()(void* re) const { libs->regex_free(re); }
  };
  using Compiled = std::unique_ptr<void, Free>;
  Compiled re_{nullptr, Free{nullptr}};
  const OpLibs* libs_ = nullptr;
};

VT_REGISTER_OP("", "RegexFullMatch", 20, kMaxOpset, KernelFactory(RegexFullMatchKernel::Create));

}  // namespace
}  // namespace vt::ops
