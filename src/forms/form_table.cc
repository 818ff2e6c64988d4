// The form table: every row, in preference order. Adding a form kind is one file under
// rows/ and one line here (docs/weight-forms.md, "Adding a form kind").
#include "vtensor/forms/form_table.h"

namespace vt {

namespace rows {
extern const FormRow kQ4_0GemmB;
extern const FormRow kS8GemmBPerChannel;
extern const FormRow kF32SourceInPlace;
extern const FormRow kF32GemmBPanels;
extern const FormRow kF32ConvAPanels;
extern const FormRow kNBitsPanels;
}  // namespace rows

namespace {

// Lossy rows come first: under the compact profile they win over the lossless form of the same
// use; under exact they are listed (rejected) so --explain shows what compact would pick. The
// source read in place precedes the packed panels: it takes only the GEMMs of a few rows.
constinit const FormRow* const kRows[] = {
    &rows::kQ4_0GemmB,      &rows::kS8GemmBPerChannel, &rows::kF32SourceInPlace,
    &rows::kF32GemmBPanels, &rows::kF32ConvAPanels,    &rows::kNBitsPanels,
};

}  // namespace

std::span<const FormRow* const> FormTable() { return kRows; }

const FormRow* FindFormRow(WeightFormKind kind) {
  for (const FormRow* r : kRows)
    if (r->kind == kind) return r;
  return nullptr;
}

}  // namespace vt
