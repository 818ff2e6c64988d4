#include "tools_binding.h"

#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "errors.h"
#include "tools/check_report.h"
#include "tools/compile_model.h"

namespace vt::python {

namespace py = pybind11;

namespace {

py::dict Compile(const std::string& model_path, const std::string& output_path,
                 const std::vector<std::string>& devices, const std::string& profile,
                 const std::string& payload, const std::string& digest) {
  CompileModelOptions opts =
      ValueOrThrow(CompileOptionsFromNames(devices, profile, payload, digest));
  CompileModelSummary sum;
  Status st;
  {
    py::gil_scoped_release nogil;
    st = CompileModel(model_path, output_path, opts, &sum);
  }
  if (!st.ok()) ThrowStatus(st);
  py::dict out;
  out["entries"] = sum.entries;
  out["payload_bytes"] = sum.payload_bytes;
  out["payload_file"] = sum.payload_file;
  out["kept_entries"] = sum.kept_entries;
  out["lossy"] = sum.lossy;
  return out;
}

py::object Check(const std::string& model_path, bool decode) {
  Expected<nlohmann::json> report = [&] {
    py::gil_scoped_release nogil;
    return CheckModelReport(model_path, decode);
  }();
  const std::string text = ValueOrThrow(std::move(report)).dump();
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void BindTools(py::module_& m) {
  m.def("compile", &Compile, py::arg("model_path"), py::arg("output_path"),
        py::arg("devices") = std::vector<std::string>{"native"}, py::arg("profile") = "exact",
        py::arg("payload") = "external", py::arg("digest") = "blake3",
        "Writes OUTPUT_PATH: MODEL_PATH with its weights prepacked for each device as compiled "
        "tensors, exactly as `vtensor compile`. Returns {entries, payload_bytes, payload_file, "
        "kept_entries, lossy}; lossy: {form type name: entries} of the requantized forms "
        "stored (profile 'compact' only), whose results differ from the source model's.");
  m.def("check", &Check, py::arg("model_path"), py::arg("decode") = false,
        "The findings of `vtensor check --json` as a dict: model, readable, compiled_tensors, "
        "errors, warnings, findings (severity, rule, entry, source_name, field, message).");
}

}  // namespace vt::python
