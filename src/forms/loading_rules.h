// The loading rules of compiled entries (docs/compiled-tensors.md, "Loading rules"), one named
// function per rule, in the order WeightCache::Open applies them. Each returns nullopt when
// the entry passes, else the miss (a typed reason and a detail naming the field and values);
// a rule that passes may record what later rules need (the digest algorithm, the source
// initializer, the layout, the payload bytes).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "vtensor/base/file.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/forms/isa.h"
#include "vtensor/forms/miss_reason.h"
#include "vtensor/graph/graph.h"
#include "vtensor/layout/layout.h"

namespace vt::loading {

using Verdict = std::optional<CacheMiss>;

// Every initializer of a model by name (main graph and subgraphs), and the names a graph input
// can override.
struct InitializerIndex {
  std::multimap<std::string, const Tensor*> by_name;
  std::set<std::string> overridable;
};
InitializerIndex IndexInitializers(const Graph* main);

// The entry's struct type (inline, or model-level by index), or null when it has none or the
// index is out of range.
const vtensor::StructTypeProto* EntryType(const vtensor::ModelExtension& x,
                                          const vtensor::CompiledTensorProto& ct);

// Every required field is present and well-formed: source_name, value, device, source_digest
// with a known digest_algorithm and its length, and a payload. Sets `algo`.
Verdict RequiredFields(const vtensor::CompiledTensorProto& ct, DigestAlgorithm* algo);

// source_name resolves to exactly one initializer that no graph input overrides. Sets `source`.
Verdict SingleSource(const vtensor::CompiledTensorProto& ct, const InitializerIndex& inits,
                     const Tensor** source);

// The device is in range and matches this session: type "cpu", runtime "vtensor",
// runtime_version kPackedAbiVersion, architecture of `isa`.
Verdict CompatibleDevice(const vtensor::ModelExtension& x, const vtensor::CompiledTensorProto& ct,
                         IsaLevel isa);

// The struct type exists, is concrete, has a layout of the source's shape, and its byte size is
// the end of its layout and fields. Sets `layout`.
Verdict ValidStruct(const vtensor::ModelExtension& x, const vtensor::CompiledTensorProto& ct,
                    const vtensor::StructTypeProto* type, const Tensor& source, Layout* layout);

// The type is a form of this runtime (forms/form_table.h) with the same format version.
Verdict KnownForm(const vtensor::StructTypeProto& t);

// Payload bytes of an entry, kept alive by `keep_alive`.
struct Payload {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep_alive;
  bool mapped = false;  // the bytes lie in a file mapping (an external payload)
};

// Inline raw_data of `want` bytes; `ext` keeps it alive.
Verdict InlinePayload(const vtensor::CompiledTensorProto& ct, size_t want,
                      std::shared_ptr<const vtensor::ModelExtension> ext, Payload* out);

// An external payload of `want` bytes at a 64-aligned offset of a file inside `model_dir`.
// Files are mapped once and shared through `files` (by path).
Verdict ExternalPayload(const vtensor::CompiledTensorProto& ct, size_t want,
                        const std::string& model_dir,
                        std::map<std::string, std::shared_ptr<MappedFile>>* files, Payload* out);

// Verification: the source initializer's digest (`digest`, computed by the caller) equals
// source_digest.
Verdict FreshSource(const Expected<std::string>& digest, const vtensor::CompiledTensorProto& ct,
                    DigestAlgorithm algo);

// Verification: the entry has a payload digest (`stored`) and `check` (the payload's digest
// compared with it) passed.
Verdict PayloadIntact(const std::string* stored, const Status& check);

}  // namespace vt::loading
