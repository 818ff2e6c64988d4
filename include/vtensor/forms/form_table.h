// The form table (docs/weight-forms.md): one row per weight form kind, in preference order.
// A row says everything about its kind — the struct types it emits, which weights it accepts
// and why it turns the others down, how it builds the form, how it packs and how it is
// written into a file — so that the resolver, the loading rules, `vtensor compile`,
// `--explain` and the table test loop over the rows instead of naming kinds. Each row lives in
// its own file under src/forms/rows/.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vtensor/forms/weight_form.h"

namespace vt {

// What a row is asked about: one weight, how its node reads it, and the device.
struct WeightRequest {
  DType dtype = DType::kFloat32;  // stored element type
  Shape shape;
  WeightUseInfo use;
  IsaLevel isa = IsaLevel::kBaseline;
  WeightProfile profile = WeightProfile::kExact;
};

// A physical type a row emits: StructTypeProto.name and format_version.
struct FormType {
  const char* name;
  int64_t format_version;
};

struct FormRow {
  WeightFormKind kind;
  const char* name;                 // the row's file under src/forms/rows/ ("q4_0_gemm_b")
  std::span<const FormType> types;  // every struct type its forms carry
  bool lossless;                    // false: offered under a profile that allows lossy forms
  // Accepted weights. `listed_uses`: the uses whose --explain shows this row (accepted or
  // not); `packed_uses` (a subset): the uses it packs — another listed use is turned down with
  // use_rejection(use). `f32_source`: the row reads float32 weights only; a weight of another
  // type, or an empty one, is turned down once for every such row ("packed forms").
  uint32_t listed_uses;
  uint32_t packed_uses;
  bool f32_source;
  const char* (*use_rejection)(WeightUse use);
  // Candidates: the --explain description (names the kernel), then, once the profile and use
  // are accepted, the form or the reason it cannot be built (shape, kernel, layout).
  std::string (*describe)(const WeightRequest& r);
  void (*build)(const WeightRequest& r, WeightFormCandidate* c);
  // Packing `weight` into one of this row's forms (PackWeightForm's contract).
  Expected<PackedWeight> (*pack)(const Tensor& weight, const WeightForm& form);
  // Whether `payload` (`size` bytes) is exactly what `pack` makes of `weight`, found without
  // hashing (CompareWithFreshPack's contract). Null for rows whose pack is dearer than a digest
  // of the source (lossy quantizers): their entries are always verified by hashing.
  Expected<bool> (*compare)(const Tensor& weight, const WeightForm& form, const uint8_t* payload,
                            size_t size);
  // The struct type a compiled entry of the form carries (StructTypeForForm's contract).
  vtensor::StructTypeProto (*struct_type)(const WeightForm& form);
  // Representative weights the row accepts (odd sizes included), for the table test
  // (src/forms/form_table_test.cc) and benchmarks.
  std::vector<WeightRequest> (*samples)();
  // The form is the source initializer's own bytes, read in place by its kernel: `pack` lends
  // them (no copy), the weight provider neither looks for a compiled entry nor reports it to
  // its observer, so `vtensor compile` writes no payload for it (docs/weight-forms.md, "Source
  // layout, read in place").
  bool source_in_place = false;
};

// Every row, in preference order: among the rows listing a use, the first acceptable
// candidate is what a cache miss packs.
std::span<const FormRow* const> FormTable();

// The row of `kind`, or null.
const FormRow* FindFormRow(WeightFormKind kind);

}  // namespace vt
