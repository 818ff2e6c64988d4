#include "export/dynamic_dims.h"

#include <cstring>
#include <map>

namespace vt::hlo {

namespace {

// Probe extents: above 1 (an extent of 1 broadcasts), far enough apart that a dim computed
// from them (N + 1, 2N, N x S) does not land on another dim's pair, and of different parity,
// so that a dim that depends only on N's parity is not taken for a static one.
constexpr int64_t kProbeA[] = {5, 7, 11, 13, 17, 19, 23, 29};
constexpr int64_t kProbeB[] = {38, 46, 58, 62, 74, 82, 86, 94};
constexpr size_t kMaxDynamicDims = sizeof(kProbeA) / sizeof(kProbeA[0]);

bool Unbound(const GraphIO& in, const StaticShapeOptions& opts) {
  return opts.input_shapes.count(in.name) == 0 && opts.input_values.count(in.name) == 0;
}

// The dynamic input dims: per input, the dim's index into `names` or -1 when known.
struct InputDims {
  std::vector<std::string> names;
  std::map<std::string, std::vector<int>> by_input;
};

Expected<InputDims> CollectInputDims(const Graph& g, const StaticShapeOptions& opts) {
  InputDims out;
  std::map<std::string, int> by_param;
  for (const GraphIO* in : g.RealInputs()) {
    if (!Unbound(*in, opts)) continue;
    const auto& shape = in->spec.shape();
    if (!shape) return InvalidArgument("input '" + in->name + "' has an unknown rank; bind it with --input-shape");
    std::vector<int>& idx = out.by_input[in->name];
    for (size_t d = 0; d < shape->size(); ++d) {
      const Dim& dim = (*shape)[d];
      if (dim.known()) {
        idx.push_back(-1);
        continue;
      }
      const std::string key = dim.param.empty() ? in->name + "\n" + std::to_string(d) : dim.param;
      auto [it, fresh] = by_param.emplace(key, static_cast<int>(out.names.size()));
      if (fresh)
        out.names.push_back(dim.param.empty() ? "input '" + in->name + "' dim " + std::to_string(d)
                                              : "'" + dim.param + "'");
      idx.push_back(it->second);
    }
  }
  if (out.names.size() > kMaxDynamicDims)
    return Unimplemented(std::to_string(out.names.size()) + " dynamic input dims (at most " +
                         std::to_string(kMaxDynamicDims) + "); bind some with --input-shape");
  return out;
}

Status RefuseSubgraphs(const Graph& g) {
  for (const Node& n : g.nodes)
    for (const auto& [name, a] : n.attrs)
      if (a.g || !a.graphs.empty())
        return Unimplemented("node '" + n.name + "' (" + n.op_type +
                             ") has a subgraph: dynamic dims are exported only for graphs without "
                             "subgraphs; bind the dims with --input-shape");
  return Status::Ok();
}

StaticShapeOptions Bind(const Graph& g, const StaticShapeOptions& opts, const InputDims& dims,
                        const int64_t* probe) {
  StaticShapeOptions o = opts;
  for (const auto& [name, idx] : dims.by_input) {
    Shape s;
    for (const GraphIO& in : g.inputs)
      if (in.name == name)
        for (size_t d = 0; d < idx.size(); ++d)
          s.push_back(idx[d] < 0 ? (*in.spec.shape())[d].value : probe[idx[d]]);
    o.input_shapes[name] = s;
  }
  return o;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const Tensor ca = a.Contiguous(), cb = b.Contiguous();
  return ca.nbytes() == cb.nbytes() && std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

class Merger {
 public:
  explicit Merger(std::vector<std::string>* names) : names_(names) {
    for (size_t k = 0; k < names->size(); ++k) codes_[{kProbeA[k], kProbeB[k]}] = k;
  }

  // Marks the dims of `a` that differ in `b` dynamic.
  Status Merge(const std::string& value, TensorSpec& a, const TensorSpec& b) {
    if (!a.shape() || !b.shape()) return Status::Ok();
    if (a.shape()->size() != b.shape()->size())
      return Internal("value '" + value + "' has rank " + std::to_string(a.shape()->size()) + " or " +
                      std::to_string(b.shape()->size()) + " depending on the dynamic dims");
    SymShape& sa = *a.mutable_type().shape;
    for (size_t d = 0; d < sa.size(); ++d) {
      const int64_t va = sa[d].value, vb = (*b.shape())[d].value;
      if (va == vb) continue;
      auto [it, fresh] = codes_.emplace(std::make_pair(va, vb), names_->size());
      if (fresh) names_->push_back("a dim computed from the dynamic input dims");
      sa[d] = Dim{-1, kDynamicDimParam + std::to_string(it->second)};
    }
    return Status::Ok();
  }

 private:
  std::vector<std::string>* names_;
  std::map<std::pair<int64_t, int64_t>, size_t> codes_;
};

}  // namespace

bool HasUnboundInputDims(const Model& model, const StaticShapeOptions& opts) {
  for (const GraphIO* in : model.graph->RealInputs()) {
    if (!Unbound(*in, opts)) continue;
    if (!in->spec.shape()) return true;
    for (const Dim& d : *in->spec.shape())
      if (!d.known()) return true;
  }
  return false;
}

Expected<DynamicDims> SpecializeDynamicDims(Model& model, const StaticShapeOptions& opts) {
  Graph& g = *model.graph;
  VT_ASSIGN_OR_RETURN(InputDims dims, CollectInputDims(g, opts));
  VT_RETURN_IF_ERROR(RefuseSubgraphs(g));
  Model probe_b = model;
  probe_b.graph = std::make_shared<Graph>(g);
  std::string bound;
  for (size_t k = 0; k < dims.names.size(); ++k)
    bound += (k ? ", " : "") + dims.names[k] + " = " + std::to_string(kProbeA[k]) + " or " +
             std::to_string(kProbeB[k]);
  const StaticShapeOptions oa = Bind(g, opts, dims, kProbeA), ob = Bind(g, opts, dims, kProbeB);
  for (auto [m, o] : {std::make_pair(&model, &oa), std::make_pair(&probe_b, &ob)}) {
    Status st = SpecializeShapes(*m, *o);
    if (!st.ok())
      return std::move(st).WithContext("shapes with dynamic dims (inferred with " + bound +
                                       "; bind the dims with --input-shape for a static export)");
  }
  const Graph& gb = *probe_b.graph;
  DynamicDims out;
  out.names = dims.names;
  Merger merger(&out.names);
  for (auto& [name, spec] : g.values) {
    auto it = gb.values.find(name);
    if (it != gb.values.end()) VT_RETURN_IF_ERROR(merger.Merge(name, spec, it->second));
  }
  for (auto* ios : {&g.inputs, &g.outputs})
    for (GraphIO& io : *ios)
      for (const auto* bios : {&gb.inputs, &gb.outputs})
        for (const GraphIO& bio : *bios)
          if (bio.name == io.name) VT_RETURN_IF_ERROR(merger.Merge(io.name, io.spec, bio.spec));
  for (const auto& [name, t] : g.initializers) {
    auto it = gb.initializers.find(name);
    if (it == gb.initializers.end() || !SameTensor(t, it->second)) out.run_time_values.insert(name);
  }
  return out;
}

}  // namespace vt::hlo
