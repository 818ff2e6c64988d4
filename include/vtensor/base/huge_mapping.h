// Mappings that start at a 2 MiB boundary and are advised MADV_HUGEPAGE: the kernel can back
// (or, for a file, map) such a range with 2 MiB pages only where the address is 2 MiB-aligned,
// and mmap itself only promises 4 KiB alignment. Host memory's slabs, zeroed load-time buffers
// (base/page_memory.h) and large file mappings (base/file.h, docs/genai.md "Payload pages")
// all map through here.
#pragma once

#include <cstddef>

namespace vt {

// Bytes in an x86-64 huge page, the alignment MapHugeAligned gives.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Maps `bytes` (> 0) with mmap(addr, bytes, prot, flags | MAP_FIXED, fd, 0) at a
// kHugePageBytes-aligned address and advises it MADV_HUGEPAGE (a kernel without transparent
// huge pages ignores the advice: 4 KiB pages). Anonymous memory: fd -1 and MAP_ANONYMOUS in
// `flags`. It reserves bytes + 2 MiB of address space, maps over the reservation from its
// first 2 MiB boundary and unmaps the rest, so only [p, p + bytes rounded up to the system
// page) stays mapped. Returns p, or MAP_FAILED with errno set by the failing call (nothing
// stays mapped then). Release with munmap(p, bytes).
void* MapHugeAligned(size_t bytes, int prot, int flags, int fd);

}  // namespace vt
