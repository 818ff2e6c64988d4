// If -> stablehlo.if: the condition becomes a rank-0 i1, each branch a region ending in
// stablehlo.return (branches read enclosing values directly; regions are not isolated).
#include <fmt/core.h>

#include "export/mlir_text.h"
#include "export/stablehlo_emitter.h"

namespace vt::hlo {

namespace {

Status IfOp(NodeContext& cx) {
  VT_ASSIGN_OR_RETURN(Val cond, cx.In(0));
  Emitter& e = cx.e();
  if (NumElements(cond.shape) != 1) return cx.Error("condition must have one element");
  if (cond.dtype != DType::kBool) cond = e.Compare("NE", cond, e.Splat(0, cond.dtype, cond.shape));
  cond = e.Reshape(cond, {});
  std::vector<std::pair<DType, Shape>> results;
  for (size_t o = 0; o < cx.node().outputs.size(); ++o) results.push_back({cx.OutDType(o), cx.OutShape(o)});
  std::vector<std::string> regions;
  for (const char* branch : {"then_branch", "else_branch"}) {
    const Attribute* a = cx.node().FindAttr(branch);
    if (a == nullptr || !a->g) return cx.Error(std::string("missing ") + branch);
    e.BeginRegion();
    std::vector<Val> outs;
    Status st = cx.Subgraph(*a->g, {}, &outs);
    if (!st.ok()) {
      e.EndRegion();
      return st;
    }
    if (outs.size() < results.size()) {
      e.EndRegion();
      return cx.Error(std::string(branch) + " has fewer outputs than the node");
    }
    std::string refs, types;
    for (size_t o = 0; o < results.size(); ++o) {
      // Branch results must have the node's plain types.
      Val v = outs[o];
      if (v.shape != results[o].second || v.dtype != results[o].first) {
        e.EndRegion();
        return cx.Error(std::string(branch) + " output " + std::to_string(o) + " has another type");
      }
      // A weight with a #vt.layout type encoding is returned through a same-shape reshape.
      if (v.type != mlir::TensorType(v.dtype, v.shape)) v = e.Op("stablehlo.reshape", {v}, "", v.dtype, v.shape);
      if (o > 0) {
        refs += ", ";
        types += ", ";
      }
      refs += v.ref;
      types += v.type;
    }
    e.Line(fmt::format("\"stablehlo.return\"({}) : ({}) -> ()", refs, types));
    regions.push_back(e.EndRegion());
  }
  std::vector<Val> r = e.OpWithRegions("stablehlo.if", {cond}, regions, "", results);
  for (size_t o = 0; o < r.size(); ++o)
    if (!cx.node().outputs[o].empty()) cx.Set(o, r[o]);
  return Status::Ok();
}

}  // namespace

void AddControlConverters(std::map<std::string, Converter>& m) { m["If"] = IfOp; }

}  // namespace vt::hlo
