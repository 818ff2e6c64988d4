// The form table drives its own test: every row, for each representative weight it lists
// (FormRow::samples) on every ISA level, must be offered by the resolver, pack to exactly the
// bytes its Layout (and fields) describe, emit a struct type that names and sizes them, be
// known to the loading rules, round-trip bit for bit when lossless, and keep a stable cache
// key. A new row is tested by adding it to the table.
#include "vtensor/forms/form_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "vtensor/format/compiled_model.h"
#include "vtensor/layout/layout_pack.h"

namespace vt {
namespace {

// A weight of the request's type and shape: f32 normal values, uint8 codes in [0, 255].
Tensor SampleWeight(const WeightRequest& r, uint32_t seed) {
  Tensor t = Tensor::Empty(r.dtype, r.shape);
  std::mt19937 g(seed);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (r.dtype == DType::kUInt8) static_cast<uint8_t*>(t.raw_mutable_data())[i] = static_cast<uint8_t>(g());
    else static_cast<float*>(t.raw_mutable_data())[i] = normal(g);
  }
  return t;
}

std::vector<float> AsFloats(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<float>(t.GetDouble(i));
  return v;
}

std::string Describe(const FormRow& row, const WeightRequest& r) {
  return std::string(row.name) + " " + GetWeightUseTraits(r.use.use).name + " " + DTypeName(r.dtype) +
         ShapeToString(r.shape) + " " + IsaArchitecture(r.isa) + " " + WeightProfileName(r.profile);
}

// The candidate `row` contributes for `r` (rows listing a use answer in table order).
const WeightFormCandidate* RowCandidate(const FormRow& row, const WeightRequest& r,
                                        const std::vector<WeightFormCandidate>& cs) {
  size_t i = 0;
  for (const FormRow* t : FormTable()) {
    if (!(t->listed_uses & UseBit(r.use.use))) continue;
    if (t == &row) return i < cs.size() ? &cs[i] : nullptr;
    ++i;
  }
  return nullptr;
}

TEST(FormTableTest, RowsAreDistinctAndComplete) {
  std::set<int> kinds;
  std::set<std::string> names, types;
  for (const FormRow* row : FormTable()) {
    SCOPED_TRACE(row->name);
    EXPECT_TRUE(kinds.insert(static_cast<int>(row->kind)).second) << "kind listed twice";
    EXPECT_TRUE(names.insert(row->name).second);
    EXPECT_EQ(FindFormRow(row->kind), row);
    EXPECT_FALSE(row->types.empty());
    for (const FormType& t : row->types) {
      EXPECT_TRUE(types.insert(t.name).second) << t.name << " emitted by two rows";
      EXPECT_EQ(KnownWeightFormVersion(t.name), t.format_version);
    }
    EXPECT_NE(row->packed_uses, 0u);
    EXPECT_EQ(row->packed_uses & ~row->listed_uses, 0u) << "packs a use it does not list";
    if (row->packed_uses != row->listed_uses) {
      EXPECT_NE(row->use_rejection, nullptr);
    }
    EXPECT_TRUE(row->describe && row->build && row->pack && row->struct_type && row->samples);
    // Only the lossy quantizers pack slower than a digest (docs/compiled-tensors.md).
    EXPECT_EQ(row->compare == nullptr, row->kind == WeightFormKind::kQ4_0GemmB) << row->name;
    EXPECT_FALSE(row->samples().empty());
  }
  EXPECT_FALSE(KnownWeightFormVersion("vt.no_such_form").has_value());
}

// One sample of one row on one device and profile.
void CheckSample(const FormRow& row, const WeightRequest& r, uint32_t seed) {
  SCOPED_TRACE(Describe(row, r));
  const auto cs = WeightFormCandidates(r.dtype, r.shape, r.use, r.isa, r.profile);
  const WeightFormCandidate* c = RowCandidate(row, r, cs);
  ASSERT_NE(c, nullptr) << "the resolver lists no candidate of this row";
  EXPECT_FALSE(c->description.empty());
  if (!row.lossless && !ProfileAllowsLossy(r.profile)) {  // offered, turned down
    EXPECT_FALSE(c->rejected.empty());
    EXPECT_FALSE(c->form.has_value());
    return;
  }
  ASSERT_TRUE(c->rejected.empty()) << c->rejected;
  ASSERT_TRUE(c->form.has_value());
  const WeightForm& f = *c->form;
  EXPECT_EQ(f.kind, row.kind);
  EXPECT_EQ(f.isa, r.isa);
  EXPECT_EQ(f.lossless, row.lossless);
  EXPECT_EQ(f.layout.shape(), r.shape);
  EXPECT_GT(f.panel, 0);
  EXPECT_FALSE(f.kernel.empty());
  EXPECT_TRUE(std::any_of(row.types.begin(), row.types.end(), [&](const FormType& t) {
    return f.type_name == t.name && f.format_version == t.format_version;
  }));
  EXPECT_EQ(KnownWeightFormVersion(f.type_name), f.format_version);

  // Bytes: the layout's storage, then each field at a 64-byte aligned offset past it.
  int64_t end = f.layout.StorageBytes();
  for (const FormField& ff : f.fields) {
    EXPECT_GE(ff.offset, f.layout.StorageBytes()) << ff.name;
    EXPECT_EQ(ff.offset % 64, 0) << ff.name;
    end = std::max(end, ff.offset + ff.bytes());
  }
  EXPECT_EQ(f.bytes(), end);
  const Tensor w = SampleWeight(r, seed);
  auto p = PackWeightForm(w, f);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(static_cast<int64_t>(p->size), f.bytes());
  auto again = PackWeightForm(w, f);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::memcmp(again->data, p->data, p->size), 0) << "packing is not deterministic";

  // The first load under memo compares payloads with a fresh pack: the pack itself is equal, a
  // payload with one flipped byte or of another size is not.
  auto same = CompareWithFreshPack(w, f, p->data, p->size);
  ASSERT_EQ(same.has_value(), row.compare != nullptr);
  if (same) {
    ASSERT_TRUE(same->ok()) << same->status().message();
    EXPECT_TRUE(**same);
    std::vector<uint8_t> flipped(p->data, p->data + p->size);
    for (size_t at : {size_t{0}, flipped.size() / 2, flipped.size() - 1}) {
      flipped[at] ^= 0x10;
      auto d = CompareWithFreshPack(w, f, flipped.data(), flipped.size());
      ASSERT_TRUE(d && d->ok());
      EXPECT_FALSE(**d) << "byte " << at;
      flipped[at] ^= 0x10;
    }
    auto shorter = CompareWithFreshPack(w, f, p->data, p->size - 1);
    EXPECT_FALSE(shorter->ok() && **shorter);
  }

  // The struct type names the form and sizes exactly those bytes.
  const vtensor::StructTypeProto t = StructTypeForForm(f);
  EXPECT_EQ(t.name(), f.type_name);
  EXPECT_EQ(t.format_version(), f.format_version);
  EXPECT_EQ(t.byte_size(), f.bytes());
  ASSERT_EQ(t.fields_size(), 1 + static_cast<int>(f.fields.size()));
  EXPECT_EQ(t.fields(0).name(), "data");
  for (size_t i = 0; i < f.fields.size(); ++i) {
    EXPECT_EQ(t.fields(static_cast<int>(i) + 1).name(), f.fields[i].name);
    EXPECT_EQ(t.fields(static_cast<int>(i) + 1).offset(), f.fields[i].offset);
    auto fb = FieldBytes(t.fields(static_cast<int>(i) + 1));
    ASSERT_TRUE(fb.ok());
    EXPECT_EQ(*fb, f.fields[i].bytes());
  }
  auto layout = LayoutFromProto(t.layout());
  ASSERT_TRUE(layout.ok()) << layout.status().message();

  // Cache key: what the loading rules rebuild from the file matches the form, and resolving
  // again gives the same key.
  WeightForm from_file;
  from_file.type_name = t.name();
  from_file.format_version = t.format_version();
  from_file.layout = *layout;
  EXPECT_TRUE(from_file.SameAs(f));
  const auto cs2 = WeightFormCandidates(r.dtype, r.shape, r.use, r.isa, r.profile);
  const WeightFormCandidate* c2 = RowCandidate(row, r, cs2);
  ASSERT_TRUE(c2 && c2->form);
  EXPECT_TRUE(c2->form->SameAs(f));
  EXPECT_EQ(c2->description, c->description);

  // Lossless rows: the layout's own unpacker gives the weight back bit for bit.
  if (row.lossless) {
    auto back = UnpackFloats(p->data, p->size, f.layout);
    ASSERT_TRUE(back.ok()) << back.status().message();
    const std::vector<float> want = AsFloats(w);
    ASSERT_EQ(back->size(), want.size());
    EXPECT_EQ(std::memcmp(back->data(), want.data(), want.size() * sizeof(float)), 0)
        << "unpack(pack(w)) != w";
  }

  // A weight of another shape is an error, not a mis-pack.
  Shape wrong = r.shape;
  wrong.push_back(2);
  WeightRequest other = r;
  other.shape = wrong;
  auto bad = PackWeightForm(SampleWeight(other, seed), f);
  EXPECT_FALSE(bad.ok());
}

TEST(FormTableTest, EverySampleOfEveryRowOnEveryDevice) {
  uint32_t seed = 1;
  for (const FormRow* row : FormTable())
    for (WeightRequest r : row->samples())
      for (const IsaInfo& isa : IsaLevels())
        for (WeightProfile profile : {WeightProfile::kExact, WeightProfile::kCompact}) {
          r.isa = isa.level;
          r.profile = profile;
          CheckSample(*row, r, ++seed);
        }
}

// The f32-source rows turn a weight of another type, or an empty one, down once for all.
TEST(FormTableTest, NonFloatAndEmptyWeightsGetOneRejection) {
  for (const auto& [dtype, shape] :
       std::vector<std::pair<DType, Shape>>{{DType::kFloat16, {8, 8}}, {DType::kFloat32, {0, 8}}}) {
    const auto cs = WeightFormCandidates(dtype, shape, {WeightUse::kMatMulB}, IsaLevel::kAvx2,
                                         WeightProfile::kCompact);
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].description, "packed forms");
    EXPECT_FALSE(cs[0].rejected.empty());
  }
}

}  // namespace
}  // namespace vt
