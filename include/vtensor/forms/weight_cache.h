// The compiled-tensor cache at session load (docs/design.md §4,
// docs/compiled-tensors.md). A WeightCache applies the loading rules to every CompiledTensorProto
// of a model
// and hands kernel factories the payload of the one entry that matches the form the resolver
// (forms/weight_form.h) chose for a weight. Every entry ends in exactly one state:
//
//   HIT            the payload is used in place (external payloads memory-mapped read-only,
//                  never copied); the kernel does no packing.
//   MISS(reason)   ignored; the weight is packed from the original initializer. The reason is
//                  a MissReason (forms/miss_reason.h, one per loading rule outcome); the
//                  report prints its code:
//     malformed               a required field is missing, or the (source, device, type) key
//                             repeats another entry's, or the digest algorithm is unknown
//     no-such-initializer     source_name names no initializer (nor Constant-node value)
//     ambiguous-source        source_name names initializers in several graphs, or one that a
//                             graph input can override
//     device-out-of-range     the device index is outside the model's device list
//     incompatible-device     a DeviceProto field differs from this session: type (must be
//                             "cpu"), runtime ("vtensor"), runtime_version (kPackedAbiVersion)
//                             or architecture (the session's kernel architecture)
//     invalid-struct          the type index is out of range, the type is symbolic, has no
//                             layout, a layout whose shape differs from the initializer's, or a
//                             byte size that disagrees with the layout
//     unknown-physical-type   the runtime has no form with this type name
//     unknown-format-version  the runtime knows the type name with another format version
//     payload-size            payload bytes differ from the type's byte size, or the payload
//                             file is shorter than offset + length (truncated)
//     payload-missing         the external payload file does not exist
//     digest-mismatch         the source initializer's digest differs (a stale entry)
//     payload-digest          the payload's own digest (format/payload_digest.h) differs or
//                             is absent while verification is on
//     not-selected            valid, but not the form this session resolves for the weight
//                             (other profile or kernel), or no kernel packs that weight
// The rules themselves are named functions in src/forms/loading_rules.h, applied in the order
// above.
//
// Selection order: an entry can only hit for the form the resolver picks for the consuming
// node on the session's architecture and profile, so a hit computes exactly what a miss
// computes. Among several valid entries for one (source, form) the lowest index wins.
//
// Verification policy:
//   always  hash the source initializer (its digest algorithm) and the payload (its payload
//           digest) at every load.
//   memo    (default) the first time, each payload is compared with a fresh pack of its source
//           (hashing as always where the form's pack is dearer than a digest, and to name
//           the reason of a difference); a successful verification is remembered in a
//           per-user directory keyed by the identity (device, inode, size, mtime, ctime) of
//           every file involved (model, payload files, external data of the sources) and
//           skipped while all of them match (forms/verify_memo.h lists the safety rules).
//   never   no hashing: structural checks only, for trusted deployments.
// A malformed entry never makes a valid model unloadable: every failure is a miss.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "vtensor/base/file.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/graph/graph.h"
#include "vtensor/forms/miss_reason.h"
#include "vtensor/forms/verify_memo.h"
#include "vtensor/forms/weight_form.h"

namespace vt {

namespace loading {
struct InitializerIndex;
}  // namespace loading

enum class VerifyPolicy : uint8_t { kAlways, kMemo, kNever };
const char* VerifyPolicyName(VerifyPolicy p);  // "always", "memo", "never"
std::optional<VerifyPolicy> VerifyPolicyFromName(std::string_view name);

struct CacheOptions {
  bool enabled = true;  // false: ignore compiled entries (every entry MISS not-selected)
  VerifyPolicy verify = VerifyPolicy::kMemo;
  // Memo directory; "" = $VTENSOR_VERIFY_MEMO_DIR, else $XDG_CACHE_HOME/vtensor/verify, else
  // $HOME/.cache/vtensor/verify.
  std::string memo_dir;
  // CLOCK_REALTIME ns when reading the model file began (Session::Load sets it). The memo is
  // recorded only for files older than this (forms/verify_memo.h); 0: never recorded.
  int64_t read_started_ns = 0;
};

enum class EntryState : uint8_t { kPending, kHit, kMiss };

// What happened to one compiled entry (CompiledTensorProto index `index`).
struct CacheEntryReport {
  int index = 0;
  std::string source_name;
  std::string architecture;  // of its device ("" when the index is out of range)
  std::string type_name;
  int64_t payload_bytes = 0;
  std::string location;      // external payload file ("" inline)
  EntryState state = EntryState::kPending;
  MissReason reason = MissReason::kNone;  // why it missed; kNone for HIT
  std::string detail;        // human-readable explanation (the field, the values)
  bool verified = false;     // verified in this load (always, or memo not yet recorded)
  bool compared = false;     // ... by comparing the payload with a fresh pack of the source
                             // (memo's first load), not by hashing
  bool memo = false;         // verification skipped thanks to the memo
};

// "HIT" or "MISS(code)" (MissReasonCode).
std::string EntryStateText(const CacheEntryReport& r);

class WeightCache {
 public:
  // Indexes `ext`'s entries for a session whose kernels run on `isa`, applying every rule
  // that needs no hashing. `model_path` locates external payloads (relative to its directory)
  // and identifies the model file for the memo. `source_files`: the files the model's tensors
  // were read from (the model and the external data of all its tensors, subgraphs' included),
  // which key the memo too: an entry may cache a tensor the passes made from them
  // (docs/compiled-tensors.md, "Tensors the passes make"); nullopt when they are not known: no
  // memo is read or written. Never fails: bad entries become misses.
  static std::unique_ptr<WeightCache> Open(
      const Model& model, std::shared_ptr<const vtensor::ModelExtension> ext, IsaLevel isa,
      const CacheOptions& opts, const std::optional<std::set<std::string>>& source_files = {});
  ~WeightCache();

  // The payload for weight `source` (the tensor the session holds for it) in `form`, or
  // nullopt (the caller packs). Verifies per the policy on first use; marks the entry HIT or
  // MISS. A second request for the same (source, form) returns the same payload.
  std::optional<PackedWeight> Take(const std::string& source, const Tensor& tensor,
                                   const WeightForm& form);

  // Called once every kernel is built: entries nobody took become MISS(not-selected), the
  // memo is written for the verified hits, and source initializer pages that only hits used
  // are released from memory (madvise) when they are file-backed.
  void Finish();

  const std::vector<CacheEntryReport>& report() const { return report_; }
  IsaLevel isa() const { return isa_; }

 private:
  WeightCache() = default;
  struct Entry;
  using EntryKey = std::tuple<std::string, int, std::string>;  // (source, device, type name)
  // Applies every structural loading rule to entry `i`; records its report and entry.
  void Index(int i, const loading::InitializerIndex& inits, std::map<EntryKey, int>* keys);
  // Marks entry `i`, whose key repeats entry `first`'s, and `first` itself as MISS(malformed).
  void MarkDuplicate(int i, int first);
  // The verification rules (hashing) for a pending entry: nullopt when it passes.
  std::optional<CacheMiss> Verify(Entry& e, const Tensor& tensor, const WeightForm& form);
  // The memo's first-load comparison of the payload with a fresh pack of `tensor` in `form`:
  // true when equal, false when not (or the pack failed), nullopt when the form's row has no
  // comparison (hash instead).
  std::optional<bool> CompareFirstLoad(Entry& e, const Tensor& tensor, const WeightForm& form);
  // Reads the verification memo covering every file of this load.
  void OpenMemo(const Model& model, const std::set<std::string>& source_files);

  std::shared_ptr<const vtensor::ModelExtension> ext_;
  IsaLevel isa_ = IsaLevel::kBaseline;
  CacheOptions opts_;
  std::string model_path_;
  std::vector<CacheEntryReport> report_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::map<std::string, std::shared_ptr<MappedFile>> payload_files_;  // by path
  std::set<std::string> memo_files_;  // files whose identity keys the memo
  MemoKey memo_key_;
  std::string memo_path_;            // "" when the memo is unusable
  std::vector<int> memo_verified_;   // entries the memo already covers
  bool memo_dirty_ = false;
};

}  // namespace vt
