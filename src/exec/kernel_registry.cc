#include "vtensor/exec/kernel.h"

#include "vtensor/forms/weight_provider.h"

namespace vt {

namespace {
class FnKernel : public OpKernel {
 public:
  explicit FnKernel(ComputeFn fn) : fn_(fn) {}
  Status Compute(KernelContext& ctx) const override { return fn_(ctx); }

 private:
  ComputeFn fn_;
};
}  // namespace

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* r = new KernelRegistry();
  return *r;
}

void KernelRegistry::Register(const std::string& domain, const std::string& op_type,
                              int min_opset, int max_opset, KernelFactory factory) {
  entries_[{domain, op_type}].push_back({min_opset, max_opset, std::move(factory)});
}

void KernelRegistry::RegisterFn(const std::string& domain, const std::string& op_type,
                                int min_opset, int max_opset, ComputeFn fn) {
  Register(domain, op_type, min_opset, max_opset,
           [fn](const KernelInit&) -> Expected<std::unique_ptr<OpKernel>> {
             return std::unique_ptr<OpKernel>(new FnKernel(fn));
           });
}

const KernelFactory* KernelRegistry::Find(const std::string& domain, const std::string& op_type,
                                          int64_t opset) const {
  auto it = entries_.find({domain, op_type});
  if (it == entries_.end()) return nullptr;
  for (const auto& e : it->second)
    if (opset >= e.min_opset && opset <= e.max_opset) return &e.factory;
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> KernelRegistry::List() const {
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& [k, v] : entries_) r.push_back(k);
  return r;
}

const Tensor* KernelInit::FindInitializer(const std::string& name) const {
  return graph.FindInitializer(name);
}

WeightProvider& KernelInit::weights() const {
  return provider != nullptr ? *provider : WeightProvider::Default();
}

Expected<Tensor> KernelContext::RequireTensor(size_t i) const {
  if (!has_input(i)) return Error("input " + std::to_string(i) + " is required");
  if (!inputs_[i]->is_tensor()) return Error("input " + std::to_string(i) + " must be a tensor");
  return inputs_[i]->tensor();
}

}  // namespace vt
