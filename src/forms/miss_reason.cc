#include "vtensor/forms/miss_reason.h"

namespace vt {

namespace {

struct MissReasonInfo {
  MissReason reason;
  const char* code;
  const char* description;
};

const MissReasonInfo kReasons[] = {
    {MissReason::kNone, "", "not a miss"},
    {MissReason::kMissingField, "malformed", "a required field is missing or empty"},
    {MissReason::kUnknownDigestAlgorithm, "malformed", "the digest algorithm is not blake3 or sha256"},
    {MissReason::kDigestLength, "malformed", "source_digest's length differs from its algorithm's"},
    {MissReason::kDuplicateKey, "malformed", "(source_name, device, type) repeats another entry's"},
    {MissReason::kBadPayloadLocation, "malformed",
     "the external payload location is not a relative path inside the model directory"},
    {MissReason::kBadPayloadOffset, "malformed",
     "the external payload offset is not a non-negative multiple of 64"},
    {MissReason::kNoSuchInitializer, "no-such-initializer",
     "source_name names no initializer nor Constant-node value"},
    {MissReason::kAmbiguousSource, "ambiguous-source", "source_name names initializers in several graphs"},
    {MissReason::kOverridableSource, "ambiguous-source",
     "the source initializer is also a graph input and can be overridden"},
    {MissReason::kDeviceOutOfRange, "device-out-of-range", "the device index is outside the device list"},
    {MissReason::kOtherDeviceType, "incompatible-device", "device.type is not 'cpu'"},
    {MissReason::kOtherRuntime, "incompatible-device", "device.runtime is not 'vtensor'"},
    {MissReason::kOtherAbi, "incompatible-device",
     "device.runtime_version differs from this runtime's packed ABI version"},
    {MissReason::kOtherArchitecture, "incompatible-device",
     "device.architecture is not the session's kernel architecture"},
    {MissReason::kNoType, "invalid-struct", "the entry has no struct type (or its index is out of range)"},
    {MissReason::kSymbolicType, "invalid-struct", "the struct type has a symbolic dim"},
    {MissReason::kNoLayout, "invalid-struct", "the struct type has no layout"},
    {MissReason::kBadLayout, "invalid-struct", "the struct type's layout is not valid"},
    {MissReason::kShapeMismatch, "invalid-struct", "the layout's shape differs from the initializer's"},
    {MissReason::kByteSize, "invalid-struct", "byte_size differs from the end of the layout and fields"},
    {MissReason::kUnknownType, "unknown-physical-type", "no form of this runtime has the type name"},
    {MissReason::kUnknownVersion, "unknown-format-version",
     "this runtime knows the type name with another format version"},
    {MissReason::kPayloadSize, "payload-size", "the payload's size differs from the type's byte size"},
    {MissReason::kPayloadUnreadable, "payload-size", "the payload file cannot be mapped"},
    {MissReason::kTruncatedPayload, "payload-size", "the payload file is shorter than offset + length"},
    {MissReason::kMissingPayloadFile, "payload-missing", "the external payload file does not exist"},
    {MissReason::kStaleDigest, "digest-mismatch", "the source initializer's digest differs (stale entry)"},
    {MissReason::kNoPayloadDigest, "payload-digest", "the entry has no payload digest to verify"},
    {MissReason::kPayloadDigest, "payload-digest", "the payload's digest differs"},
    {MissReason::kPackMismatch, "payload-digest",
     "the payload differs from what this runtime packs from the source, though its digests agree"},
    {MissReason::kCacheDisabled, "not-selected", "compiled entries are disabled for the session"},
    {MissReason::kNotSelected, "not-selected",
     "valid, but no kernel of the session reads the weight in this form"},
    {MissReason::kOtherPlanVersion, "incompatible-plan",
     "the session plan's format or runtime version differs from this runtime's"},
    {MissReason::kOtherOptions, "other-options",
     "the session plan was made for other session options (folding, fusions, ISA, profile)"},
    {MissReason::kStaleGraph, "stale-graph",
     "the source graph's digest differs from the plan's (the model changed since compile)"},
    {MissReason::kBadPlan, "malformed", "the session plan's graph does not parse or resolve"},
};

const MissReasonInfo& Info(MissReason r) {
  for (const auto& i : kReasons)
    if (i.reason == r) return i;
  return kReasons[0];
}

}  // namespace

const char* MissReasonCode(MissReason r) { return Info(r).code; }

const char* MissReasonDescription(MissReason r) { return Info(r).description; }

}  // namespace vt
