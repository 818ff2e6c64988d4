// BLAKE3 hash (the `blake3` digest algorithm of docs/design.md §4), our own
// implementation of the BLAKE3 specification (hash mode, 32-byte output).
//
// Three code paths produce identical bytes: portable C++, AVX2 (8 chunks in parallel) and
// AVX-512 (16 chunks in parallel). The fastest one the CPU and OS support is chosen once at
// run time; VT_BLAKE3_ISA=portable|avx2|avx512 in the environment caps the choice (tests and
// benchmarks). Each SIMD file is compiled with exactly its own ISA flags.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace vt {

enum class Blake3Isa : uint8_t { kPortable, kAvx2, kAvx512, kAuto };

// True when this CPU/OS can run `isa` (kPortable and kAuto always).
bool Blake3IsaSupported(Blake3Isa isa);
// The ISA that kAuto resolves to (best supported, capped by VT_BLAKE3_ISA).
Blake3Isa Blake3AutoIsa();
const char* Blake3IsaName(Blake3Isa isa);

// Incremental hasher. Update() any number of times, Finalize() at any point (it does not
// change the state, so hashing may continue). Not thread-safe; cheap to construct (~2 KiB).
class Blake3 {
 public:
  static constexpr size_t kOutLen = 32;
  using Digest = std::array<uint8_t, kOutLen>;

  // An unsupported `isa` falls back to the best supported one below it.
  explicit Blake3(Blake3Isa isa = Blake3Isa::kAuto);

  void Update(const void* data, size_t len);
  Digest Finalize() const;
  Blake3Isa isa() const { return isa_; }

  // One-shot hash of `len` bytes.
  static Digest Hash(const void* data, size_t len, Blake3Isa isa = Blake3Isa::kAuto);

 private:
  void ChunkUpdate(const uint8_t* p, size_t n);
  void ChunkFinishInto(uint32_t cv[8]) const;  // non-root CV of the current (full) chunk
  void PushCv(const uint32_t cv[8], uint64_t total_chunks, int level);
  void SubtreeCv(const uint8_t* p, size_t chunks, uint32_t cv[8]) const;

  Blake3Isa isa_;
  // Chaining values of completed subtrees, one per set bit of the chunk count (2^54 chunks max).
  uint32_t stack_[54][8];
  int stack_len_ = 0;
  // Current chunk: chaining value, counter, blocks already compressed, and the last block
  // (kept back until more input proves it is not the final block).
  uint32_t chunk_cv_[8];
  uint64_t chunk_counter_ = 0;
  int blocks_done_ = 0;
  uint8_t buf_[64];
  int buf_len_ = 0;
};

// Lower-case hex of `n` bytes.
std::string ToHex(const uint8_t* p, size_t n);

}  // namespace vt
