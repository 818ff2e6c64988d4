// Protobuf wire format's base-128 varint, read over bytes in place: the one decoder of the
// skeleton walk (format/model_skeleton.cc) and the session plan reader (graph/plan_wire.h).
#pragma once

#include <cstdint>

namespace vt::wire {

// Reads one varint at `p` (advanced past it) into `v`. False when the bytes end inside it or it
// runs past 10 bytes (64 bits); `p` is then unspecified.
inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t b = *p++;
    x |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *v = x;
      return true;
    }
  }
  return false;
}

}  // namespace vt::wire
