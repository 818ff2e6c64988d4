// Why a compiled entry is a cache miss (docs/compiled-tensors.md, "Loading rules"). Each
// loading rule (src/forms/loading_rules.h) turns an entry down with one of these; the report
// and the CLI print the reason's code ("MISS(incompatible-device)"), several reasons sharing
// one code, and the detail naming the field and the values.
#pragma once

#include <cstdint>
#include <string>

namespace vt {

enum class MissReason : uint8_t {
  kNone,  // not a miss (HIT or still pending)
  // malformed
  kMissingField,            // a required field is absent or empty
  kUnknownDigestAlgorithm,  // digest_algorithm is not blake3 or sha256
  kDigestLength,            // source_digest's length differs from its algorithm's
  kDuplicateKey,            // (source_name, device, type) repeats another entry's
  kBadPayloadLocation,      // value.external.location escapes the model directory
  kBadPayloadOffset,        // value.external offset not a non-negative multiple of 64
  // the source
  kNoSuchInitializer,   // source_name names no initializer (nor Constant-node value)
  kAmbiguousSource,     // source_name names initializers in several graphs
  kOverridableSource,   // the initializer is also a graph input
  // the device
  kDeviceOutOfRange,    // the device index is outside the model's device list
  kOtherDeviceType,     // device.type is not "cpu"
  kOtherRuntime,        // device.runtime is not "vtensor"
  kOtherAbi,            // device.runtime_version is not kPackedAbiVersion
  kOtherArchitecture,   // device.architecture is not the session's kernel architecture
  // the struct type
  kNoType,              // type_index out of range, or no type at all
  kSymbolicType,        // a dim is symbolic
  kNoLayout,            // the type has no layout
  kBadLayout,           // the layout does not parse
  kShapeMismatch,       // the layout's shape differs from the initializer's
  kByteSize,            // byte_size disagrees with the layout and fields
  kUnknownType,         // no form of this runtime has the type name
  kUnknownVersion,      // the type name is known with another format version
  // the payload
  kPayloadSize,         // payload bytes differ from the type's byte size
  kPayloadUnreadable,   // the payload file exists but cannot be mapped
  kTruncatedPayload,    // the payload file is shorter than offset + length
  kMissingPayloadFile,  // the external payload file does not exist
  // verification (hashing)
  kStaleDigest,         // the source initializer's digest differs: the entry is stale
  kNoPayloadDigest,     // vt.payload_digest absent while verification is on
  kPayloadDigest,       // the payload's own digest differs
  kPackMismatch,        // digests agree, but the payload differs from a fresh pack of the
                        // source (found by memo's first-load comparison)
  // selection
  kCacheDisabled,       // compiled entries are disabled for the session
  kNotSelected,         // valid, but no kernel of the session reads that form
  // session plans (docs/compiled-tensors.md, "Session plans")
  kOtherPlanVersion,    // format_version or runtime_version differs from this runtime's
  kOtherOptions,        // made for other pass options (folding, fusions, ISA, profile)
  kStaleGraph,          // the source graph's digest differs: the model changed since
  kBadPlan,             // the plan graph does not parse or does not resolve
};

// The code the report prints ("malformed", "incompatible-device", ...); "" for kNone.
const char* MissReasonCode(MissReason r);
// One line saying what the reason means.
const char* MissReasonDescription(MissReason r);

// A rule's verdict on an entry: the reason and a human-readable detail (the field, the values).
struct CacheMiss {
  MissReason reason = MissReason::kNone;
  std::string detail;
};

}  // namespace vt
