#include "vtensor/base/file.h"
#include "vtensor/base/huge_mapping.h"
#include "vtensor/base/mapped_pages.h"
#include "vtensor/base/temp_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace vt {
namespace {
std::string Errno() { return std::strerror(errno); }

// Maps `n` bytes of `fd` read-only. From kHugeMapBytes on, the mapping starts at a 2 MiB
// boundary and is advised MADV_HUGEPAGE: the kernel maps a 2 MiB folio of the page cache with
// one PMD entry only where the file offset and the address agree modulo 2 MiB, and under the
// advice a fault that reads the file from disk asks for 2 MiB folios (docs/genai.md, "Payload
// pages").
void* MapReadOnly(int fd, size_t n) {
  if (n < kHugeMapBytes) return ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  return MapHugeAligned(n, PROT_READ, MAP_PRIVATE, fd);
}
}  // namespace

Expected<std::shared_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  // O_NONBLOCK: a FIFO opens without waiting for a writer (it is refused below as not a regular
  // file); reads of regular files are unaffected.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("file not found: " + path);
    return IoError("cannot open " + path + ": " + Errno());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string e = Errno();
    ::close(fd);
    return IoError("cannot stat " + path + ": " + e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("not a regular file: " + path);
  }
  auto mf = std::shared_ptr<MappedFile>(new MappedFile());
  mf->path_ = path;
  mf->size_ = static_cast<size_t>(st.st_size);
  if (mf->size_ > 0) {
    void* p = MapReadOnly(fd, mf->size_);
    if (p == MAP_FAILED) {
      std::string e = Errno();
      ::close(fd);
      return IoError("cannot mmap " + path + ": " + e);
    }
    mf->data_ = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return mf;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

Expected<std::string> ReadFileToString(const std::string& path) {
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(path));
  return std::string(reinterpret_cast<const char*>(mf->data()), mf->size());
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes) {
  VT_ASSIGN_OR_RETURN(auto f, TempFile::Create(path));
  VT_RETURN_IF_ERROR(f->Write(bytes.data(), bytes.size()));
  return f->Publish();
}

std::string DirName(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string JoinPath(const std::string& dir, const std::string& rel) {
  if (rel.empty()) return dir;
  if (rel[0] == '/' || dir.empty()) return rel;
  std::string joined = dir;
  if (dir.back() != '/') joined += '/';
  joined += rel;
  return joined;
}

void ReleaseMappedPages(const void* data, size_t n) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t b = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t e = (reinterpret_cast<uintptr_t>(data) + n) / page * page;
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

}  // namespace vt
