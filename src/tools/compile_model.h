// `vtensor compile`: writes a copy of a model that carries, for each device,
// every constant weight in the form the runtime's resolver picks on that device, as compiled
// tensors (ModelProto fields 27-29; docs/design.md §4). The forms are captured from a real session
// prepared for the device, so an entry is exactly what a session there would pack itself.
//
// Output: OUT (the model; the source model is never modified) and, with external payloads,
// OUT + ".vtpack" beside it holding every payload at a 4096-byte aligned offset (mmap-able).
// Both files are written atomically (temp file + rename), payloads first. Source weights kept
// in external data stay where they are; when OUT is in another directory, each external data
// file is hard-linked (or copied) next to OUT so the relative locations still resolve.
// Entries already in MODEL for the compiled architectures are replaced; others are kept.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/format/tensor_digest.h"
#include "vtensor/forms/weight_form.h"
#include "vtensor/runtime/session.h"

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace vt {

// A tensor whose packed forms `compile` may cache: its graph-wide name and its TensorProto.
struct SourceTensor {
  std::string name;
  const onnx::TensorProto* tensor;  // points into the GraphProto given to CacheableSources
};
// Every initializer and every Constant node's `value` tensor (named after the node's output),
// of the main graph and all subgraphs, in graph order, each name once. This is the rule
// compile caches by and `vtensor digest` lists by.
std::vector<SourceTensor> CacheableSources(const onnx::GraphProto& main);

// Creates a prepare-only session of MODEL (imported as Session::Load imports it, no compiled
// entries used) for `isa` and `profile`, and calls `observer` for every weight it packs: the
// source tensors and the tensors its passes make from them. Returns the session (for its
// plan), or the import's or the session's error.
Expected<std::unique_ptr<Session>> PrepareWeights(const std::string& model_path, IsaLevel isa,
                                                  WeightProfile profile, WeightObserver observer);

struct CompileModelOptions {
  std::vector<IsaLevel> devices;  // at least one; duplicates ignored
  WeightProfile profile = WeightProfile::kExact;
  bool external_payload = true;   // false: payloads inline in raw_data
  DigestAlgorithm digest = DigestAlgorithm::kBlake3;
  // Progress: (weights done, weights total, bytes written). May be null.
  std::function<void(size_t, size_t, uint64_t)> progress;
};

struct CompileModelSummary {
  size_t entries = 0;          // compiled tensors written
  uint64_t payload_bytes = 0;  // sum of payload sizes
  std::string payload_file;    // "" when inline
  size_t kept_entries = 0;     // entries of other architectures kept from MODEL
  size_t plans = 0;            // session plans written (one per device; runtime/session_plan.h)
  // Entries of this compile's devices in a lossy form (requantized: `compact` profile only),
  // counted by form type name ("vt.q4_0_gemm_b"): a session using them computes results that
  // differ from the source model's (forms/weight_profile.h).
  std::map<std::string, size_t> lossy;
};

// Options from the names `vtensor compile` takes (the Python package's `vtensor.compile` too):
// `devices` (native, x86_64-avx512, x86_64-avx2, x86_64-baseline; empty = native; `native` and
// its architecture name, or a repeated name, are one device), `profile` (exact | compact),
// `payload` (external | inline), `algo` (blake3 | sha256). Errors: InvalidArgument naming the
// flag, the value and the accepted values.
Expected<CompileModelOptions> CompileOptionsFromNames(const std::vector<std::string>& devices,
                                                      const std::string& profile,
                                                      const std::string& payload,
                                                      const std::string& algo);

// Errors: NotFound / InvalidArgument for an unreadable model (naming the file), any session
// creation error for a device, IoError for writes; on error no output file is left behind.
Status CompileModel(const std::string& model_path, const std::string& out_path,
                    const CompileModelOptions& opts, CompileModelSummary* summary);

}  // namespace vt
