// How `vtensor run` and `vtensor bench` make a model's inputs: from files (--data DIR with
// input_N.pb, --input NAME=FILE.npy|FILE.pb), or zeros / random values (--random-inputs
// [--seed N]) of each input's declared shape, with symbolic dims bound by --free-dim NAME=VALUE
// (every input dim whose dim_param is NAME) and whole shapes given by --input-shape
// NAME=D0xD1x... (docs/cli.md, "Inputs").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/runtime/session.h"

namespace CLI {
class App;
}

namespace vt::cli {

struct InputFlags {
  std::string data_dir;                   // --data: input_N.pb in graph input order
  std::vector<std::string> files;         // --input NAME=FILE (.npy, otherwise TensorProto)
  std::vector<std::string> input_shapes;  // --input-shape NAME=D0xD1x...
  std::vector<std::string> free_dims;     // --free-dim DIM_PARAM=VALUE
  bool random = false;                    // --random-inputs (default: zeros)
  uint64_t seed = 0;                      // --seed
};

// Registers --data, --input, --input-shape, --free-dim, --random-inputs, --seed on `cmd`.
void AddInputFlags(CLI::App* cmd, InputFlags* f);

// "x=1x3x224x224" -> [1,3,224,224] into (*out)["x"]; "1x" style empty dims and negative
// values are errors. `flag` names the flag in errors. Errors: InvalidArgument quoting `s`.
Status ParseShapeAssignment(const std::string& flag, const std::string& s,
                            std::map<std::string, Shape>* out);

// The concrete shape of input `io`: --input-shape when given (its rank and fixed dims must
// agree with the declaration), otherwise the declared dims with each symbolic one bound by
// --free-dim. Errors: InvalidArgument naming the input and the dim, and suggesting the flag,
// for an unresolved symbolic or unknown dim, an unknown rank, or a contradiction.
Expected<Shape> ResolveInputShape(const GraphIO& io, const std::map<std::string, Shape>& shapes,
                                  const std::map<std::string, int64_t>& free_dims);

// Random values of `dtype` and `shape` from a seeded generator: floats uniform in [-1, 1),
// signed ints in [-4, 4], unsigned ints in [0, 8], bools 0/1, strings of 1-8 lower-case letters.
Tensor RandomTensor(DType dtype, const Shape& shape, uint64_t seed);

// The inputs in Session::inputs() order. Errors: InvalidArgument naming the flag for a
// malformed value or a name that is not a model input; as ResolveInputShape; the file errors
// of ReadNpy / LoadValueFile; a file tensor whose dtype differs from the declaration.
Expected<std::vector<Value>> MakeInputs(const Session& s, const InputFlags& f);

}  // namespace vt::cli
