#include "vtensor/runtime/decoder_runner.h"

#include <onnx/onnx_pb.h>

#include "vtensor/graph/onnx_import.h"
#include "vtensor/runtime/session.h"

namespace vt {

Expected<Tensor> RunDecoderFunction(const std::string& function_bytes,
                                    const std::vector<Tensor>& inputs, const std::string& what) {
  onnx::FunctionProto fn;
  if (!fn.ParseFromString(function_bytes))
    return InvalidArgument(what + ": not a serialized onnx.FunctionProto");
  if (fn.input_size() != static_cast<int>(inputs.size()) || fn.output_size() != 1)
    return InvalidArgument(what + ": function '" + fn.name() + "' has " +
                           std::to_string(fn.input_size()) + " inputs and " +
                           std::to_string(fn.output_size()) + " outputs; expected " +
                           std::to_string(inputs.size()) + " and 1");
  onnx::ModelProto mp;
  mp.set_ir_version(8);
  mp.set_producer_name("vtensor-decoder-runner");
  int64_t opset = 13;
  for (const auto& os : fn.opset_import())
    if (os.domain().empty() || os.domain() == "ai.onnx") opset = os.version();
  mp.add_opset_import()->set_version(opset);
  for (const auto& os : fn.opset_import())
    if (!os.domain().empty() && os.domain() != "ai.onnx") *mp.add_opset_import() = os;
  auto* own = mp.add_opset_import();
  own->set_domain(fn.domain());
  own->set_version(1);
  *mp.add_functions() = fn;
  auto* g = mp.mutable_graph();
  g->set_name("decode");
  auto* call = g->add_node();
  call->set_op_type(fn.name());
  call->set_domain(fn.domain());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "field" + std::to_string(i);
    auto* in = g->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(inputs[i].dtype()));
    for (int64_t d : inputs[i].shape()) tt->mutable_shape()->add_dim()->set_dim_value(d);
    call->add_input(name);
  }
  call->add_output("value");
  g->add_output()->set_name("value");
  ImportOptions io;
  io.infer_shapes = false;  // inputs are concrete; nothing to learn before running
  VT_ASSIGN_OR_RETURN(Model model, ImportModel(mp, what, io));  // messages start with `what`
  SessionOptions so;
  so.fuse = false;
  auto session = Session::Create(std::move(model), so);
  if (!session.ok()) return session.take_status().WithContext(what);
  std::vector<Value> feeds(inputs.begin(), inputs.end());
  auto out = (*session)->Run(feeds);
  if (!out.ok()) return out.take_status().WithContext(what);
  if (out->size() != 1 || !(*out)[0].is_tensor())
    return InvalidArgument(what + ": decoder output is not a tensor");
  return std::move((*out)[0].tensor());
}

}  // namespace vt
