// Weight forms and the weight-form resolver (docs/weight-forms.md).
//
// A weight form is one physical representation of a constant weight that a kernel consumes
// directly: its physical type name and format version (the StructTypeProto key of a compiled
// tensor), its Layout (logical shape = the source initializer's shape, physical levels,
// encoding), any fields stored after the layout's bytes, the instruction-set level whose
// microkernels read it, and whether it is lossless.
//
// The resolver is the one planner: kernel factories (MatMul, Gemm, Conv, MatMulNBits),
// `vtensor compile` and the layout-assignment pass all ask it which form a weight gets, so a
// compiled entry is exactly what a session on that device would have packed itself. It loops
// over the form table (forms/form_table.h, one row per form kind in preference order) and
// returns every candidate with the reason each rejected one was rejected (`--explain`).
// Decision inputs: the weight's stored element type and shape, how the node reads it
// (WeightUseInfo), the device's ISA level and the profile (forms/weight_profile.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/forms/conv_mode.h"
#include "vtensor/forms/isa.h"
#include "vtensor/forms/weight_profile.h"
#include "vtensor/forms/weight_use.h"
#include "vtensor/layout/layout.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

// ABI version of every packed layout and kernel contract (DeviceProto.runtime_version of the
// entries vtensor writes). Bump whenever a packed layout, a form's meaning or a kernel's
// reading of one changes: entries written under another version are cache misses.
inline constexpr const char kPackedAbiVersion[] = "1";
// DeviceProto.runtime of vtensor's entries.
inline constexpr const char kRuntimeName[] = "vtensor";

// One per row of the form table; the operator that reads a form tests the kind.
enum class WeightFormKind : uint8_t {
  kF32GemmBPanels,     // f32 NR-wide column panels of a GEMM B operand (f32_gemm_pack.h)
  kF32ConvAPanels,     // f32 MR-high row panels of a Conv filter per group (A operand)
  kQ4_0GemmB,          // q4_0 blocks of 32 along K, kernel-feed order (compact profile)
  kS8GemmBPerChannel,  // int8 NR-wide column panels + one f32 scale per output channel
                       // (compact profile, Gemm B)
  kNBitsPanels,        // a MatMulNBits plane in 16-row panels (kernels/nbits/nbits_pack.h)
  kF32SourceInPlace,   // f32 GEMM B in its source layout, read in place by a small-M kernel
                       // (kernels/gemm/f32_gemv.h): nothing packed, cached or written
};

// Facts a form's packer needs beyond its layout, one struct per kind that has any.
struct GemmBParams {  // kF32GemmBPanels, kS8GemmBPerChannel, kF32SourceInPlace
  bool b_trans = false;  // the source is stored [N, K] (Gemm transB = 1)
};
struct ConvAParams {  // kF32ConvAPanels
  ConvWeightMode mode = ConvWeightMode::kPacked;
  int64_t group = 1;
};
struct NBitsParams {  // kNBitsPanels: plane geometry
  int64_t rows = 0;        // N
  int64_t cols = 0;        // units per row
  int64_t unit_bytes = 0;  // bytes per unit
};
using FormParams = std::variant<std::monostate, GemmBParams, ConvAParams, NBitsParams>;

// A field of the payload after the layout's storage (kS8GemmBPerChannel: "scales").
struct FormField {
  std::string name;
  Encoding encoding = Encoding::kF32;
  int64_t elements = 0;
  int64_t offset = 0;  // bytes from the payload start; 64-byte aligned, >= the layout's storage
  int64_t bytes() const { return EncodedBytes(encoding, elements); }
};

struct WeightForm {
  WeightFormKind kind = WeightFormKind::kF32GemmBPanels;
  std::string type_name;       // StructTypeProto.name, e.g. "vt.f32_gemm_b_panels"
  int64_t format_version = 1;  // StructTypeProto.format_version
  Layout layout;               // shape == the source weight's shape; encoding set
  IsaLevel isa = IsaLevel::kBaseline;
  bool lossless = true;
  // Panel size of the kernel contract: NR (GEMM B panels), MR (Conv A panels), rows (q4_0,
  // MatMulNBits panels); for the source read in place, the most rows of A its kernel takes.
  int64_t panel = 0;
  std::string kernel;  // microkernel the form feeds ("f32_gemm_8x32_avx512")
  std::vector<FormField> fields;
  FormParams params;

  // Payload bytes: the layout's storage, then the fields.
  int64_t bytes() const;
  // The field called `name`, or null.
  const FormField* field(std::string_view name) const;
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

// The StructTypeProto a compiled entry of `form` carries (its row's emission): the layout, its
// fields ("data" with the layout's elements, then form.fields) and byte size.
vtensor::StructTypeProto StructTypeForForm(const WeightForm& form);

// Immutable packed bytes: owned (64-byte aligned heap) or borrowed (a mapped payload kept
// alive by `keep_alive`).
struct PackedWeight {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
  bool mapped = false;  // the bytes lie in a file mapping (a compiled entry's external payload)
};

// Packs `weight` (contiguous or not; shape == form.layout.shape(); the element type its row
// reads) into `form` with its row's packer: form.bytes() bytes. Deterministic: the same bytes
// for the same input on every machine and thread count. Errors: InvalidArgument for a dtype or
// shape mismatch, Internal when the form's layout and its kernel's packer disagree.
Expected<PackedWeight> PackWeightForm(const Tensor& weight, const WeightForm& form);

// Whether `payload` (`size` bytes) equals PackWeightForm(weight, form), bit for bit, decided
// without a digest: the verification of a compiled entry by the first load under the `memo`
// policy (docs/compiled-tensors.md, "First load under memo"). nullopt when the form's row has
// no comparison cheaper than hashing (the caller hashes instead). Rows compare through a
// bounded scratch buffer where they can, so no packed copy is allocated. Errors as
// PackWeightForm's.
std::optional<Expected<bool>> CompareWithFreshPack(const Tensor& weight, const WeightForm& form,
                                                   const uint8_t* payload, size_t size);

}  // namespace vt
