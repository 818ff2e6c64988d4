// Weight forms and the weight-form resolver (docs/design.md §3.5).
//
// A weight form is one physical representation of a constant weight that a kernel consumes
// directly: its physical type name and format version (the StructTypeProto key of a compiled
// tensor), its Layout (logical shape = the source initializer's shape, physical levels,
// encoding), the instruction-set level whose microkernels read it, and whether it is lossless.
//
// The resolver is the one planner: kernel factories (MatMul, Gemm, Conv), `vtensor compile`
// and the layout-assignment pass all ask it which form a weight gets, so a compiled entry is
// exactly what a session on that device would have packed itself. For each weight it returns
// every candidate in preference order with the reason each rejected one was rejected
// (`--explain`). Decision inputs: the weight's stored encoding and shape, how the node reads
// it (WeightUseInfo), the device's ISA level and the profile:
//   exact    (default) lossless forms only: results equal the uncompiled model's.
//   compact  requantized forms allowed: int4 blocks of 32 with error-minimising scales for
//            MatMul weights, int8 per output channel for Gemm weights; results change by the
//            quantization error, deterministically (a hit computes what a miss computes).
// com.microsoft MatMulNBits weights are already quantized: each of their planes (codes,
// scales, zero points) gets a lossless panel form in both profiles (kernels/nbits).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/layout/layout.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// ABI version of every packed layout and kernel contract (DeviceProto.runtime_version of the
// entries vtensor writes). Bump whenever a packed layout, a form's meaning or a kernel's
// reading of one changes: entries written under another version are cache misses.
inline constexpr const char kPackedAbiVersion[] = "1";
// DeviceProto.runtime of vtensor's entries.
inline constexpr const char kRuntimeName[] = "vtensor";

// Instruction-set levels of the CPU kernels, and their DeviceProto.architecture names.
enum class IsaLevel : uint8_t { kBaseline, kAvx2, kAvx512 };
// "x86_64-baseline", "x86_64-avx2", "x86_64-avx512".
const char* IsaArchitecture(IsaLevel isa);
// Inverse of IsaArchitecture; "native" gives HostIsa(). nullopt for other names.
std::optional<IsaLevel> IsaFromArchitecture(std::string_view name);
// The best level this CPU (and OS) supports; the kernels' default dispatch uses it.
IsaLevel HostIsa();
// True when this CPU can run kernels of `isa`.
bool IsaSupported(IsaLevel isa);

enum class WeightProfile : uint8_t { kExact, kCompact };
const char* WeightProfileName(WeightProfile p);  // "exact", "compact"
std::optional<WeightProfile> WeightProfileFromName(std::string_view name);

// How a weight is consumed, which decides the kernel that reads it.
enum class WeightUse {
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

// Extra facts about the consuming node the form depends on.
struct WeightUseInfo {
  WeightUse use = WeightUse::kMatMulB;
  int64_t group = 1;              // Conv
  bool unit_strides_pads = true;  // Conv: all strides 1 and all pads 0
  // MatMulNBits planes: rows (N), units per row and elements per unit (bs/2 for codes, else 1).
  int64_t nbits_rows = 0;
  int64_t nbits_cols = 0;
  int64_t nbits_unit = 1;
  bool nbits_q8 = false;  // accuracy_level 4: int8 activations (names the q8 row in --explain)
};

// How Conv computes (src/ops/nn/conv.cc); decided here so that packing and compute agree.
enum class ConvWeightMode { kDepthwise, kPointwise, kTapMajor, kPacked, kIm2colNd };
// Below this many input channels per group, tap-major K blocks are too short.
inline constexpr int64_t kConvTapMajorMinChannels = 16;
// Mode of a convolution with filter `w` [M, C/group, k...] over an input of rank w.size().
ConvWeightMode ChooseConvWeightMode(const Shape& w, int64_t group, bool unit_strides_pads);

enum class WeightFormKind : uint8_t {
  kF32GemmBPanels,  // f32 NR-wide column panels of a GEMM B operand (f32_gemm_pack.h)
  kF32ConvAPanels,  // f32 MR-high row panels of a Conv filter per group (A operand)
  kQ4_0GemmB,       // q4_0 blocks of 32 along K, kernel-feed order (compact profile)
  kS8GemmBPerChannel,  // int8 NR-wide column panels + one f32 scale per output channel
                       // (compact profile, Gemm B)
  kNBitsPanels,  // a MatMulNBits plane in 16-row panels (kernels/nbits/nbits_pack.h; lossless)
};

struct WeightForm {
  WeightFormKind kind = WeightFormKind::kF32GemmBPanels;
  std::string type_name;       // StructTypeProto.name, e.g. "vt.f32_gemm_b_panels"
  int64_t format_version = 1;  // StructTypeProto.format_version
  Layout layout;               // shape == the source weight's shape; encoding set
  IsaLevel isa = IsaLevel::kBaseline;
  bool lossless = true;
  // kF32GemmBPanels: NR; kF32ConvAPanels: MR; kQ4_0GemmB: panel rows.
  int64_t panel = 0;
  std::string kernel;          // microkernel the form feeds ("f32_gemm_8x32_avx512")
  bool b_trans = false;  // GEMM B forms: logical shape is [N, K] (Gemm transB = 1)
  ConvWeightMode conv_mode = ConvWeightMode::kPointwise;  // kF32ConvAPanels
  int64_t group = 1;                                      // kF32ConvAPanels

  // Bytes after the layout's storage (kS8GemmBPerChannel: the f32 scales, at a 64-byte aligned
  // offset `extra_offset`).
  int64_t extra_offset = 0;
  int64_t extra_bytes = 0;
  // kNBitsPanels: plane geometry (rows, units per row, bytes per unit).
  int64_t nbits_rows = 0;
  int64_t nbits_cols = 0;
  int64_t nbits_unit_bytes = 0;

  // Payload bytes: the layout's storage, then the extra field if any.
  int64_t bytes() const { return extra_bytes > 0 ? extra_offset + extra_bytes : layout.StorageBytes(); }
  // True when `type_name`, `format_version` and `layout` equal o's (the cache-key part).
  bool SameAs(const WeightForm& o) const {
    return type_name == o.type_name && format_version == o.format_version && layout == o.layout;
  }
};

// One candidate considered for a weight: a form with an empty `rejected`, or the reason it
// was not usable. `description` names the form and kernel for --explain.
struct WeightFormCandidate {
  std::optional<WeightForm> form;
  std::string description;
  std::string rejected;  // empty: acceptable
};

// Every candidate for a weight of dtype `dtype` and `shape` read as `use` on `isa` under
// `profile`, in preference order (the first acceptable one is what a cache miss packs).
// Weights that no kernel packs yield only rejected candidates. Never fails.
std::vector<WeightFormCandidate> WeightFormCandidates(DType dtype, const Shape& shape,
                                                      const WeightUseInfo& use, IsaLevel isa,
                                                      WeightProfile profile);
// The first acceptable candidate's form, or nullopt.
std::optional<WeightForm> ResolveWeightForm(DType dtype, const Shape& shape,
                                            const WeightUseInfo& use, IsaLevel isa,
                                            WeightProfile profile);
// All forms the runtime knows, by type name, for the loading rules' unknown-physical-type /
// unknown-format-version checks: the version of `type_name`, or nullopt if unknown.
std::optional<int64_t> KnownWeightFormVersion(std::string_view type_name);

// The StructTypeProto a compiled entry of `form` carries: the layout, its fields ("data" with
// the layout's elements; "scales" f32 [N padded] for kS8GemmBPerChannel) and byte size.
vtensor::StructTypeProto StructTypeForForm(const WeightForm& form);

// Immutable packed bytes: owned (64-byte aligned heap) or borrowed (a mapped payload kept
// alive by `keep_alive`).
struct PackedWeight {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
};

// Packs `weight` (f32; uint8 or f32 for kNBitsPanels; contiguous or not; shape ==
// form.layout.shape()) into `form`. Deterministic: the same bytes for the same input on every
// machine and thread count. Errors: InvalidArgument for a dtype or shape mismatch.
Expected<PackedWeight> PackWeightForm(const Tensor& weight, const WeightForm& form);

}  // namespace vt
