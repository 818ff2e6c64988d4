#include "vtensor/base/code_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

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

// After the call every page of the code mapping is mapped into the process: code reached for
// the first time later takes no page fault.
TEST(CodePagesTest, WholeCodeMappingIsResident) {
  if (!FaultInOwnCode()) GTEST_SKIP() << "MADV_POPULATE_READ not available";
  long size_kb = 0, rss_kb = 0;
  ASSERT_TRUE(MappingSizeAndRss(reinterpret_cast<uintptr_t>(&FaultInOwnCode), &size_kb, &rss_kb));
  EXPECT_GT(size_kb, 0);
  EXPECT_EQ(rss_kb, size_kb);
  EXPECT_TRUE(FaultInOwnCode()) << "later calls report the first call's result";
}

}  // namespace
}  // namespace vt
