#include "vtensor/passes/graph_printer.h"

#include <fmt/core.h>

#include <iterator>
#include <variant>

#include "vtensor/graph/tensor_meta.h"

namespace vt {

namespace {

std::string MetaToString(const MetaValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  std::string r = "[";
  for (int64_t x : std::get<std::vector<int64_t>>(v)) r += (r.size() > 1 ? "," : "") + std::to_string(x);
  return r + "]";
}

std::string ValueText(const Graph& g, const std::string& name) {
  std::string r = name;
  const Graph* s = &g;
  const TensorSpec* spec = nullptr;
  for (; s != nullptr && spec == nullptr; s = s->parent) {
    auto it = s->values.find(name);
    if (it != s->values.end()) spec = &it->second;
  }
  if (spec == nullptr) return r;
  if (spec->type().kind != TypeInfo::Kind::kUnknown) r += " : " + spec->type().ToString();
  for (const auto& [k, v] : spec->metadata()) {
    if (k == kMetaIdentity && std::holds_alternative<std::string>(v) &&
        std::get<std::string>(v) == name)
      continue;
    r += " " + k + "=" + MetaToString(v);
  }
  return r;
}

std::string AttrText(const Attribute& a) {
  using T = Attribute::Type;
  auto join = [](const auto& xs) {
    std::string r = "[";
    for (size_t i = 0; i < xs.size(); ++i) r += (i ? "," : "") + fmt::format("{}", xs[i]);
    return r + "]";
  };
  switch (a.type) {
    case T::kFloat: return fmt::format("{}", a.f);
    case T::kInt: return std::to_string(a.i);
    case T::kString: return "\"" + a.s + "\"";
    case T::kFloats: return join(a.floats);
    case T::kInts: return join(a.ints);
    case T::kStrings: return std::to_string(a.strings.size()) + " strings";
    case T::kTensor: return "tensor" + ShapeToString(a.t.shape());
    case T::kGraph: return "graph";
    case T::kGraphs: return std::to_string(a.graphs.size()) + " graphs";
    default: return "?";
  }
}

void PrintGraph(const Graph& g, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  out += pad + "graph '" + g.name + "'\n";
  for (const auto& in : g.inputs)
    if (!g.initializers.count(in.name)) out += pad + "  input " + ValueText(g, in.name) + "\n";
  for (const auto& [name, t] : g.initializers)
    out += pad + "  initializer " + ValueText(g, name) + "\n";
  auto order = g.TopologicalOrder();
  std::vector<size_t> idx;
  if (order.ok()) {
    idx = *order;
  } else {
    for (size_t i = 0; i < g.nodes.size(); ++i) idx.push_back(i);
  }
  for (size_t i : idx) {
    const Node& n = g.nodes[i];
    std::string line = pad + "  node '" + n.name + "' " +
                       (n.domain.empty() ? "" : n.domain + ".") + n.op_type + "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) line += (k ? ", " : "") + n.inputs[k];
    line += ")";
    std::string attrs;
    for (const auto& [an, a] : n.attrs)
      if (a.type != Attribute::Type::kGraph && a.type != Attribute::Type::kGraphs)
        attrs += (attrs.empty() ? "" : ", ") + an + "=" + AttrText(a);
    if (!attrs.empty()) line += " {" + attrs + "}";
    out += line + "\n";
    for (const auto& o : n.outputs)
      if (!o.empty()) out += pad + "    -> " + ValueText(g, o) + "\n";
    for (const auto& [an, a] : n.attrs) {
      if (a.g) {
        fmt::format_to(std::back_inserter(out), "{}    {}:\n", pad, an);
        PrintGraph(*a.g, indent + 6, out);
      }
      for (size_t k = 0; k < a.graphs.size(); ++k) {
        fmt::format_to(std::back_inserter(out), "{}    {}[{}]:\n", pad, an, k);
        PrintGraph(*a.graphs[k], indent + 6, out);
      }
    }
  }
  for (const auto& o : g.outputs) out += pad + "  output " + ValueText(g, o.name) + "\n";
}

}  // namespace

std::string PrintGraphText(const Model& model) {
  std::string out;
  if (model.graph) PrintGraph(*model.graph, 0, out);
  return out;
}

}  // namespace vt
