#include "vtensor/exec/evaluate.h"

#include <omp.h>

#include <string>
#include <unordered_map>

#include "exec/graph_runner.h"

namespace vt {

Expected<std::vector<Value>> EvaluateModel(const Model& model, const std::vector<Value>& inputs,
                                           int threads) {
  auto real = model.graph->RealInputs();
  if (inputs.size() != real.size())
    return InvalidArgument("model takes " + std::to_string(real.size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  VT_ASSIGN_OR_RETURN(auto runner, GraphRunner::Prepare(*model.graph, model));
  BufferPool pool;
  std::unordered_map<std::string, Value> feeds;
  for (size_t i = 0; i < real.size(); ++i) feeds[real[i]->name] = inputs[i];
  omp_set_num_threads(threads);
  return runner->Run(feeds, &pool, threads);
}

}  // namespace vt
