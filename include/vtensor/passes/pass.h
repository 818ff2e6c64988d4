// Graph passes and the per-target pass registry (docs/design.md §3.3).
//
// A pass rewrites a Model in place and keeps every TensorSpec's metadata (identity, encoding,
// layout, aliasing: graph/tensor_meta.h) on the values it keeps. Passes decide layout
// *preferences* per target; they never override a layout recorded at capture, and with no
// target no layout is invented.
//
// Pipelines (PassRegistry::PipelineFor):
//   no target:  transpose-elimination (flag absorption only), fold-initializers
//   any target: transpose-elimination, fold-initializers, layout-assignment
// A Session runs its own list by name (RunNamedPasses; runtime/session.h SessionPassNames):
// constant-folding, fold-shapes, then the fusions, each switched by SessionOptions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"
#include "vtensor/passes/target.h"

namespace vt {

struct PassContext {
  const TargetInfo* target = nullptr;  // null: no target named
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Stable name used by the registry, --print-after-all and vt.layout.origin.
  virtual const char* name() const = 0;
  // Errors: the pass's own (each documented on its factory); the model may then be partly
  // rewritten and must be discarded.
  virtual Status Run(Model& model, const PassContext& ctx) = 0;
  // Rewrites the last Run made (patterns fused, values folded), for `vtensor passes`; 0 for
  // passes that do not count.
  virtual size_t rewrites() const { return 0; }
  // Whether this pass's rewrites assume that one dim_param names one size in every input, as
  // the ONNX IR says (passes/symbolic_shapes.h): a fused or folded graph is then valid only for
  // inputs that keep that rule, and a Session checks it on every Run once such a pass rewrote.
  // True unless a pass states that its rewrites hold for any sizes.
  virtual bool relies_on_dim_params() const { return true; }
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

class PassRegistry {
 public:
  // The registry with the built-in passes and the pipelines of every target in Targets().
  static PassRegistry& Global();

  void RegisterPass(const std::string& name, PassFactory factory);
  // Pipeline (pass names in order) of `target` ("" = no target).
  void RegisterPipeline(const std::string& target, std::vector<std::string> passes);

  // The passes of `target`'s pipeline ("" = no target; "native" resolves as FindTarget).
  // Errors: InvalidArgument for an unknown target or a pipeline naming an unknown pass.
  Expected<std::vector<std::unique_ptr<Pass>>> PipelineFor(std::string_view target) const;
  // Names of the registered passes, sorted.
  std::vector<std::string> PassNames() const;
  // A new instance of the pass registered as `name`. Errors: InvalidArgument when unknown.
  Expected<std::unique_ptr<Pass>> Make(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, PassFactory>> passes_;
  std::vector<std::pair<std::string, std::vector<std::string>>> pipelines_;
};

struct RunPassesOptions {
  // Called after each pass with its name (for --print-after-all).
  std::function<void(const char* pass, const Model& model)> after_pass;
  // Called after each pass has run (read its name(), rewrites(), relies_on_dim_params()).
  std::function<void(const Pass& pass)> report;
};

// Runs `target`'s pipeline on `model` ("" = no target). Errors: PipelineFor's, or the first
// failing pass's error prefixed with "pass <name>".
Status RunPasses(Model& model, std::string_view target, const RunPassesOptions& opts = {});

// Runs the registered passes `names` in order, with no target. Errors: InvalidArgument for an
// unknown name, or the first failing pass's error prefixed with "pass <name>".
Status RunNamedPasses(Model& model, const std::vector<std::string>& names,
                      const RunPassesOptions& opts = {});

// Built-in passes (see each file for what it does and its errors).
std::unique_ptr<Pass> MakeFoldInitializersPass();
std::unique_ptr<Pass> MakeTransposeEliminationPass();
std::unique_ptr<Pass> MakeLayoutAssignmentPass();
std::unique_ptr<Pass> MakeConstantFoldingPass();  // passes/constant_folding.h
std::unique_ptr<Pass> MakeFuseHardSwishPass();    // passes/fusion.h
std::unique_ptr<Pass> MakeFuseConvPass();         // passes/fusion.h
std::unique_ptr<Pass> MakeFuseDepthwisePointwisePass();  // passes/fusion.h
std::unique_ptr<Pass> MakeFuseResizeAddPass();    // passes/fusion.h
// Shape folding and the transformer fusions (passes/transformer_fusion.h).
std::unique_ptr<Pass> MakeFoldShapesPass();
std::unique_ptr<Pass> MakeFuseLayerNormPass();
std::unique_ptr<Pass> MakeFuseGeluPass();
std::unique_ptr<Pass> MakeFuseAttentionPass();
std::unique_ptr<Pass> MakeFuseRotaryPass();
std::unique_ptr<Pass> MakeFuseMatMulBiasPass();
std::unique_ptr<Pass> MakeFuseSkipNormPass();
// Static types of the A operands of MatMul / Gemm by constant weights (passes/gemm_shapes.cc).
std::unique_ptr<Pass> MakeGemmShapesPass();

}  // namespace vt
