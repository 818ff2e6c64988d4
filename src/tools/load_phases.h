// The phases of session creation (Session::load_phases) as bench-load reports them: a
// fixed-size record a measuring child sends back through its pipe, and the table of the rows.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vtensor/runtime/session.h"

namespace vt::cli {

// Plain bytes (no pointers): copied through a pipe from a fork()ed child.
struct PhaseTimes {
  static constexpr int kMax = 24;
  struct Phase {
    char name[40] = {};
    double ms = 0;
    int64_t faults = 0;  // LoadPhase::faults
  };
  Phase phases[kMax];
  int count = 0;
};

// Copies `phases` in (names cut to fit; phases past kMax are added to the last one).
void RecordPhases(const std::vector<LoadPhase>& phases, PhaseTimes* out);

// Two columns per (row name, phases), milliseconds and minor page faults: each phase name on
// its own line, in first-seen order (a phase repeated in a row, e.g. "pass
// constant-folding", is summed), then the total.
std::string PhaseTable(const std::vector<std::pair<std::string, PhaseTimes>>& rows);

}  // namespace vt::cli
