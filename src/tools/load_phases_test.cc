#include "tools/load_phases.h"

#include <gtest/gtest.h>

namespace vt::cli {
namespace {

TEST(LoadPhases, TableSumsRepeatedPhasesMsAndFaults) {
  PhaseTimes a, b;
  RecordPhases({{"parse", 1.5, 10}, {"pass x", 2.0, 3}, {"pass x", 0.5, 4}}, &a);
  RecordPhases({{"parse", 0.25, 7}, {"session plan", 4.0, 100}}, &b);
  ASSERT_EQ(a.count, 3);
  EXPECT_EQ(a.phases[2].faults, 4);
  const std::string t = PhaseTable({{"no-cache", a}, {"memo", b}});
  EXPECT_NE(t.find("parse                              1.50      10       0.25       7"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("pass x                             2.50       7          -       -"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("total                              4.00      17       4.25     107"),
            std::string::npos)
      << t;
}

TEST(LoadPhases, PhasesPastTheLastSlotAddToIt) {
  std::vector<LoadPhase> many;
  many.reserve(PhaseTimes::kMax + 3);
  for (int i = 0; i < PhaseTimes::kMax + 3; ++i) many.push_back({"p" + std::to_string(i), 1.0, 2});
  PhaseTimes t;
  RecordPhases(many, &t);
  ASSERT_EQ(t.count, PhaseTimes::kMax);
  EXPECT_DOUBLE_EQ(t.phases[PhaseTimes::kMax - 1].ms, 4.0);
  EXPECT_EQ(t.phases[PhaseTimes::kMax - 1].faults, 8);
}

}  // namespace
}  // namespace vt::cli
