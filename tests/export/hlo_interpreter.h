// Test-only reference interpreter for the StableHLO modules vtensor exports: it
// evaluates `func.func @main` op by op, in double precision rounded to each value's element
// type, so the export's numbers can be checked against the runtime. It reads exactly the
// subset the emitter writes (generic op form, export/stablehlo_*.cc) and external parameters
// from an .irpa archive, unpacking each payload through its declared layout — so it also
// checks the layout contract end to end. Written from the StableHLO specification
// (openxla/stablehlo docs/spec.md), independently of the emitter.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hlo_text.h"
#include "vtensor/base/status.h"
#include "vtensor/tensor/tensor.h"

namespace vt::testing {

struct HValue {
  DType dtype = DType::kFloat32;
  Shape shape;
  std::vector<double> v;  // row-major logical elements
};

class HloInterpreter {
 public:
  // Parses a module. Errors: InvalidArgument naming the line.
  static Expected<std::unique_ptr<HloInterpreter>> Parse(std::string_view mlir);
  // Loads the external parameters (#flow.parameter.named keys) from .irpa bytes; each entry is
  // unpacked through the layout in its metadata, which must equal the module's
  // vt.tensor_layouts entry.
  Status LoadParameters(std::string_view irpa);
  // Runs @main. Inputs in argument order. Errors: Unimplemented for an unknown op.
  Expected<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

 private:
  Expected<std::vector<HValue>> RunRegion(const HRegion& r, std::map<std::string, HValue>& env);
  Expected<std::vector<HValue>> Eval(const HOp& op, std::map<std::string, HValue>& env);

  struct Arg {
    std::string ref;
    DType dtype;
    Shape shape;
  };
  std::vector<Arg> args_;
  HRegion body_;
  std::map<std::string, std::string> globals_;  // symbol -> parameter key
  std::map<std::string, HValue> params_;        // parameter key -> value
  std::string module_text_;
};

}  // namespace vt::testing
