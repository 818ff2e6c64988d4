#include "exec/graph_runner.h"

#include "vtensor/graph/node_status.h"

namespace vt {

Expected<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, const Graph& graph,
                                                 const Model& model, WeightProvider* provider) {
  if (node.opset <= 0)
    return AnnotateNode(Unimplemented("domain '" + node.domain +
                                      "' is not imported by the model (no opset_import entry)"),
                        node);
  const KernelFactory* f = KernelRegistry::Global().Find(node.domain, node.op_type, node.opset);
  if (f != nullptr) {
    KernelInit init{node, graph, provider};
    auto k = (*f)(init);
    if (!k.ok()) return AnnotateNode(k.take_status(), node);
    return k;
  }
  auto fk = CreateFunctionKernel(node, model);
  if (fk.ok()) return fk;
  return fk.take_status();
}

}  // namespace vt
