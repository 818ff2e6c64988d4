#include "forms/rows/row_util.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "vtensor/base/page_memory.h"
#include "vtensor/format/compiled_model.h"

namespace vt::rows {

std::string Dims(const Shape& s) { return ShapeToString(s); }

WeightForm MakeForm(const FormRow& row, const FormType& type, Layout layout, IsaLevel isa,
                    int64_t panel, const char* kernel) {
  WeightForm f;
  f.kind = row.kind;
  f.type_name = type.name;
  f.format_version = type.format_version;
  f.layout = std::move(layout);
  f.isa = isa;
  f.lossless = row.lossless;
  f.panel = panel;
  f.kernel = kernel;
  return f;
}

void RejectLayout(const Status& layout, WeightFormCandidate* c) {
  c->rejected = "layout not expressible: " + layout.message();
}

std::string NoKernel(const char* what, IsaLevel isa) {
  return std::string("no ") + what + " for " + IsaArchitecture(isa);
}

Status CheckF32Weight(const Tensor& weight, const WeightForm& form) {
  if (weight.dtype() != DType::kFloat32)
    return InvalidArgument(std::string("packing form ") + form.type_name + ": weight is " +
                           DTypeName(weight.dtype()) + ", expected float32");
  if (weight.shape() != form.layout.shape())
    return InvalidArgument("packing form " + form.type_name + ": weight shape " +
                           Dims(weight.shape()) + " differs from the form's " +
                           Dims(form.layout.shape()));
  return Status::Ok();
}

Status PanelBytesMismatch(const WeightForm& form, const Shape& s, int64_t have, int64_t need,
                          const char* what) {
  return Internal("form " + form.type_name + " of " + Dims(s) + ": layout holds " +
                  std::to_string(have) + " bytes, " + what + " need " + std::to_string(need));
}

PackedWeight AllocPacked(size_t n) {
  void* p = AllocZeroedPages(n);
  if (p == nullptr) throw std::bad_alloc();
  PackedWeight w;
  w.data = static_cast<const uint8_t*>(p);
  w.size = n;
  w.keep_alive = std::shared_ptr<const void>(
      p, [n](const void* q) { FreeZeroedPages(const_cast<void*>(q), n); });
  return w;
}

Expected<bool> PackAndCompare(const Tensor& weight, const WeightForm& form, const uint8_t* payload,
                              size_t size) {
  auto packed = PackWeightForm(weight, form);
  if (!packed.ok()) return packed.take_status();
  return packed->size == size && std::memcmp(packed->data, payload, size) == 0;
}

vtensor::StructTypeProto LayoutAndFieldsStructType(const WeightForm& form) {
  vtensor::StructTypeProto t = StructTypeForLayout(form.layout, form.type_name, form.format_version);
  if (form.fields.empty()) return t;
  for (const FormField& ff : form.fields) {
    auto* f = t.add_fields();
    f->set_name(ff.name);
    f->set_encoding(GetEncodingTraits(ff.encoding).name);
    f->add_shape()->set_dim_value(ff.elements);
    f->set_offset(ff.offset);
    f->set_alignment(64);
  }
  t.set_byte_size(form.bytes());
  t.clear_decoder();  // the layout's decoder would ignore the fields
  return t;
}

}  // namespace vt::rows
