// Session plans (docs/compiled-tensors.md, "Session plans"): the graph a session's passes make
// from a model (constants folded, shapes made static, fusions applied), written by `vtensor
// compile` as one more compiled entry (ModelProto field 30) so that a session whose key matches
// skips the passes. A plan is a cache like the compiled tensors: used only when its key
// matches, otherwise a MISS with a typed reason (forms/miss_reason.h) after which the passes
// run as without it; a hit and a miss give bit-identical outputs.
//
// Key: the plan format version and runtime version (kSessionPassesAbi, kPackedAbiVersion), the
// session options that change the passes (SessionPlanOptions), the digest of the source graph's
// structure (nodes, attributes, inputs, outputs, static types, initializer names, types and
// dims: GraphStructureDigest) and of its initializers' bytes (InitializerDigest), and the
// payload's own digest.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "vtensor/base/file.h"
#include "vtensor/base/status.h"
#include "vtensor/format/model_skeleton.h"
#include "vtensor/format/vtensor_ext.pb.h"
#include "vtensor/forms/weight_cache.h"
#include "vtensor/graph/graph.h"
#include "vtensor/runtime/session.h"

namespace vt {

// Version of the plan messages (SessionPlanProto, PlanGraphProto).
// 2: a plan may list the places of the source tensors it refers to (kPlanSourcesKey).
inline constexpr int64_t kSessionPlanFormatVersion = 2;
// SessionPlanProto.metadata_props key: where the plan's source list (graph/plan_graph.h
// SourcesToPlan) stands in its payload, ahead of graph_offset: "OFFSET LENGTH", decimal.
inline constexpr const char kPlanSourcesKey[] = "vt.source_list";
// Bumped whenever a session pass (SessionPassNames) changes the graph it writes for some
// model: older plans then MISS(incompatible-plan) instead of standing for a graph this
// runtime would no longer make. 3: fuse-conv takes ConvTranspose chains; fuse-dw-pw and
// fuse-resize-add.
inline constexpr int64_t kSessionPassesAbi = 3;
// The struct type name a plan's report row carries (CacheEntryReport::type_name).
inline constexpr const char kSessionPlanTypeName[] = "vt.session_plan";

// "passes-N packed-M": SessionPlanProto.runtime_version of this runtime.
std::string SessionPlanRuntimeVersion();
// The options that change what the passes make, as one canonical line, e.g.
// "isa=x86_64-avx512 profile=exact passes=constant-folding,fold-shapes,...".
std::string SessionPlanOptions(const SessionOptions& opts);

// The plan of `planned` (a session created from `source` with `opts`; its graph after the
// passes). Main-graph initializers equal to `source`'s are stored as references; the payload
// (a serialized PlanGraphProto) goes inline in raw_data. Errors: InvalidArgument over 2 GiB.
// `spans`, when given (format/model_skeleton.h SourcePayloadSpans of the model file's bytes as
// the compiled model holds them), adds the source list: the place of each source tensor the
// plan refers to, so that a hit the memo vouches for reads no ONNX graph (LookupSessionPlan);
// none when one of them is external data.
Expected<vtensor::SessionPlanProto> MakeSessionPlan(const Model& source, const Session& planned,
                                                    const SourceSpans* spans = nullptr);

// A plan looked up for a session.
struct PlanLookup {
  CacheEntryReport report;       // state kPending: the model has no plan
  std::shared_ptr<Graph> graph;  // on a hit: the graph after the passes
  bool binds_dim_params = false;
  // `model_file` given and the memo vouches for the plan, but it has no source list: look up
  // again with the source tensors imported (state kPending).
  bool wants_sources = false;
};

// Applies the loading rules to the plans of `ext` for a session of `source` (imported, before
// any pass) with `opts`: version, options, payload, digests (per opts.cache.verify; the memo of
// forms/verify_memo.h covers them under memo, keyed on `source_files` and the payload file;
// nullopt: no memo is read or written) and the plan graph itself. Never fails: every problem
// is a miss.
// `sources_only`: `source` holds only the tensors a plan refers to (ImportOptions::
// sources_only), so the plan can hit only where the memo vouches for the digests of these very
// files; where it does not, the result has no graph and the state kPending (the caller then
// imports the whole graph and looks up again).
// `model_file` (with `sources_only`; `source` then holds no tensors, SkeletonScope::kModel):
// the source tensors are the plan's source list, borrowed from this mapping of the model file
// (its byte ranges stay valid where the memo vouches for the file); a list that does not read
// (a range outside the file, a size not its type's, a tensor the plan graph refers to missing
// or of another type or shape) is a miss (kBadPlan).
PlanLookup LookupSessionPlan(const Model& source,
                             const std::shared_ptr<const vtensor::ModelExtension>& ext,
                             const SessionOptions& opts,
                             const std::optional<std::set<std::string>>& source_files,
                             bool sources_only = false,
                             const std::shared_ptr<const MappedFile>& model_file = nullptr);

// The files every verification memo of a session of the model at `model_path` keys on
// (forms/verify_memo.h), the plan's and the compiled entries': the model file and the external
// data files of all its tensors (format/model_skeleton.h ModelSkeleton::external_data_files),
// subgraphs' included: those are no source tensors, but a plan stores them and compiled
// entries may cache them. The skeleton lists the same files under either scope, so the
// sources-only and the whole load key the same memo. nullopt when they are not known (no
// path, or `external_data_files` nullopt): then no memo is read or written.
std::optional<std::set<std::string>> MemoSourceFiles(
    const std::string& model_path, const std::optional<std::set<std::string>>& external_data_files);

}  // namespace vt
