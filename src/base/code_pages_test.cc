#include "vtensor/base/code_pages.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace vt {
namespace {

// Size and Rss (KiB) of the /proc/self/smaps entry holding `addr`; false if not found.
bool MappingSizeAndRss(uintptr_t addr, long* size_kb, long* rss_kb) {
  FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return false;
  char line[4096];
  bool in = false, found = false;
  *size_kb = *rss_kb = -1;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && std::strchr(line, ':') != line) {
      if (found) break;
      in = addr >= lo && addr < hi;
      found = in;
      continue;
    }
    if (!in) continue;
    std::sscanf(line, "Size: %ld kB", size_kb);
    std::sscanf(line, "Rss: %ld kB", rss_kb);
  }
  std::fclose(f);
  return found && *size_kb >= 0 && *rss_kb >= 0;
}

TEST(CodePagesTest, ModeFromEnvironmentValue) {
  EXPECT_EQ(CodePageModeFrom(nullptr), CodePageMode::kTouch);
  EXPECT_EQ(CodePageModeFrom("touch"), CodePageMode::kTouch);
  EXPECT_EQ(CodePageModeFrom(""), CodePageMode::kTouch);
  EXPECT_EQ(CodePageModeFrom("off"), CodePageMode::kOff);
  EXPECT_EQ(CodePageModeFrom("0"), CodePageMode::kOff);
  EXPECT_EQ(CodePageModeFrom("populate"), CodePageMode::kPopulate);
}

// Default mode: the background thread reads every page of the code mapping, and when it is done
// every page is resident: code reached for the first time later takes no page fault.
TEST(CodePagesTest, BackgroundThreadReadsWholeCodeMapping) {
  if (CodePageModeFrom(std::getenv("VTENSOR_CODE_PAGES")) != CodePageMode::kTouch)
    GTEST_SKIP() << "VTENSOR_CODE_PAGES selects another mode";
  ASSERT_TRUE(FaultInOwnCode());
  long size_kb = 0, rss_kb = 0;
  ASSERT_TRUE(MappingSizeAndRss(reinterpret_cast<uintptr_t>(&FaultInOwnCode), &size_kb, &rss_kb));
  OwnCodeProgress p = GetOwnCodeProgress();
  EXPECT_EQ(p.pages, static_cast<size_t>(size_kb / 4));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!p.done && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    p = GetOwnCodeProgress();
  }
  ASSERT_TRUE(p.done);
  EXPECT_EQ(p.touched, p.pages);
  ASSERT_TRUE(MappingSizeAndRss(reinterpret_cast<uintptr_t>(&FaultInOwnCode), &size_kb, &rss_kb));
  EXPECT_EQ(rss_kb, size_kb);
  EXPECT_TRUE(FaultInOwnCode()) << "later calls report the first call's result";
  EXPECT_EQ(GetOwnCodeProgress().pages, p.pages) << "no second thread";
}

}  // namespace
}  // namespace vt
