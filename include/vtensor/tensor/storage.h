// Storage: who owns a tensor's bytes (docs/design.md §2): owned heap (64-byte aligned), borrowed
// (caller keeps the bytes alive through a keep-alive handle) or a read-only file map.
// String tensors own an array of std::string objects instead of raw bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/file.h"

namespace vt {

class Storage {
 public:
  enum class Kind { kHeap, kBorrowed, kMapped, kStrings };

  // Zero-initialised, 64-byte aligned heap buffer of `bytes` bytes.
  static std::shared_ptr<Storage> Allocate(size_t bytes);
  // Uninitialised variant for outputs that are fully overwritten.
  static std::shared_ptr<Storage> AllocateUninitialized(size_t bytes);
  // `n` empty strings.
  static std::shared_ptr<Storage> AllocateStrings(size_t n);
  // Non-owning view; `keep_alive` (may be null) is held for the storage lifetime.
  static std::shared_ptr<Storage> Borrow(const void* data, size_t bytes,
                                         std::shared_ptr<const void> keep_alive, bool read_only);
  // [offset, offset+bytes) of a mapped file; read-only. Caller validated the range.
  static std::shared_ptr<Storage> FromMap(std::shared_ptr<MappedFile> file, size_t offset,
                                          size_t bytes);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  Kind kind() const { return kind_; }
  size_t size() const { return size_; }
  bool read_only() const { return read_only_; }
  const uint8_t* data() const { return data_; }
  // The mapped file of a kMapped storage (null otherwise): its path identifies the bytes'
  // origin (verification memo) and its pages may be released when no longer needed.
  const MappedFile* mapped_file() const { return map_; }
  // Mutable access; only valid when !read_only().
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }

 private:
  Storage() = default;
  Kind kind_ = Kind::kHeap;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool read_only_ = false;
  std::shared_ptr<const void> keep_alive_;
  const MappedFile* map_ = nullptr;
  std::vector<std::string> strings_;
};

}  // namespace vt
