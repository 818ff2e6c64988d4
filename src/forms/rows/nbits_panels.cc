// Row vt.nbits_{codes,scales,zero_points}_panels: a com.microsoft MatMulNBits plane, row-major
// [rows = N][cols][unit] in any shape the operator allows, in 16-row panels
// (kernels/nbits/nbits_pack.h): unit (row, c) moves to ((row / 16) * cols + c) * 16 + row % 16.
// Lossless, in both profiles: the planes are already quantized. One struct type per plane.
#include "forms/kernel_rows.h"
#include "forms/rows/row_util.h"
#include "kernels/nbits/nbits_pack.h"
#include "kernels/nbits/nbits_ukernel.h"

namespace vt::rows {

extern const FormRow kNBitsPanels;  // listed in src/forms/form_table.cc

namespace {

constexpr FormType kTypes[] = {{"vt.nbits_codes_panels", 1},
                               {"vt.nbits_scales_panels", 1},
                               {"vt.nbits_zero_points_panels", 1}};

const FormType& TypeOf(WeightUse u) {
  return u == WeightUse::kNBitsCodes ? kTypes[0] : u == WeightUse::kNBitsScales ? kTypes[1] : kTypes[2];
}

// Shapes: [rows, cols, unit], [rows, cols] (unit 1) or [rows * cols] (unit 1).
Expected<Layout> NBitsPanelLayout(const Shape& shape, Encoding enc, int64_t rows, int64_t cols,
                                  int64_t unit) {
  const int64_t R = kernels::kNBitsRows;
  const int64_t padded_rows = (rows + R - 1) / R * R;
  LayoutSpec s;
  s.shape = shape;
  s.encoding = enc;
  s.padded = shape;
  if (shape.size() == 3 && shape[0] == rows && shape[1] == cols && shape[2] == unit) {
    s.padded[0] = padded_rows;
    s.levels = {{0, R, cols * R * unit}, {0, 1, unit}, {1, 1, R * unit}, {2, 1, 1}};
  } else if (shape.size() == 2 && unit == 1 && shape[0] == rows && shape[1] == cols) {
    s.padded[0] = padded_rows;
    s.levels = {{0, R, cols * R}, {0, 1, 1}, {1, 1, R}};
  } else if (shape.size() == 1 && unit == 1 && shape[0] == rows * cols) {
    s.padded[0] = padded_rows * cols;
    s.levels = {{0, R * cols, R * cols}, {0, cols, 1}, {0, 1, R}};
  } else {
    return InvalidArgument("plane " + ShapeToString(shape) + " is not [" + std::to_string(rows) +
                           "," + std::to_string(cols) + (unit > 1 ? "," + std::to_string(unit) : "") +
                           "] or its flattening");
  }
  return Layout::Make(s);
}

std::string Describe(const WeightRequest& r) {
  // The row the operator runs on this ISA level (the panels are the same for every row).
  return std::string("MatMulNBits plane in 16-row panels (") + TypeOf(r.use.use).name + ") for " +
         NBitsGemmRowName(r.isa, r.use.nbits_q8);
}

void Build(const WeightRequest& r, WeightFormCandidate* c) {
  const WeightUse use = r.use.use;
  const bool u8 = r.dtype == DType::kUInt8, f32 = r.dtype == DType::kFloat32;
  if (!(u8 && use != WeightUse::kNBitsScales) && !(f32 && use != WeightUse::kNBitsCodes)) {
    c->rejected = std::string("stored element type ") + DTypeName(r.dtype) +
                  " (codes and packed zero points are uint8, scales float32; other scale types "
                  "are widened at load, not cached)";
    return;
  }
  const int64_t unit = use == WeightUse::kNBitsCodes ? r.use.nbits_unit : 1;
  auto l = NBitsPanelLayout(r.shape, u8 ? Encoding::kU8 : Encoding::kF32, r.use.nbits_rows,
                            r.use.nbits_cols, unit);
  if (!l.ok()) return RejectLayout(l.status(), c);
  WeightForm f = MakeForm(kNBitsPanels, TypeOf(use), std::move(*l), r.isa, kernels::kNBitsRows,
                          NBitsGemmRowName(r.isa, r.use.nbits_q8));
  f.params = NBitsParams{r.use.nbits_rows, r.use.nbits_cols,
                         unit * static_cast<int64_t>(DTypeSize(r.dtype))};
  c->form = std::move(f);
}

Expected<PackedWeight> Pack(const Tensor& weight, const WeightForm& form) {
  const auto* p = std::get_if<NBitsParams>(&form.params);
  if (p == nullptr) return Internal("form " + form.type_name + " carries no plane geometry");
  if (weight.shape() != form.layout.shape() ||
      p->rows * p->cols * p->unit_bytes != static_cast<int64_t>(weight.nbytes()))
    return InvalidArgument("packing form " + form.type_name + ": plane " + Dims(weight.shape()) +
                           " does not hold " + std::to_string(p->rows) + " rows of " +
                           std::to_string(p->cols) + " units");
  const Tensor w = weight.Contiguous();
  PackedWeight out = AllocPacked(static_cast<size_t>(form.bytes()));
  const size_t rows = static_cast<size_t>(p->rows), cols = static_cast<size_t>(p->cols),
               unit = static_cast<size_t>(p->unit_bytes);
  const size_t need = kernels::NBitsPanelBytes(rows, cols, unit);
  if (need != out.size)
    return PanelBytesMismatch(form, weight.shape(), static_cast<int64_t>(out.size),
                              static_cast<int64_t>(need));
  kernels::PackNBitsRowsToPanels(rows, cols, unit, static_cast<const uint8_t*>(w.raw_data()),
                                 const_cast<uint8_t*>(out.data));
  return out;
}

std::vector<WeightRequest> Samples() {
  // N = 37 rows, kb = 5 blocks of 32 (16 code bytes each), zero points packed two per byte.
  auto plane = [](DType t, Shape s, WeightUse u, int64_t cols, int64_t unit, bool q8) {
    WeightRequest r{t, std::move(s), {u}};
    r.use.nbits_rows = 37;
    r.use.nbits_cols = cols;
    r.use.nbits_unit = unit;
    r.use.nbits_q8 = q8;
    return r;
  };
  const DType u8 = DType::kUInt8, f32 = DType::kFloat32;
  return {plane(u8, {37, 5, 16}, WeightUse::kNBitsCodes, 5, 16, false),
          plane(u8, {37, 5, 16}, WeightUse::kNBitsCodes, 5, 16, true),
          plane(f32, {37, 5}, WeightUse::kNBitsScales, 5, 1, false),
          plane(f32, {37 * 5}, WeightUse::kNBitsScales, 5, 1, false),
          plane(u8, {37, 3}, WeightUse::kNBitsZeroPoints, 3, 1, false),
          plane(u8, {37 * 3}, WeightUse::kNBitsZeroPoints, 3, 1, false),
          plane(f32, {37, 5}, WeightUse::kNBitsZeroPoints, 5, 1, false)};
}

}  // namespace

constinit const FormRow kNBitsPanels = {
    WeightFormKind::kNBitsPanels,
    "nbits_panels",
    kTypes,
    /*lossless=*/true,
    UseBit(WeightUse::kNBitsCodes) | UseBit(WeightUse::kNBitsScales) |
        UseBit(WeightUse::kNBitsZeroPoints),
    UseBit(WeightUse::kNBitsCodes) | UseBit(WeightUse::kNBitsScales) |
        UseBit(WeightUse::kNBitsZeroPoints),
    /*f32_source=*/false,
    /*use_rejection=*/nullptr,
    Describe,
    Build,
    Pack,
    PackAndCompare,
    LayoutAndFieldsStructType,
    Samples,
    /*source_in_place=*/false,
};

}  // namespace vt::rows
