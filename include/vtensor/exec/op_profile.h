// Per-node timing of runs (`vtensor run|bench --profile-ops FILE`, `bench --top K`). A caller
// that wants a profile passes an OpProfile to Session::Run; the executor then records one
// event per node it runs, subgraph nodes (If/Loop/Scan bodies, function bodies) included, with
// their nesting depth. Without a profile the executor only tests a null pointer per node.
// Thread safety: one OpProfile may serve several concurrent runs (events are appended under a
// mutex); concurrent runs usually each pass their own.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "vtensor/graph/graph.h"
#include "vtensor/layout/dtype.h"

namespace vt {

struct OpEvent {
  // The node run: it belongs to the session, so events are read while the session lives.
  // Recording a pointer keeps the per-node cost to clock reads and the shapes.
  const Node* node = nullptr;
  double start_us = 0;  // since the profile was created
  double dur_us = 0;    // Compute() wall time, subgraph runs included
  double self_us = 0;   // dur_us minus the span_us of the subgraph nodes it ran (depth + 1)
  double span_us = 0;   // dur_us plus the time spent recording this event
  int depth = 0;        // 0: main graph; n: inside n subgraph runs
  uint64_t thread = 0;  // Linux thread id of the running thread
  // dtype and shape of each tensor input / output ("" for an absent or non-tensor value).
  std::vector<std::pair<DType, Shape>> inputs, outputs;
};

class OpProfile {
 public:
  OpProfile() : origin_(std::chrono::steady_clock::now()) {}

  // Microseconds since construction (the events' time base).
  double NowUs() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_)
        .count();
  }
  // Number of events so far: taken before a node runs, handed to Add after it, so the events
  // its subgraphs added meanwhile are subtracted from its self time.
  size_t Mark() const;
  void Add(OpEvent e, size_t mark);
  // A copy of the events, in completion order (a node after the subgraph nodes it ran).
  std::vector<OpEvent> events() const;
  // "OpType", or "domain.OpType" outside the default domain.
  static std::string OpType(const Node& n);
  void Clear();

 private:
  std::chrono::steady_clock::time_point origin_;
  mutable std::mutex mu_;
  std::vector<OpEvent> events_;
};

}  // namespace vt
