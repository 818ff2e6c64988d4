// IREE parameter archive (.irpa) writer, format version 0.0 (docs/design.md §3.4;
// IREE's v0 format: header, entry table, metadata segment, storage segment, 64-byte aligned
// data). Layout of the file this writer produces (all integers little-endian, offsets relative
// to the header at file offset 0, no padding inside the records):
//
//   0    header (88 bytes): magic u32 0x41505249 ("IRPA"), version_major u16 = 0,
//        version_minor u16 = 0, header_size u64 = 88, next_header_offset u64 = 0, flags u64 = 0,
//        entry_count u64, entry_segment {offset u64, length u64}, metadata_segment {offset,
//        length}, storage_segment {offset, length}
//   96   entry table: one data entry per parameter, each starting on a 16-byte boundary
//        (zero padding between): entry_size u64 = 76, type u32 = 2 (data), flags u64 = 0,
//        name {offset u64, length u64} and metadata {offset, length} (metadata segment
//        relative), minimum_alignment u64 = 64, storage {offset u64, length u64} (storage
//        segment relative)
//   ...  metadata segment: each entry's name, then its metadata bytes, back to back
//   ...  storage segment, starting on a 64-byte file boundary: each entry's bytes at a 64-byte
//        aligned offset, zero padding between; the file ends at a 64-byte boundary.
//
// vtensor stores in each entry's metadata the canonical layout text of its bytes
// (`vt.layout.v1<...>`, layout/layout_text.h), so the archive alone says how to read a packed
// payload; the MLIR that references the entry carries the same layout structurally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vtensor/base/status.h"

namespace vt {

constexpr uint32_t kIrpaMagic = 0x41505249u;
constexpr uint64_t kIrpaHeaderBytes = 88;
constexpr uint64_t kIrpaDataEntryBytes = 76;
constexpr uint64_t kIrpaEntryAlignment = 16;
constexpr uint64_t kIrpaDataAlignment = 64;

struct IrpaEntry {
  std::string key;                // parameter name, as #flow.parameter.named<"scope"::"key">
  std::string metadata;           // free-form bytes (vtensor: the layout text)
  std::vector<uint8_t> data;      // payload, stored verbatim
};

// The archive bytes. Errors: InvalidArgument for an empty or duplicate key.
Expected<std::string> SerializeIrpa(const std::vector<IrpaEntry>& entries);

}  // namespace vt
