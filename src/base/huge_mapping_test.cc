#include "vtensor/base/huge_mapping.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/scoped_temp_dir_test_util.h"
#include "vtensor/base/file.h"

namespace vt {
namespace {

size_t PageBytes() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// True when the page at `p` is not mapped (msync reports ENOMEM for unmapped ranges).
bool Unmapped(uintptr_t p) {
  return ::msync(reinterpret_cast<void*>(p), PageBytes(), MS_ASYNC) != 0 && errno == ENOMEM;
}

TEST(MapHugeAligned, AnonymousMemoryIsAlignedZeroedWritableAndTrimmed) {
  for (size_t bytes : {size_t{1}, size_t{4097}, kHugePageBytes, 3 * kHugePageBytes + 17}) {
    void* raw = MapHugeAligned(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
    ASSERT_NE(raw, MAP_FAILED) << bytes;
    const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t end = (at + bytes + PageBytes() - 1) / PageBytes() * PageBytes();
    // The rest of the reservation after the mapping was given back.
    EXPECT_TRUE(Unmapped(end)) << bytes;
    EXPECT_EQ(at % kHugePageBytes, 0u) << bytes;
    auto* p = static_cast<uint8_t*>(raw);
    for (size_t i = 0; i < bytes; ++i) ASSERT_EQ(p[i], 0) << "byte " << i << " of " << bytes;
    std::memset(p, 0xA5, bytes);
    EXPECT_EQ(::munmap(raw, bytes), 0);
  }
}

TEST(MapHugeAligned, FileMappingHasTheFileBytes) {
  testing::ScopedTempDir dir("huge_mapping");
  ASSERT_FALSE(dir.path().empty());
  const size_t n = kHugePageBytes + 12345;
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + i / 4096) & 0xFF);
  const std::string path = dir.path() + "/f";
  ASSERT_TRUE(WriteFileAtomic(path, bytes).ok());
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* p = MapHugeAligned(n, PROT_READ, MAP_PRIVATE, fd);
  ::close(fd);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePageBytes, 0u);
  EXPECT_EQ(std::string(static_cast<const char*>(p), n), bytes);
  EXPECT_EQ(::munmap(p, n), 0);
}

TEST(MapHugeAligned, FailureReturnsMapFailedWithTheErrno) {
  errno = 0;
  EXPECT_EQ(MapHugeAligned(4096, PROT_READ, MAP_PRIVATE, /*fd=*/-1), MAP_FAILED);
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace vt
