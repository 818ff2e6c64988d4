// File mappings in 2 MiB pages (docs/genai.md, "Payload pages").
//
// MappedFile::Open (base/file.h) maps a file of kHugeMapBytes or more at a 2 MiB-aligned
// address and advises MADV_HUGEPAGE, so that the kernel can map the 2 MiB folios of the file's
// page cache with one page-table entry each where the filesystem caches files in large folios
// (ext4 on Linux 6.18 does), and a fault that reads the file from disk reads a 2 MiB folio. A
// process then takes one fault per 2 MiB, not one per 4 KiB page, and its TLB covers 2 MiB per
// entry; the pages stay the page cache's, shared by every process that maps the file.
//
// FileMappingPages says how this process maps its large read-only files (weights and
// payloads): how many of their bytes are resident and how many of those are mapped by 2 MiB
// entries, from /proc/self/smaps. A figure for benchmarks (`vtensor generate`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vt {

// Bytes: files of at least this size are mapped 2 MiB-aligned and advised MADV_HUGEPAGE.
inline constexpr size_t kHugeMapBytes = size_t{2} << 20;

struct FileMappingPages {
  int64_t mappings = 0;          // read-only, non-executable file mappings of >= 2 MiB
  int64_t rss_bytes = 0;         // their resident bytes (smaps Rss)
  int64_t pmd_mapped_bytes = 0;  // of which mapped by 2 MiB entries (smaps FilePmdMapped)
};

// Sums the mappings above over the text of a /proc/<pid>/smaps file. Lines it does not
// recognise are skipped (a kernel without FilePmdMapped gives pmd_mapped_bytes 0).
FileMappingPages ParseFileMappingPages(std::string_view smaps);

// The same for this process; all zero where /proc/self/smaps cannot be read.
FileMappingPages ReadFileMappingPages();

}  // namespace vt
