// Internals shared by the BLAKE3 code paths (blake3.cc, blake3_portable.cc, blake3_avx2.cc,
// blake3_avx512.cc). Constants are those of the BLAKE3 specification, §2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vt::blake3 {

constexpr size_t kBlockLen = 64;
constexpr size_t kChunkLen = 1024;

constexpr uint8_t kChunkStart = 1 << 0;
constexpr uint8_t kChunkEnd = 1 << 1;
constexpr uint8_t kParent = 1 << 2;
constexpr uint8_t kRoot = 1 << 3;

// The IV is SHA-256's initial hash value.
inline constexpr uint32_t kIv[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};

// Message word schedule: round r uses word kSchedule[r][i] at position i. Round 0 is the
// identity; each round applies the specification's permutation to the previous one.
struct Schedule {
  uint8_t s[7][16];
};
constexpr Schedule MakeSchedule() {
  constexpr uint8_t perm[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
  Schedule out{};
  for (int i = 0; i < 16; ++i) out.s[0][i] = static_cast<uint8_t>(i);
  for (int r = 1; r < 7; ++r)
    for (int i = 0; i < 16; ++i) out.s[r][i] = out.s[r - 1][perm[i]];
  return out;
}
inline constexpr Schedule kSchedule = MakeSchedule();

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian hosts only (x86-64, AArch64)
  return v;
}
inline void Store32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

// The compression function; writes the 8-word chaining value (first half of the output).
void Compress(const uint32_t cv[8], const uint8_t block[kBlockLen], uint8_t block_len,
              uint64_t counter, uint8_t flags, uint32_t out[8]);

// Hashes `n` inputs, each `blocks` full blocks long, starting at inputs[i], all with chaining
// value `key`. Input i uses counter `counter + (increment ? i : 0)`; every block gets `flags`,
// the first also `flags_start`, the last also `flags_end`. Writes n 32-byte chaining values
// to `out` (input i at out + 32 i).
using HashManyFn = void (*)(const uint8_t* const* inputs, size_t n, size_t blocks,
                            const uint32_t key[8], uint64_t counter, bool increment,
                            uint8_t flags, uint8_t flags_start, uint8_t flags_end, uint8_t* out);

void HashManyPortable(const uint8_t* const* inputs, size_t n, size_t blocks,
                      const uint32_t key[8], uint64_t counter, bool increment, uint8_t flags,
                      uint8_t flags_start, uint8_t flags_end, uint8_t* out);
void HashManyAvx2(const uint8_t* const* inputs, size_t n, size_t blocks, const uint32_t key[8],
                  uint64_t counter, bool increment, uint8_t flags, uint8_t flags_start,
                  uint8_t flags_end, uint8_t* out);
void HashManyAvx512(const uint8_t* const* inputs, size_t n, size_t blocks,
                    const uint32_t key[8], uint64_t counter, bool increment, uint8_t flags,
                    uint8_t flags_start, uint8_t flags_end, uint8_t* out);

}  // namespace vt::blake3
