// The temporary file behind every atomic write (vt::WriteFileAtomic, the CLI's streamed
// outputs, compile's payload file): written in the destination's directory, made durable, then
// published under the destination's name in one step, so a reader sees the old file or the
// whole new one. Killing the writer at any point (SIGKILL included) leaves no file behind:
// the temporary is an unnamed O_TMPFILE inode that the kernel frees with the last descriptor,
// and it gets a name only for the instant between linkat and rename at Publish. Where the
// filesystem refuses O_TMPFILE, the temporary is named "<dest>.tmp.<pid>.<random>" and each
// Create first removes such names in that directory whose writer process is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "vtensor/base/status.h"

namespace vt {

class TempFile {
 public:
  // A new empty temporary for `dest`. Errors: IoError naming `dest` and the reason (errno
  // text), e.g. "cannot write 'out/x.onnx': directory 'out' does not exist".
  static Expected<std::unique_ptr<TempFile>> Create(const std::string& dest);
  ~TempFile();  // unpublished: the temporary is discarded
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Appends / writes at `offset` (bytes). Errors: IoError naming the destination and reason.
  Status Write(const void* data, size_t n);
  Status WriteAt(const void* data, size_t n, uint64_t offset);
  // Sets the size in bytes (zero-fills when growing). Errors: IoError.
  Status Truncate(uint64_t size);
  // fsync, then the temporary replaces `dest` atomically; closes the file. Errors: IoError
  // (the temporary is discarded and `dest` untouched).
  Status Publish();
  const std::string& dest() const { return dest_; }

 private:
  TempFile() = default;
  Status Fail(const std::string& what);
  std::string dest_;
  std::string named_;  // the fallback's temp name; empty for an O_TMPFILE inode
  int fd_ = -1;
  bool published_ = false;
};

// Removes "<base>.tmp.<pid>[.<n>]" files in `dir` whose writer process <pid> no longer runs
// (temporaries of writers killed while the fallback named them). Returns how many it removed.
int SweepStaleTemporaries(const std::string& dir, const std::string& base);

// Test hook: when the environment variable VTENSOR_TEST_KILL_AFTER_BYTES=N is set, the process
// sends itself SIGKILL once its TempFiles have written N bytes in all (tests/cli: a compile
// killed mid-write leaves no litter). VTENSOR_TEST_NO_TMPFILE=1 forces the named fallback.
void CountWrittenBytesForTests(size_t n);

}  // namespace vt
