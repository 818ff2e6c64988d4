#include <fmt/core.h>

#include <algorithm>

#include "vtensor/passes/pass.h"

namespace vt {

PassRegistry& PassRegistry::Global() {
  static PassRegistry* r = [] {
    auto* reg = new PassRegistry();
    reg->RegisterPass("fold-initializers", MakeFoldInitializersPass);
    reg->RegisterPass("transpose-elimination", MakeTransposeEliminationPass);
    reg->RegisterPass("layout-assignment", MakeLayoutAssignmentPass);
    reg->RegisterPass("constant-folding", MakeConstantFoldingPass);
    reg->RegisterPass("fuse-hardswish", MakeFuseHardSwishPass);
    reg->RegisterPass("fuse-conv", MakeFuseConvPass);
    reg->RegisterPass("fuse-dw-pw", MakeFuseDepthwisePointwisePass);
    reg->RegisterPass("fuse-resize-add", MakeFuseResizeAddPass);
    reg->RegisterPass("fold-shapes", MakeFoldShapesPass);
    reg->RegisterPass("fuse-layer-norm", MakeFuseLayerNormPass);
    reg->RegisterPass("fuse-gelu", MakeFuseGeluPass);
    reg->RegisterPass("fuse-attention", MakeFuseAttentionPass);
    reg->RegisterPass("fuse-rotary", MakeFuseRotaryPass);
    reg->RegisterPass("fuse-matmul-bias", MakeFuseMatMulBiasPass);
    reg->RegisterPass("fuse-skip-norm", MakeFuseSkipNormPass);
    reg->RegisterPass("gemm-shapes", MakeGemmShapesPass);
    // Transpose elimination runs first: folding would turn Transpose(W) into a transposed
    // copy, and layout assignment must see the strided views it creates.
    reg->RegisterPipeline("", {"transpose-elimination", "fold-initializers"});
    for (const TargetInfo& t : Targets())
      reg->RegisterPipeline(t.name,
                            {"transpose-elimination", "fold-initializers", "layout-assignment"});
    return reg;
  }();
  return *r;
}

void PassRegistry::RegisterPass(const std::string& name, PassFactory factory) {
  for (auto& [n, f] : passes_)
    if (n == name) {
      f = std::move(factory);
      return;
    }
  passes_.emplace_back(name, std::move(factory));
}

void PassRegistry::RegisterPipeline(const std::string& target, std::vector<std::string> passes) {
  for (auto& [t, p] : pipelines_)
    if (t == target) {
      p = std::move(passes);
      return;
    }
  pipelines_.emplace_back(target, std::move(passes));
}

Expected<std::vector<std::unique_ptr<Pass>>> PassRegistry::PipelineFor(
    std::string_view target) const {
  std::string key;
  if (!target.empty()) {
    VT_ASSIGN_OR_RETURN(const TargetInfo* t, FindTarget(target));
    key = t->name;
  }
  const std::vector<std::string>* names = nullptr;
  for (const auto& [t, p] : pipelines_)
    if (t == key) names = &p;
  if (names == nullptr) return InvalidArgument("no pass pipeline for target '" + key + "'");
  std::vector<std::unique_ptr<Pass>> out;
  for (const std::string& n : *names) {
    const PassFactory* f = nullptr;
    for (const auto& [pn, pf] : passes_)
      if (pn == n) f = &pf;
    if (f == nullptr)
      return InvalidArgument(
          fmt::format("pipeline of target '{}' names unknown pass '{}'", key, n));
    out.push_back((*f)());
  }
  return out;
}

std::vector<std::string> PassRegistry::PassNames() const {
  std::vector<std::string> out;
  for (const auto& [n, f] : passes_) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

Expected<std::unique_ptr<Pass>> PassRegistry::Make(std::string_view name) const {
  for (const auto& [pn, pf] : passes_)
    if (pn == name) return pf();
  return InvalidArgument("unknown pass '" + std::string(name) + "'");
}

namespace {
Status RunPipeline(Model& model, std::vector<std::unique_ptr<Pass>>& pipeline,
                   const PassContext& ctx, const RunPassesOptions& opts) {
  for (auto& pass : pipeline) {
    Status st = pass->Run(model, ctx);
    if (!st.ok()) return std::move(st).WithContext(std::string("pass ") + pass->name());
    if (opts.after_pass) opts.after_pass(pass->name(), model);
    if (opts.report) opts.report(*pass);
  }
  return Status::Ok();
}
}  // namespace

Status RunPasses(Model& model, std::string_view target, const RunPassesOptions& opts) {
  VT_ASSIGN_OR_RETURN(auto pipeline, PassRegistry::Global().PipelineFor(target));
  PassContext ctx;
  if (!target.empty()) {
    VT_ASSIGN_OR_RETURN(ctx.target, FindTarget(target));
  }
  return RunPipeline(model, pipeline, ctx, opts);
}

Status RunNamedPasses(Model& model, const std::vector<std::string>& names,
                      const RunPassesOptions& opts) {
  std::vector<std::unique_ptr<Pass>> pipeline;
  for (const std::string& n : names) {
    VT_ASSIGN_OR_RETURN(auto pass, PassRegistry::Global().Make(n));
    pipeline.push_back(std::move(pass));
  }
  return RunPipeline(model, pipeline, PassContext{}, opts);
}

}  // namespace vt
