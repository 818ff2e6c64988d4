// The passes a Session runs at creation (constant folding and the fusions), as registry
// entries, so `vtensor passes` and the Session run the same code.
#include "vtensor/passes/constant_folding.h"
#include "vtensor/passes/fusion.h"
#include "vtensor/passes/pass.h"

namespace vt {
namespace {

class ConstantFoldingPass final : public Pass {
 public:
  const char* name() const override { return "constant-folding"; }
  Status Run(Model& model, const PassContext&) override {
    FoldStats stats;
    Status st = FoldConstants(*model.graph, model, FoldOptions{}, &stats);
    rewrites_ = stats.folded_nodes;
    return st;
  }
  size_t rewrites() const override { return rewrites_; }
  // Folds only nodes whose inputs are all constants: no input size reaches a folded value.
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

class FuseHardSwishPass final : public Pass {
 public:
  const char* name() const override { return "fuse-hardswish"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseHardSwish(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }
  // An elementwise pattern: the fused node computes the same values for any shape.
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

class FuseConvPass final : public Pass {
 public:
  const char* name() const override { return "fuse-conv"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseConv(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }
  // Folds an activation or bias into the Conv that feeds it: valid for any input size.
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

class FuseDepthwisePointwisePass final : public Pass {
 public:
  const char* name() const override { return "fuse-dw-pw"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseDepthwisePointwise(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }
  // The fused kernel computes both convolutions for any input size.
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

class FuseResizeAddPass final : public Pass {
 public:
  const char* name() const override { return "fuse-resize-add"; }
  Status Run(Model& model, const PassContext&) override {
    rewrites_ = FuseResizeAdd(*model.graph);
    return Status::Ok();
  }
  size_t rewrites() const override { return rewrites_; }
  // The kernel checks the operands' shapes at run time: valid for any input size.
  bool relies_on_dim_params() const override { return false; }

 private:
  size_t rewrites_ = 0;
};

}  // namespace

std::unique_ptr<Pass> MakeFuseDepthwisePointwisePass() {
  return std::make_unique<FuseDepthwisePointwisePass>();
}
std::unique_ptr<Pass> MakeConstantFoldingPass() { return std::make_unique<ConstantFoldingPass>(); }
std::unique_ptr<Pass> MakeFuseHardSwishPass() { return std::make_unique<FuseHardSwishPass>(); }
std::unique_ptr<Pass> MakeFuseConvPass() { return std::make_unique<FuseConvPass>(); }
std::unique_ptr<Pass> MakeFuseResizeAddPass() { return std::make_unique<FuseResizeAddPass>(); }

}  // namespace vt
