// Test-only .irpa reader, written from IREE's v0 schema independently of the writer
// (export/irpa_writer.cc): it walks the bytes field by field with its own bounds checks, the
// way IREE's runtime parser validates an archive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vtensor/base/status.h"

namespace vt::testing {

struct IrpaReadEntry {
  std::string key;
  std::string metadata;
  uint64_t file_offset = 0;  // absolute offset of the data in the file
  uint64_t length = 0;
  uint64_t minimum_alignment = 0;
};

struct IrpaReadArchive {
  std::vector<IrpaReadEntry> entries;
  const IrpaReadEntry* Find(std::string_view key) const {
    for (const auto& e : entries)
      if (e.key == key) return &e;
    return nullptr;
  }
};

class ByteCursor {
 public:
  ByteCursor(std::string_view bytes, uint64_t at) : b_(bytes), at_(at) {}
  bool Read(uint64_t n, uint64_t* v) {
    if (at_ + n > b_.size()) return false;
    *v = 0;
    for (uint64_t i = 0; i < n; ++i)
      *v |= static_cast<uint64_t>(static_cast<uint8_t>(b_[at_ + i])) << (8 * i);
    at_ += n;
    return true;
  }

 private:
  std::string_view b_;
  uint64_t at_;
};

inline Expected<IrpaReadArchive> ReadIrpa(std::string_view file) {
  ByteCursor h(file, 0);
  uint64_t magic, major, minor, header_size, next, flags, count;
  uint64_t seg[6];
  if (!h.Read(4, &magic) || !h.Read(2, &major) || !h.Read(2, &minor) || !h.Read(8, &header_size) ||
      !h.Read(8, &next) || !h.Read(8, &flags) || !h.Read(8, &count))
    return InvalidArgument("irpa: truncated header");
  for (auto& s : seg)
    if (!h.Read(8, &s)) return InvalidArgument("irpa: truncated header");
  if (magic != 0x41505249u) return InvalidArgument("irpa: bad magic");
  if (major != 0 || minor != 0) return InvalidArgument("irpa: unsupported version");
  if (header_size != 88) return InvalidArgument("irpa: v0 header must be 88 bytes");
  if (next != 0) return InvalidArgument("irpa: linked archives not expected");
  for (int i = 0; i < 3; ++i)
    if (seg[2 * i + 1] != 0 && seg[2 * i] + seg[2 * i + 1] > file.size())
      return InvalidArgument("irpa: segment " + std::to_string(i) + " out of range");
  const uint64_t entries_off = seg[0], entries_len = seg[1], meta_off = seg[2], meta_len = seg[3],
                 storage_off = seg[4], storage_len = seg[5];
  if (entries_off % 16 != 0) return InvalidArgument("irpa: entry table not 16-byte aligned");
  IrpaReadArchive out;
  uint64_t pos = entries_off, remaining = entries_len;
  for (uint64_t i = 0; i < count; ++i) {
    if (remaining < 60) return InvalidArgument("irpa: entry table truncated");
    ByteCursor c(file, pos);
    uint64_t size, type, eflags, name_off, name_len, md_off, md_len, align;
    if (!c.Read(8, &size) || !c.Read(4, &type) || !c.Read(8, &eflags) || !c.Read(8, &name_off) ||
        !c.Read(8, &name_len) || !c.Read(8, &md_off) || !c.Read(8, &md_len) || !c.Read(8, &align))
      return InvalidArgument("irpa: entry truncated");
    if (size < 60 || size > remaining) return InvalidArgument("irpa: bad entry size");
    if (name_off + name_len > meta_len || (md_len && md_off + md_len > meta_len))
      return InvalidArgument("irpa: metadata reference out of range");
    IrpaReadEntry e;
    e.key = std::string(file.substr(meta_off + name_off, name_len));
    if (md_len) e.metadata = std::string(file.substr(meta_off + md_off, md_len));
    e.minimum_alignment = align;
    if (type == 2) {
      uint64_t s_off, s_len;
      if (size < 76 || !c.Read(8, &s_off) || !c.Read(8, &s_len))
        return InvalidArgument("irpa: data entry too small");
      if (s_len && s_off + s_len > storage_len) return InvalidArgument("irpa: storage out of range");
      e.file_offset = storage_off + s_off;
      e.length = s_len;
      if (align && e.file_offset % align != 0) return InvalidArgument("irpa: misaligned data");
    } else if (type != 0) {
      return InvalidArgument("irpa: unexpected entry type " + std::to_string(type));
    }
    if (type != 0) out.entries.push_back(std::move(e));
    const uint64_t step = (size + 15) / 16 * 16;
    pos += step;
    remaining = remaining > step ? remaining - step : 0;
  }
  return out;
}

}  // namespace vt::testing
