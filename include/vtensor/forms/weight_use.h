// How a node reads a constant weight (docs/weight-forms.md, "Uses"): the use decides which
// form rows may pack it. Two tables: the traits of each use, and the consumers — which input
// of which operator is read as which use — that `vtensor compile` and the layout-assignment
// pass loop over instead of naming operators themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "vtensor/graph/graph.h"

namespace vt {

enum class WeightUse : uint8_t {
  kMatMulB,     // MatMul right operand B[K, N] (2-D)
  kGemmB,       // Gemm B [K, N] (transB = 0)
  kGemmBTrans,  // Gemm B with transB = 1, logical shape [N, K]
  kConvFilter,  // Conv W[M, C/group, k...]
  // com.microsoft MatMulNBits planes (bits = 4; kernels/nbits/nbits_ukernel.h), each a
  // row-major [rows = N][cols][unit] array in any of the shapes the operator allows:
  kNBitsCodes,       // B uint8 [N, kb, bs/2]
  kNBitsScales,      // scales f32 [N, kb] or [N * kb]
  kNBitsZeroPoints,  // zero_points uint8 [N, ceil(kb/2)] / [N * ceil(kb/2)], or f32 like scales
};

// One bit per use, for the use masks of the form table (forms/form_table.h).
constexpr uint32_t UseBit(WeightUse u) { return uint32_t{1} << static_cast<unsigned>(u); }

// Extra facts about the consuming node the form depends on.
struct WeightUseInfo {
  WeightUse use = WeightUse::kMatMulB;
  int64_t group = 1;              // Conv
  bool unit_strides_pads = true;  // Conv: all strides 1 and all pads 0
  bool unit_strides_dilations = false;  // Conv: all strides and dilations 1 (Winograd)
  // MatMulNBits planes: rows (N), units per row and elements per unit (bs/2 for codes, else 1).
  int64_t nbits_rows = 0;
  int64_t nbits_cols = 0;
  int64_t nbits_unit = 1;
  bool nbits_q8 = false;  // accuracy_level 4: int8 activations (names the q8 row in --explain)
  // GEMM B uses: the rows M of the GEMM that reads the weight (A's batch axes folded in), from
  // static shapes (StaticGemmRows); 0 when not known. Small M lets the weight be read in
  // place in its source layout (docs/weight-forms.md, "Source layout, read in place").
  int64_t rows = 0;
  // The consuming kernel computes with f32 weights only (ai.vtensor Dense, com.microsoft
  // FusedMatMul: no int4 or int8 path), so lossy forms are turned down under every profile
  // rather than packed, cached and then not read.
  bool lossless_only = false;
};

struct WeightUseTraits {
  WeightUse use;
  const char* name;  // "matmul_b", "conv_filter", ...
  bool matrix;       // a GEMM B operand: the weight is 2-D
  bool b_trans;      // matrix stored [N, K] (Gemm transB = 1)
};

// Traits of `u`.
const WeightUseTraits& GetWeightUseTraits(WeightUse u);

// One operator input whose constant the packing kernels read.
struct WeightConsumer {
  const char* domain;   // "" = the default ONNX domain
  const char* op_type;  // "MatMul"
  size_t input;         // input index of the weight
  // The use facts known from the node alone. MatMulNBits plane geometry (nbits_rows, ...)
  // depends on the stored types too: the operator fills it (ops/contrib/matmul_nbits.cc).
  WeightUseInfo (*use_of)(const Node& node);
  // Layout-assignment records a target's preferred layout on this weight (f32 GEMM B operands
  // and Conv filters); already-quantized planes keep the form their operator gives them.
  bool target_layout;
};

// The rows M of the GEMM that MatMul or Gemm node `node` of graph `g` computes against a 2-D B:
// the static type of its A operand in g.values (Graph::values; the session's gemm-shapes pass
// records it, passes/gemm_shapes.cc), with A's leading axes folded into M (MatMul) or transA
// honoured (Gemm). 0 when A's type is unknown or has an unknown dim, or for other operators.
int64_t StaticGemmRows(const Graph& g, const Node& node);

// Every consumer, in a fixed order.
std::span<const WeightConsumer> WeightConsumers();

// The consumer reading input `input` of an `op_type` node of `domain` ("" or "ai.onnx" for the
// default domain), or null when no packing kernel reads it.
const WeightConsumer* FindWeightConsumer(std::string_view domain, std::string_view op_type,
                                         size_t input);

}  // namespace vt
