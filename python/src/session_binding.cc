#include "session_binding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "errors.h"
#include "numpy_value.h"
#include "vtensor/runtime/session.h"

namespace vt::python {

namespace py = pybind11;

namespace {

// ONNX Runtime's GraphOptimizationLevel values. vtensor's session-time rewrites are constant
// folding (basic) and fusions (extended); ORT_ENABLE_ALL adds nothing beyond extended.
enum class GraphOptimizationLevel : int {
  kDisableAll = 0,
  kEnableBasic = 1,
  kEnableExtended = 2,
  kEnableAll = 99,
};

// What Python sets; checked when set, turned into vt::SessionOptions at session creation.
struct PySessionOptions {
  int intra_op_num_threads = 0;  // 0: vtensor's default, one thread (as the command line)
  GraphOptimizationLevel graph_optimization_level = GraphOptimizationLevel::kEnableAll;
  std::string verify_policy = "memo";
  std::string weight_profile = "exact";
  std::string architecture = "native";
  bool enable_compiled_cache = true;
  bool warn_cache_misses = true;  // the cache warning line on stderr (runtime/session.h)
};

SessionOptions ToSessionOptions(const PySessionOptions& o) {
  SessionOptions so;
  so.threads = o.intra_op_num_threads > 0 ? o.intra_op_num_threads : 1;
  so.fold_constants = o.graph_optimization_level >= GraphOptimizationLevel::kEnableBasic;
  so.fuse = o.graph_optimization_level >= GraphOptimizationLevel::kEnableExtended;
  so.isa = *IsaFromArchitecture(o.architecture);  // validated by the setter
  so.profile = *WeightProfileFromName(o.weight_profile);
  so.cache.verify = *VerifyPolicyFromName(o.verify_policy);
  so.cache.enabled = o.enable_compiled_cache;
  if (!o.warn_cache_misses) so.cache_warning = nullptr;
  return so;
}

// Immutable once made: one NodeArg serves every thread's get_inputs(), and `shape` gives each
// caller a list of its own (ONNX Runtime's NodeArg.shape is a list).
struct NodeArg {
  std::string name;
  std::string type;
  py::tuple shape;
};

struct ModelMetadata {
  std::string producer_name, graph_name, graph_description, domain, description;
  int64_t version = 0;
  std::map<std::string, std::string> custom_metadata_map;
};

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

class SessionHandle {
 public:
  static std::unique_ptr<SessionHandle> FromPath(const std::string& path,
                                                 const PySessionOptions& o) {
    const SessionOptions so = ToSessionOptions(o);
    Expected<std::unique_ptr<Session>> s = [&] {
      py::gil_scoped_release nogil;
      return Session::Load(path, so);
    }();
    return std::make_unique<SessionHandle>(ValueOrThrow(std::move(s)));
  }

  static std::unique_ptr<SessionHandle> FromBytes(const py::bytes& model,
                                                  const PySessionOptions& o) {
    const SessionOptions so = ToSessionOptions(o);
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(model.ptr(), &data, &size) != 0) throw py::error_already_set();
    Expected<std::unique_ptr<Session>> s = [&] {
      py::gil_scoped_release nogil;  // `model` (immutable bytes) is held by the caller
      // External data resolves against the working directory, as ONNX Runtime's sessions
      // from bytes; messages name the model "<model bytes>".
      return Session::LoadFromBytes(data, static_cast<size_t>(size), "", so);
    }();
    return std::make_unique<SessionHandle>(ValueOrThrow(std::move(s)));
  }

  explicit SessionHandle(std::unique_ptr<Session> s) : session_(std::move(s)) {
    py::list input_args, output_args;
    for (const GraphIO* io : session_->inputs()) {
      input_index_[io->name] = fed_.size();
      fed_.push_back({py::str(io->name), io->spec.type(), "input '" + io->name + "'"});
      input_names_.push_back(io->name);
      input_args.append(py::cast(NodeArg{io->name, OrtTypeName(io->spec.type()),
                                         py::tuple(OrtShape(io->spec.type()))}));
    }
    for (const GraphIO& io : session_->model().graph->inputs)
      if (!input_index_.count(io.name)) initializer_inputs_.insert(io.name);
    for (const GraphIO& io : session_->outputs()) {
      output_index_[io.name] = output_names_.size();
      output_names_.push_back(io.name);
      output_args.append(py::cast(
          NodeArg{io.name, OrtTypeName(io.spec.type()), py::tuple(OrtShape(io.spec.type()))}));
    }
    input_args_ = py::tuple(input_args);
    output_args_ = py::tuple(output_args);
  }

  const py::tuple& inputs() const { return input_args_; }
  const py::tuple& outputs() const { return output_args_; }

  // Runs once. `output_names`: None (every output) or names; `feed`: dict name -> value.
  py::list Run(py::handle output_names, py::handle feed, py::handle run_options) {
    std::shared_ptr<Session> session = Get();
    if (!run_options.is_none())
      ThrowInvalidArgument("run_options: vtensor has no run options; pass None");
    const std::vector<size_t> selected = SelectOutputs(output_names);
    const std::vector<Value> inputs = ConvertFeed(feed);

    // Session::Run is safe to call concurrently (runtime/session.h), so runs from several
    // Python threads compute at once; `session` keeps the session alive through a close().
    Expected<std::vector<Value>> outputs = [&] {
      py::gil_scoped_release nogil;
      return session->Run(inputs);
    }();
    if (!outputs.ok()) ThrowStatus(outputs.status());

    py::list result;
    std::vector<py::object> converted(outputs->size());
    for (size_t idx : selected) {
      if (!converted[idx]) converted[idx] = ValueToPython(std::move((*outputs)[idx]));
      result.append(converted[idx]);
    }
    return result;
  }

  // Seconds taken by each of `runs` calls of Session::Run on `feed` (converted once), timed
  // in C++ with the GIL released: the baseline of bench/python_overhead.py.
  std::vector<double> TimeRuns(py::handle feed, int runs) {
    std::shared_ptr<Session> session = Get();
    const std::vector<Value> inputs = ConvertFeed(feed);
    std::vector<double> seconds;
    Status status;
    {
      py::gil_scoped_release nogil;
      for (int i = 0; i < runs && status.ok(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto outputs = session->Run(inputs);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!outputs.ok()) status = outputs.status();
      }
    }
    if (!status.ok()) ThrowStatus(status);
    return seconds;
  }

  ModelMetadata Metadata() const {
    std::shared_ptr<Session> s = Get();
    const Model& m = s->model();
    return {m.producer_name, m.graph->name, m.graph_doc_string, m.domain, m.doc_string,
            m.model_version, m.metadata_props};
  }

  py::list CacheReport() const {
    std::shared_ptr<Session> s = Get();
    py::list out;
    for (const CacheEntryReport& r : s->cache_report()) {
      py::dict d;
      d["index"] = r.index;
      d["source_name"] = r.source_name;
      d["device"] = r.architecture;
      d["type_name"] = r.type_name;
      d["status"] = r.state == EntryState::kHit ? "HIT" : "MISS";
      d["reason"] = MissReasonCode(r.reason);  // "" for a hit
      d["detail"] = r.detail;
      d["verified"] = r.verified;
      d["compared"] = r.compared;
      d["memo"] = r.memo;
      out.append(std::move(d));
    }
    return out;
  }

  // Releases the session; runs already in flight finish on their own reference.
  void Close() { session_.reset(); }
  bool closed() const { return session_ == nullptr; }

 private:
  struct FedInput {
    py::str key;
    TypeInfo type;
    std::string what;  // "input 'x'" for messages
  };

  // The feed as Session::Run's inputs, in inputs() order.
  std::vector<Value> ConvertFeed(py::handle feed) const {
    if (!PyDict_Check(feed.ptr()))
      ThrowInvalidArgument(std::string("input_feed must be a dict {input name: array}, got ") +
                           Py_TYPE(feed.ptr())->tp_name);
    std::vector<Value> inputs(fed_.size());
    for (size_t i = 0; i < fed_.size(); ++i) {
      PyObject* v = PyDict_GetItemWithError(feed.ptr(), fed_[i].key.ptr());
      if (v == nullptr) {
        if (PyErr_Occurred()) throw py::error_already_set();
        ThrowInvalidArgument("input '" + input_names_[i] +
                             "' is missing from input_feed (the model's inputs: " +
                             JoinNames(input_names_) + ")");
      }
      inputs[i] = ValueOrThrow(ValueFromPython(v, fed_[i].type, fed_[i].what));
    }
    if (static_cast<size_t>(PyDict_Size(feed.ptr())) != fed_.size()) RejectUnknownInputs(feed);
    return inputs;
  }

  std::shared_ptr<Session> Get() const {
    if (!session_) ThrowError("this InferenceSession is closed");
    return session_;
  }

  std::vector<size_t> SelectOutputs(py::handle names) const {
    std::vector<size_t> selected;
    if (names.is_none()) {
      for (size_t i = 0; i < output_names_.size(); ++i) selected.push_back(i);
      return selected;
    }
    if (py::isinstance<py::str>(names))
      ThrowInvalidArgument("output_names must be a list of names or None, not a str");
    for (py::handle h : names) {
      if (!py::isinstance<py::str>(h))
        ThrowInvalidArgument(std::string("output_names: expected str, got ") +
                             Py_TYPE(h.ptr())->tp_name);
      const std::string name = h.cast<std::string>();
      auto it = output_index_.find(name);
      if (it == output_index_.end())
        ThrowInvalidArgument("unknown output name '" + name + "' (the model's outputs: " +
                             JoinNames(output_names_) + ")");
      selected.push_back(it->second);
    }
    return selected;
  }

  [[noreturn]] void RejectUnknownInputs(py::handle feed) const {
    for (py::handle key : py::reinterpret_borrow<py::dict>(feed).attr("keys")()) {
      const std::string name = py::str(key).cast<std::string>();
      if (input_index_.count(name)) continue;
      if (initializer_inputs_.count(name))
        ThrowInvalidArgument("input '" + name +
                             "' is an initializer; vtensor does not override initializers");
      ThrowInvalidArgument("unknown input name '" + name + "' (the model's inputs: " +
                           JoinNames(input_names_) + ")");
    }
    ThrowInvalidArgument("input_feed names an input twice");
  }

  // Shared by the runs of every Python thread. session_ is read and reset only with the GIL
  // held (Get, Close); a run holds its own reference while the GIL is released. Everything
  // below is built by the constructor and only read afterwards, and the Python objects among
  // it are immutable (str, tuple, NodeArg), so no run changes state another run reads.
  std::shared_ptr<Session> session_;  // null once closed
  std::vector<FedInput> fed_;
  std::vector<std::string> input_names_, output_names_;
  std::unordered_map<std::string, size_t> input_index_, output_index_;
  std::unordered_set<std::string> initializer_inputs_;
  py::tuple input_args_, output_args_;
};

template <typename Parse>
void CheckName(const std::string& attr, const std::string& value, Parse parse,
               const char* expected) {
  if (!parse(value))
    ThrowInvalidArgument("SessionOptions." + attr + " '" + value + "': expected " + expected);
}

std::string NodeArgRepr(const NodeArg& a) {
  return "NodeArg(name='" + a.name + "', type='" + a.type +
         "', shape=" + py::repr(py::list(a.shape)).cast<std::string>() + ")";
}

}  // namespace

void BindSession(py::module_& m) {
  py::enum_<GraphOptimizationLevel>(m, "GraphOptimizationLevel",
                                    "ONNX Runtime's optimization levels: DISABLE_ALL turns off "
                                    "constant folding and fusions, BASIC folds constants, "
                                    "EXTENDED and ALL also fuse.")
      .value("ORT_DISABLE_ALL", GraphOptimizationLevel::kDisableAll)
      .value("ORT_ENABLE_BASIC", GraphOptimizationLevel::kEnableBasic)
      .value("ORT_ENABLE_EXTENDED", GraphOptimizationLevel::kEnableExtended)
      .value("ORT_ENABLE_ALL", GraphOptimizationLevel::kEnableAll);

  py::class_<PySessionOptions>(m, "SessionOptions", "Options of an InferenceSession.")
      .def(py::init<>())
      .def_property(
          "intra_op_num_threads", [](const PySessionOptions& o) { return o.intra_op_num_threads; },
          [](PySessionOptions& o, int n) {
            if (n < 0)
              ThrowInvalidArgument("SessionOptions.intra_op_num_threads " + std::to_string(n) +
                                   ": expected >= 0 (0: one thread)");
            o.intra_op_num_threads = n;
          },
          "OpenMP threads inside an operator; 0 (default) = 1.")
      .def_readwrite("graph_optimization_level", &PySessionOptions::graph_optimization_level)
      .def_property(
          "verify_policy", [](const PySessionOptions& o) { return o.verify_policy; },
          [](PySessionOptions& o, const std::string& v) {
            CheckName("verify_policy", v, VerifyPolicyFromName, "always, memo or never");
            o.verify_policy = v;
          },
          "Compiled-tensor verification at load: memo (default), always, never.")
      .def_property(
          "weight_profile", [](const PySessionOptions& o) { return o.weight_profile; },
          [](PySessionOptions& o, const std::string& v) {
            CheckName("weight_profile", v, WeightProfileFromName, "exact or compact");
            o.weight_profile = v;
          },
          "Weight forms: exact (default, lossless) or compact (requantized).")
      .def_property(
          "architecture", [](const PySessionOptions& o) { return o.architecture; },
          [](PySessionOptions& o, const std::string& v) {
            CheckName("architecture", v, IsaFromArchitecture,
                      "native, x86_64-avx512, x86_64-avx2 or x86_64-baseline");
            o.architecture = v;
          },
          "Kernel architecture: native (default) or an x86_64-* name this CPU supports.")
      .def_readwrite("enable_compiled_cache", &PySessionOptions::enable_compiled_cache,
                     "Use the model's compiled tensors (default True).")
      .def_readwrite("warn_cache_misses", &PySessionOptions::warn_cache_misses,
                     "Write one warning line to stderr when compiled tensors were not used "
                     "(default True); cache_report() lists every entry either way.")
      .def("__repr__", [](const PySessionOptions& o) {
        return "SessionOptions(intra_op_num_threads=" + std::to_string(o.intra_op_num_threads) +
               ", graph_optimization_level=" +
               std::to_string(static_cast<int>(o.graph_optimization_level)) +
               ", verify_policy='" + o.verify_policy + "', weight_profile='" + o.weight_profile +
               "', architecture='" + o.architecture + "', enable_compiled_cache=" +
               (o.enable_compiled_cache ? "True" : "False") +
               ", warn_cache_misses=" + (o.warn_cache_misses ? "True" : "False") + ")";
      });

  py::class_<NodeArg>(m, "NodeArg", "A model input or output: name, type and shape.")
      .def_readonly("name", &NodeArg::name)
      .def_readonly("type", &NodeArg::type)
      .def_property_readonly("shape", [](const NodeArg& a) { return py::list(a.shape); })
      .def("__repr__", &NodeArgRepr);

  py::class_<ModelMetadata>(m, "ModelMetadata", "The model's descriptive fields.")
      .def_readonly("producer_name", &ModelMetadata::producer_name)
      .def_readonly("graph_name", &ModelMetadata::graph_name)
      .def_readonly("graph_description", &ModelMetadata::graph_description)
      .def_readonly("domain", &ModelMetadata::domain)
      .def_readonly("description", &ModelMetadata::description)
      .def_readonly("version", &ModelMetadata::version)
      .def_readonly("custom_metadata_map", &ModelMetadata::custom_metadata_map);

  py::class_<SessionHandle>(m, "_Session")
      .def_static("load", &SessionHandle::FromPath, py::arg("path"), py::arg("options"))
      .def_static("from_bytes", &SessionHandle::FromBytes, py::arg("model"), py::arg("options"))
      .def_property_readonly("inputs", &SessionHandle::inputs)
      .def_property_readonly("outputs", &SessionHandle::outputs)
      .def("run", &SessionHandle::Run, py::arg("output_names"), py::arg("input_feed"),
           py::arg("run_options") = py::none())
      .def("time_runs", &SessionHandle::TimeRuns, py::arg("input_feed"), py::arg("runs"))
      .def("metadata", &SessionHandle::Metadata)
      .def("cache_report", &SessionHandle::CacheReport)
      .def("close", &SessionHandle::Close)
      .def_property_readonly("closed", &SessionHandle::closed);
}

}  // namespace vt::python
