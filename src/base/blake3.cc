// BLAKE3 incremental hasher: chunk state, chaining-value stack, run-time ISA dispatch.
// Tree shape (specification §2.1): chunks of 1024 bytes are leaves; a parent joins a left
// subtree holding the largest power of two of chunks and the rest. Whole chunks that are
// certainly not the last are hashed in power-of-two subtrees of up to kMaxSubtreeChunks, so the
// SIMD paths see 8 or 16 independent chunks (and parents) at a time.
#include "vtensor/base/blake3.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "blake3_impl.h"

namespace vt {

using namespace blake3;

namespace {

constexpr size_t kMaxSubtreeChunks = 256;

Blake3Isa DetectIsa() {
#if defined(__x86_64__) || defined(__i386__)
  // __builtin_cpu_supports also checks that the OS saves the YMM/ZMM state (XCR0).
  Blake3Isa best = Blake3Isa::kPortable;
  if (__builtin_cpu_supports("avx2")) best = Blake3Isa::kAvx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2"))
    best = Blake3Isa::kAvx512;
  return best;
#else
  return Blake3Isa::kPortable;
#endif
}

Blake3Isa HardwareIsa() {
  static const Blake3Isa isa = DetectIsa();
  return isa;
}

HashManyFn HashManyFor(Blake3Isa isa) {
  switch (isa) {
    case Blake3Isa::kAvx512: return HashManyAvx512;
    case Blake3Isa::kAvx2: return HashManyAvx2;
    default: return HashManyPortable;
  }
}

void Parent(const uint32_t left[8], const uint32_t right[8], uint8_t flags, uint32_t out[8]) {
  uint8_t block[kBlockLen];
  for (int i = 0; i < 8; ++i) {
    Store32(block + 4 * i, left[i]);
    Store32(block + 32 + 4 * i, right[i]);
  }
  Compress(kIv, block, kBlockLen, 0, kParent | flags, out);
}

}  // namespace

bool Blake3IsaSupported(Blake3Isa isa) {
  return isa == Blake3Isa::kAuto || isa <= HardwareIsa();
}

Blake3Isa Blake3AutoIsa() {
  static const Blake3Isa isa = [] {
    Blake3Isa best = HardwareIsa();
    if (const char* cap = std::getenv("VT_BLAKE3_ISA")) {
      std::string_view c(cap);
      Blake3Isa want = c == "portable" ? Blake3Isa::kPortable
                       : c == "avx2"   ? Blake3Isa::kAvx2
                                       : Blake3Isa::kAvx512;
      if (want < best) best = want;
    }
    return best;
  }();
  return isa;
}

const char* Blake3IsaName(Blake3Isa isa) {
  switch (isa) {
    case Blake3Isa::kPortable: return "portable";
    case Blake3Isa::kAvx2: return "avx2";
    case Blake3Isa::kAvx512: return "avx512";
    default: return "auto";
  }
}

Blake3::Blake3(Blake3Isa isa) {
  if (isa == Blake3Isa::kAuto) isa = Blake3AutoIsa();
  if (isa > HardwareIsa()) isa = HardwareIsa();
  isa_ = isa;
  std::memcpy(chunk_cv_, kIv, sizeof chunk_cv_);
}

void Blake3::ChunkUpdate(const uint8_t* p, size_t n) {
  while (n > 0) {
    if (buf_len_ == static_cast<int>(kBlockLen)) {
      // More input follows, so the buffered block is not the chunk's last one.
      Compress(chunk_cv_, buf_, kBlockLen, chunk_counter_, blocks_done_ == 0 ? kChunkStart : 0,
               chunk_cv_);
      ++blocks_done_;
      buf_len_ = 0;
    }
    size_t take = std::min(kBlockLen - static_cast<size_t>(buf_len_), n);
    std::memcpy(buf_ + buf_len_, p, take);
    buf_len_ += static_cast<int>(take);
    p += take;
    n -= take;
  }
}

void Blake3::ChunkFinishInto(uint32_t cv[8]) const {
  uint8_t block[kBlockLen] = {};
  std::memcpy(block, buf_, static_cast<size_t>(buf_len_));
  uint8_t flags = kChunkEnd | (blocks_done_ == 0 ? kChunkStart : 0);
  Compress(chunk_cv_, block, static_cast<uint8_t>(buf_len_), chunk_counter_, flags, cv);
}

void Blake3::PushCv(const uint32_t cv_in[8], uint64_t total_chunks, int level) {
  // The stack mirrors the binary representation of the chunk count: merge while the subtree
  // just completed has a finished sibling to its left.
  uint32_t cv[8];
  std::memcpy(cv, cv_in, sizeof cv);
  for (uint64_t t = total_chunks >> level; (t & 1) == 0; t >>= 1) {
    --stack_len_;
    Parent(stack_[stack_len_], cv, 0, cv);
  }
  std::memcpy(stack_[stack_len_++], cv, sizeof cv);
}

void Blake3::SubtreeCv(const uint8_t* p, size_t chunks, uint32_t cv[8]) const {
  const HashManyFn hash_many = HashManyFor(isa_);
  alignas(64) uint8_t cvs[2][kMaxSubtreeChunks * 32];
  const uint8_t* ptrs[kMaxSubtreeChunks] = {};
  for (size_t i = 0; i < chunks; ++i) ptrs[i] = p + i * kChunkLen;
  hash_many(ptrs, chunks, kChunkLen / kBlockLen, kIv, chunk_counter_, true, 0, kChunkStart,
            kChunkEnd, cvs[0]);
  int cur = 0;
  for (size_t n = chunks; n > 1; n /= 2) {
    // Level above: parent i joins chaining values 2i and 2i+1, which are adjacent in memory.
    for (size_t i = 0; i < n / 2; ++i) ptrs[i] = cvs[cur] + 64 * i;
    hash_many(ptrs, n / 2, 1, kIv, 0, false, kParent, 0, 0, cvs[cur ^ 1]);
    cur ^= 1;
  }
  for (int w = 0; w < 8; ++w) cv[w] = Load32(cvs[cur] + 4 * w);
}

void Blake3::Update(const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  const size_t in_chunk = static_cast<size_t>(blocks_done_) * kBlockLen + buf_len_;
  if (in_chunk > 0) {
    size_t take = std::min(kChunkLen - in_chunk, len);
    ChunkUpdate(p, take);
    p += take;
    len -= take;
    if (len == 0) return;
    // The chunk is full and more input follows: it is complete and not the root.
    uint32_t cv[8];
    ChunkFinishInto(cv);
    PushCv(cv, chunk_counter_ + 1, 0);
    ++chunk_counter_;
    std::memcpy(chunk_cv_, kIv, sizeof chunk_cv_);
    blocks_done_ = 0;
    buf_len_ = 0;
  }
  // At a chunk boundary: hash whole chunks that are followed by at least one more byte.
  while (len > kChunkLen) {
    size_t n = 1;
    const size_t avail = std::min((len - 1) / kChunkLen, kMaxSubtreeChunks);
    while (n * 2 <= avail) n *= 2;
    while (chunk_counter_ & (n - 1)) n /= 2;  // a subtree must start at a multiple of its size
    uint32_t cv[8];
    SubtreeCv(p, n, cv);
    int level = 0;
    while ((size_t{1} << level) < n) ++level;
    PushCv(cv, chunk_counter_ + n, level);
    chunk_counter_ += n;
    p += n * kChunkLen;
    len -= n * kChunkLen;
  }
  ChunkUpdate(p, len);
}

Blake3::Digest Blake3::Finalize() const {
  uint32_t out[8];
  if (stack_len_ == 0) {
    uint8_t block[kBlockLen] = {};
    std::memcpy(block, buf_, static_cast<size_t>(buf_len_));
    uint8_t flags = kChunkEnd | kRoot | (blocks_done_ == 0 ? kChunkStart : 0);
    Compress(chunk_cv_, block, static_cast<uint8_t>(buf_len_), chunk_counter_, flags, out);
  } else {
    ChunkFinishInto(out);
    for (int i = stack_len_ - 1; i >= 0; --i) Parent(stack_[i], out, i == 0 ? kRoot : 0, out);
  }
  Digest d;
  for (int w = 0; w < 8; ++w) Store32(d.data() + 4 * w, out[w]);
  return d;
}

Blake3::Digest Blake3::Hash(const void* data, size_t len, Blake3Isa isa) {
  Blake3 h(isa);
  h.Update(data, len);
  return h.Finalize();
}

std::string ToHex(const uint8_t* p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = kHex[p[i] >> 4];
    s[2 * i + 1] = kHex[p[i] & 15];
  }
  return s;
}

}  // namespace vt
