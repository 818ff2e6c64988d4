// Pieces every form row (src/forms/rows/*.cc) shares: building a form, turning a candidate
// down, checking the weight a packer is given, the packed buffer, and the usual struct type.
#pragma once

#include <cstddef>
#include <string>

#include "vtensor/forms/form_table.h"

namespace vt::rows {

// "[7,33]".
std::string Dims(const Shape& s);

// A form of `row`'s kind and first struct type; kind-specific fields are set by the caller.
WeightForm MakeForm(const FormRow& row, const FormType& type, Layout layout, IsaLevel isa,
                    int64_t panel, const char* kernel);

// Turns `c` down because its layout could not be built (`layout` holds the error).
void RejectLayout(const Status& layout, WeightFormCandidate* c);

// "no f32 GEMM microkernel for x86_64-avx2"-style reason for a missing kernel-table row.
std::string NoKernel(const char* what, IsaLevel isa);

// Checks that `weight` is float32 with the form's logical shape (InvalidArgument naming the
// form otherwise).
Status CheckF32Weight(const Tensor& weight, const WeightForm& form);

// Internal error: the form's layout holds `have` bytes where its kernel's packer writes `need`.
Status PanelBytesMismatch(const WeightForm& form, const Shape& s, int64_t have, int64_t need,
                          const char* what = "panels");

// 64-byte aligned zeroed buffer of `n` bytes owned by the returned PackedWeight.
PackedWeight AllocPacked(size_t n);

// FormRow::compare by packing `weight` whole with the form's row and comparing the bytes: for
// rows whose pack is cheaper than a digest but cannot be cut into pieces (conv filters,
// MatMulNBits planes, mostly small).
Expected<bool> PackAndCompare(const Tensor& weight, const WeightForm& form, const uint8_t* payload,
                              size_t size);

// The struct type of a form whose payload is its layout's storage followed by form.fields
// (each 64-byte aligned, listed as a field after "data"). With fields the layout's decoder is
// dropped (it would not read them).
vtensor::StructTypeProto LayoutAndFieldsStructType(const WeightForm& form);

}  // namespace vt::rows
