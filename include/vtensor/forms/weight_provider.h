// How kernel factories obtain packed weights: the one path from a
// constant weight to the bytes a microkernel reads. For each weight the provider asks the
// resolver (forms/weight_form.h) for the session's form, takes the matching compiled entry
// from the cache when one passes the loading rules (a HIT: the payload is used in place), and
// otherwise packs from the original initializer (a miss). Every decision is recorded, with
// each rejected candidate's reason, for `--explain`.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vtensor/base/read_ahead.h"
#include "vtensor/graph/graph.h"
#include "vtensor/forms/weight_cache.h"
#include "vtensor/forms/weight_form.h"

namespace vt {

// A weight in the form its kernel reads.
struct PreparedWeight {
  WeightForm form;
  PackedWeight bytes;
  bool hit = false;  // bytes are a compiled entry's payload
};

// One weight decision, for --explain.
struct WeightDecision {
  std::string node;    // Node::Describe()
  std::string weight;  // value name
  std::vector<WeightFormCandidate> candidates;
  std::string outcome;  // "HIT entry 3", "packed at load (no compiled entry)", "not packed: ..."
};

// Sees every weight a provider prepared (for `vtensor compile`): its value name, the source
// tensor and the prepared bytes.
using WeightObserver =
    std::function<void(const std::string& name, const Tensor& source, const PreparedWeight& w)>;

class WeightProvider {
 public:
  WeightProvider(IsaLevel isa, WeightProfile profile, WeightCache* cache)
      : isa_(isa), profile_(profile), cache_(cache) {}

  // The weight `name` (tensor `w`, read by `node` as `use`) in the session's form, or nullopt
  // when no packed form applies (the kernel then reads `w` itself). Errors: packing errors
  // (InvalidArgument naming the weight).
  Expected<std::optional<PreparedWeight>> Prepare(const Node& node, const std::string& name,
                                                  const Tensor& w, const WeightUseInfo& use);

  void set_observer(WeightObserver o) { observer_ = std::move(o); }

  IsaLevel isa() const { return isa_; }
  WeightProfile profile() const { return profile_; }
  const std::vector<WeightDecision>& decisions() const { return decisions_; }

  // The bytes that kernels read in place from file mappings, in the order Prepare first gave
  // them out (a graph's execution order), each once: external payloads of compiled entries that
  // hit, and mapped sources read in place. For reading them ahead of the first run
  // (base/read_ahead.h); the list is moved out, and weights prepared later are not recorded.
  std::vector<MappedRange> TakeInPlaceRanges();

  // The provider used when a kernel is created outside a session (constant folding, tests):
  // the host's ISA, exact profile, no cache.
  static WeightProvider& Default();

 private:
  IsaLevel isa_;
  WeightProfile profile_;
  WeightCache* cache_;
  bool record_ = true;
  WeightObserver observer_;
  std::mutex mu_;
  std::vector<WeightDecision> decisions_;
  // TakeInPlaceRanges's list (guarded by mu_).
  void RecordInPlace(const PackedWeight& bytes);
  std::vector<MappedRange> in_place_ranges_;
  bool ranges_taken_ = false;
};

// Name of the f32 GEMM microkernel (kernels/gemm table row) the runtime uses for a GEMM of
// `m` rows whose B panels or A panels were packed for `isa`: the row of that ISA with its
// default NR that wastes the fewest padded rows, then the tallest.
const char* F32GemmRowNameForM(IsaLevel isa, int64_t m);

// Name of the row the runtime uses for a GEMM of `m` rows and `n` columns against B panels
// packed for `isa` (kernels::F32GemmRowForPanels with that ISA's first row): a split-B row
// reading two panels per tile when the GEMM is large enough, else F32GemmRowNameForM(isa, m).
const char* F32GemmRowNameForPanels(IsaLevel isa, int64_t m, int64_t n);

}  // namespace vt
