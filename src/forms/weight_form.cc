// The resolver: loops over the form table (forms/form_table.h); nothing here names a kind.
#include "vtensor/forms/weight_form.h"

#include <algorithm>

#include "vtensor/forms/form_table.h"

namespace vt {

namespace {

// The single candidate that turns a weight down for every row reading float32 weights.
WeightFormCandidate PackedFormsRejected(std::string reason) {
  WeightFormCandidate c;
  c.description = "packed forms";
  c.rejected = std::move(reason);
  return c;
}

// Why no f32-source row can take the weight, or "" when they may look at it.
std::string F32SourceRejection(DType dtype, const Shape& shape) {
  if (dtype != DType::kFloat32)
    return std::string("stored element type ") + DTypeName(dtype) +
           " is computed through f32 conversion at run time (only f32 weights are packed)";
  for (int64_t d : shape)
    if (d <= 0) return "weight " + ShapeToString(shape) + " is empty";
  return "";
}

WeightFormCandidate Candidate(const FormRow& row, const WeightRequest& r) {
  WeightFormCandidate c;
  c.description = row.describe(r);
  if (!row.lossless && !ProfileAllowsLossy(r.profile))
    c.rejected = "profile exact allows lossless forms only (--profile compact enables it)";
  else if (!row.lossless && r.use.lossless_only)
    c.rejected = "the consuming kernel computes with f32 weights only (no path for this form)";
  else if (!(row.packed_uses & UseBit(r.use.use)))
    c.rejected = row.use_rejection ? row.use_rejection(r.use.use) : "not a use this form packs";
  else
    row.build(r, &c);
  return c;
}

}  // namespace

int64_t WeightForm::bytes() const {
  int64_t end = layout.StorageBytes();
  for (const FormField& f : fields) end = std::max(end, f.offset + f.bytes());
  return end;
}

const FormField* WeightForm::field(std::string_view name) const {
  for (const FormField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<WeightFormCandidate> WeightFormCandidates(DType dtype, const Shape& shape,
                                                      const WeightUseInfo& use, IsaLevel isa,
                                                      WeightProfile profile) {
  const WeightRequest r{dtype, shape, use, isa, profile};
  std::vector<const FormRow*> listed;
  for (const FormRow* row : FormTable())
    if (row->listed_uses & UseBit(use.use)) listed.push_back(row);
  std::vector<WeightFormCandidate> out;
  if (std::any_of(listed.begin(), listed.end(), [](const FormRow* row) { return row->f32_source; })) {
    std::string why = F32SourceRejection(dtype, shape);
    if (!why.empty()) {
      out.push_back(PackedFormsRejected(std::move(why)));
      return out;
    }
  }
  for (const FormRow* row : listed) out.push_back(Candidate(*row, r));
  return out;
}

std::optional<WeightForm> ResolveWeightForm(DType dtype, const Shape& shape,
                                            const WeightUseInfo& use, IsaLevel isa,
                                            WeightProfile profile) {
  for (auto& c : WeightFormCandidates(dtype, shape, use, isa, profile))
    if (c.rejected.empty() && c.form) return std::move(c.form);
  return std::nullopt;
}

std::optional<int64_t> KnownWeightFormVersion(std::string_view type_name) {
  for (const FormRow* row : FormTable())
    for (const FormType& t : row->types)
      if (type_name == t.name) return t.format_version;
  return std::nullopt;
}

Expected<PackedWeight> PackWeightForm(const Tensor& weight, const WeightForm& form) {
  const FormRow* row = FindFormRow(form.kind);
  if (row == nullptr) return Internal("form " + form.type_name + ": no row of its kind in the form table");
  return row->pack(weight, form);
}

std::optional<Expected<bool>> CompareWithFreshPack(const Tensor& weight, const WeightForm& form,
                                                   const uint8_t* payload, size_t size) {
  const FormRow* row = FindFormRow(form.kind);
  if (row == nullptr || row->compare == nullptr) return std::nullopt;
  return row->compare(weight, form, payload, size);
}

vtensor::StructTypeProto StructTypeForForm(const WeightForm& form) {
  const FormRow* row = FindFormRow(form.kind);
  if (row == nullptr) return vtensor::StructTypeProto();
  return row->struct_type(form);
}

}  // namespace vt
