#include "vtensor/export/irpa_writer.h"

#include <cstring>
#include <set>

namespace vt {

namespace {

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

void PutU16(std::string& s, size_t at, uint16_t v) {
  for (int i = 0; i < 2; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutU32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutU64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

}  // namespace

Expected<std::string> SerializeIrpa(const std::vector<IrpaEntry>& entries) {
  std::set<std::string> keys;
  for (const auto& e : entries) {
    if (e.key.empty()) return InvalidArgument("irpa: entry with an empty key");
    if (!keys.insert(e.key).second) return InvalidArgument("irpa: duplicate key '" + e.key + "'");
  }
  const uint64_t n = entries.size();
  const uint64_t entry_stride = AlignUp(kIrpaDataEntryBytes, kIrpaEntryAlignment);
  const uint64_t entry_off = AlignUp(kIrpaHeaderBytes, kIrpaEntryAlignment);
  const uint64_t entry_len = entry_stride * n;
  const uint64_t meta_off = entry_off + entry_len;
  uint64_t meta_len = 0;
  for (const auto& e : entries) meta_len += e.key.size() + e.metadata.size();
  const uint64_t storage_off = AlignUp(meta_off + meta_len, kIrpaDataAlignment);
  std::vector<uint64_t> data_off(entries.size());
  uint64_t storage_len = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    data_off[i] = AlignUp(storage_len, kIrpaDataAlignment);
    storage_len = data_off[i] + entries[i].data.size();
  }
  const uint64_t total = AlignUp(storage_off + storage_len, kIrpaDataAlignment);

  std::string out(total, '\0');
  // Header.
  PutU32(out, 0, kIrpaMagic);
  PutU16(out, 4, 0);
  PutU16(out, 6, 0);
  PutU64(out, 8, kIrpaHeaderBytes);
  PutU64(out, 16, 0);  // next_header_offset
  PutU64(out, 24, 0);  // flags
  PutU64(out, 32, n);
  PutU64(out, 40, entry_off);
  PutU64(out, 48, entry_len);
  PutU64(out, 56, meta_off);
  PutU64(out, 64, meta_len);
  PutU64(out, 72, storage_off);
  PutU64(out, 80, storage_len);
  // Entry table, metadata and storage.
  uint64_t meta_cursor = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const IrpaEntry& e = entries[i];
    const size_t at = static_cast<size_t>(entry_off + entry_stride * i);
    PutU64(out, at + 0, kIrpaDataEntryBytes);
    PutU32(out, at + 8, 2);  // IREE_IO_PARAMETER_ARCHIVE_ENTRY_TYPE_DATA
    PutU64(out, at + 12, 0);
    PutU64(out, at + 20, meta_cursor);
    PutU64(out, at + 28, e.key.size());
    std::memcpy(&out[static_cast<size_t>(meta_off + meta_cursor)], e.key.data(), e.key.size());
    meta_cursor += e.key.size();
    PutU64(out, at + 36, e.metadata.empty() ? 0 : meta_cursor);
    PutU64(out, at + 44, e.metadata.size());
    if (!e.metadata.empty())
      std::memcpy(&out[static_cast<size_t>(meta_off + meta_cursor)], e.metadata.data(),
                  e.metadata.size());
    meta_cursor += e.metadata.size();
    PutU64(out, at + 52, kIrpaDataAlignment);
    PutU64(out, at + 60, data_off[i]);
    PutU64(out, at + 68, e.data.size());
    if (!e.data.empty())
      std::memcpy(&out[static_cast<size_t>(storage_off + data_off[i])], e.data.data(), e.data.size());
  }
  return out;
}

}  // namespace vt
