#include "vtensor/forms/weight_use.h"

namespace vt {

namespace {

const WeightUseTraits kUses[] = {
    {WeightUse::kMatMulB, "matmul_b", true, false},
    {WeightUse::kGemmB, "gemm_b", true, false},
    {WeightUse::kGemmBTrans, "gemm_b_trans", true, true},
    {WeightUse::kConvFilter, "conv_filter", false, false},
    {WeightUse::kNBitsCodes, "nbits_codes", false, false},
    {WeightUse::kNBitsScales, "nbits_scales", false, false},
    {WeightUse::kNBitsZeroPoints, "nbits_zero_points", false, false},
};

bool UnitStridesAndPads(const Node& n) {
  for (int64_t s : n.GetInts("strides"))
    if (s != 1) return false;
  for (int64_t p : n.GetInts("pads"))
    if (p != 0) return false;
  return true;
}

bool UnitStridesAndDilations(const Node& n) {
  for (const char* attr : {"strides", "dilations"})
    for (int64_t v : n.GetInts(attr))
      if (v != 1) return false;
  return true;
}

WeightUseInfo MatMulB(const Node&) { return {WeightUse::kMatMulB}; }

WeightUseInfo GemmB(const Node& n) {
  return {n.GetInt("transB", 0) != 0 ? WeightUse::kGemmBTrans : WeightUse::kGemmB};
}

WeightUseInfo FusedMatMulB(const Node& n) {
  WeightUseInfo u = GemmB(n);
  u.lossless_only = true;
  return u;
}

WeightUseInfo ConvFilter(const Node& n) {
  WeightUseInfo u{WeightUse::kConvFilter, n.GetInt("group", 1), UnitStridesAndPads(n)};
  u.unit_strides_dilations = UnitStridesAndDilations(n);
  return u;
}

WeightUseInfo NBitsCodes(const Node&) { return {WeightUse::kNBitsCodes}; }
WeightUseInfo NBitsScales(const Node&) { return {WeightUse::kNBitsScales}; }
WeightUseInfo NBitsZeroPoints(const Node&) { return {WeightUse::kNBitsZeroPoints}; }

const WeightConsumer kConsumers[] = {
    {"", "MatMul", 1, MatMulB, true},
    {"", "Gemm", 1, GemmB, true},
    {"", "Conv", 1, ConvFilter, true},
    // FusedMatMul packs a 2-D constant B as Gemm's B (transB alike); target layouts are left
    // to the ONNX operators.
    {"com.microsoft", "FusedMatMul", 1, FusedMatMulB, false},
    {"com.microsoft", "MatMulNBits", 1, NBitsCodes, false},
    {"com.microsoft", "MatMulNBits", 2, NBitsScales, false},
    {"com.microsoft", "MatMulNBits", 3, NBitsZeroPoints, false},
};

}  // namespace

int64_t StaticGemmRows(const Graph& g, const Node& node) {
  const bool matmul = node.op_type == "MatMul", gemm = node.op_type == "Gemm";
  if (!node.domain.empty() || (!matmul && !gemm) || node.inputs.empty()) return 0;
  const auto it = g.values.find(node.inputs[0]);
  if (it == g.values.end() || it->second.type().kind != TypeInfo::Kind::kTensor ||
      !it->second.shape() || it->second.shape()->empty())
    return 0;
  const SymShape& s = *it->second.shape();
  for (const Dim& d : s)
    if (!d.known()) return 0;
  if (gemm) {
    if (s.size() != 2) return 0;
    return node.GetInt("transA", 0) != 0 ? s[1].value : s[0].value;
  }
  int64_t rows = 1;  // a 1-D A is one row
  for (size_t i = 0; i + 1 < s.size(); ++i) rows *= s[i].value;
  return rows;
}

const WeightUseTraits& GetWeightUseTraits(WeightUse u) {
  for (const auto& t : kUses)
    if (t.use == u) return t;
  return kUses[0];
}

std::span<const WeightConsumer> WeightConsumers() { return kConsumers; }

const WeightConsumer* FindWeightConsumer(std::string_view domain, std::string_view op_type,
                                         size_t input) {
  if (domain == "ai.onnx") domain = "";
  for (const auto& c : kConsumers)
    if (domain == c.domain && op_type == c.op_type && input == c.input) return &c;
  return nullptr;
}

}  // namespace vt
