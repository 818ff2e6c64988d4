#include "vtensor/forms/weight_provider.h"

#include <set>

#include "vtensor/base/file.h"
#include "vtensor/base/page_memory.h"
#include "vtensor/forms/form_table.h"
#include "vtensor/tensor/natural_alignment.h"

namespace vt {

Expected<std::optional<PreparedWeight>> WeightProvider::Prepare(const Node& node,
                                                                const std::string& name,
                                                                const Tensor& w,
                                                                const WeightUseInfo& use) {
  WeightDecision d;
  d.node = node.Describe();
  d.weight = name;
  d.candidates = WeightFormCandidates(w.dtype(), w.shape(), use, isa_, profile_);
  std::optional<PreparedWeight> out;
  for (const auto& c : d.candidates) {
    if (!c.rejected.empty() || !c.form) continue;
    PreparedWeight p;
    p.form = *c.form;
    // A source read in place has no compiled entry and nothing for `vtensor compile` to write.
    const FormRow* row = FindFormRow(p.form.kind);
    const bool in_place = row != nullptr && row->source_in_place;
    if (cache_ != nullptr && !in_place) {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto hit = cache_->Take(name, w, p.form)) {
        p.bytes = std::move(*hit);
        p.hit = true;
      }
    }
    if (!p.hit) {
      const bool mapped = w.storage() && w.storage()->mapped_file();
      // The pack reads every source page once: map them in one call, not fault by fault. A
      // source read in place is left to the first run, as a compiled entry's mapped payload is.
      if (mapped && !in_place) PrefaultMappedPages(w.raw_data(), w.nbytes());
      // Packers read elements through typed pointers: a view of the model file at an odd
      // offset is packed from an aligned copy (tensor/natural_alignment.h); a source read in
      // place keeps that copy alive through its keep-alive handle.
      auto packed = PackWeightForm(NaturallyAligned(w), p.form);
      if (!packed.ok())
        return packed.take_status().WithContext(node.Describe() + ": weight '" + name + "'");
      p.bytes = std::move(*packed);
      // The kernel reads the packed copy; file-backed source pages need not stay resident.
      if (mapped && !in_place) ReleaseMappedPages(w.raw_data(), w.nbytes());
    }
    if (observer_ && !in_place) observer_(name, w, p);
    // What a kernel reads from a file mapping: an external payload that hit, or a mapped
    // source read in place (not the aligned copy of a misaligned one).
    const bool mapped_in_place =
        p.hit ? p.bytes.mapped
              : in_place && w.storage() && w.storage()->mapped_file() && p.bytes.data == w.raw_data();
    if (record_ && mapped_in_place) RecordInPlace(p.bytes);
    d.outcome = in_place ? "read in place from the initializer (nothing packed or cached)"
                : p.hit  ? "HIT (compiled entry used in place)"
                         : "packed at load from the initializer";
    out = std::move(p);
    break;
  }
  if (!out) d.outcome = "no cacheable form (the kernel reads or prepares the weight itself)";
  if (record_) {
    std::lock_guard<std::mutex> lock(mu_);
    decisions_.push_back(std::move(d));
  }
  return out;
}

void WeightProvider::RecordInPlace(const PackedWeight& bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!ranges_taken_) in_place_ranges_.push_back({bytes.data, bytes.size, bytes.keep_alive});
}

std::vector<MappedRange> WeightProvider::TakeInPlaceRanges() {
  std::lock_guard<std::mutex> lock(mu_);
  ranges_taken_ = true;
  // A weight read by several nodes was recorded by each: its first use only.
  std::set<const void*> seen;
  std::vector<MappedRange> out;
  for (MappedRange& r : in_place_ranges_)
    if (seen.insert(r.data).second) out.push_back(std::move(r));
  in_place_ranges_.clear();
  return out;
}

WeightProvider& WeightProvider::Default() {
  static WeightProvider* p = [] {
    auto* w = new WeightProvider(HostIsa(), WeightProfile::kExact, nullptr);
    w->record_ = false;
    return w;
  }();
  return *p;
}

}  // namespace vt
