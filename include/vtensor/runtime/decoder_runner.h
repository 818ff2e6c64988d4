// Runs a struct type's portable decoder with vtensor's own runtime (`vtensor check
// --decode` executes the stored decoder instead of vtensor's unpacker).
// The checker (format layer) cannot link the runtime; the tools layer injects this function
// as CheckOptions::run_decoder.
#pragma once

#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// Wraps the serialized onnx.FunctionProto `function_bytes` (decoder contract:
// format/struct_decoder.h) in a one-node model, one graph input per tensor of `inputs` (their
// dtypes and shapes), the function's default-domain opset (13 when it imports none), and runs
// it in a Session. Returns the function's single output. `what` prefixes error messages (e.g.
// "type 'q4_0_feed' decoder"). Errors: InvalidArgument when the bytes are not a FunctionProto
// or its input count differs from inputs.size(); Unimplemented when it uses an op vtensor does
// not implement; InvalidArgument / kernel errors of the run, each naming the node; an output
// that is not a tensor.
Expected<Tensor> RunDecoderFunction(const std::string& function_bytes,
                                    const std::vector<Tensor>& inputs, const std::string& what);

}  // namespace vt
