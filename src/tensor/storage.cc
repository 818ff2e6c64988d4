#include "vtensor/tensor/storage.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "vtensor/base/host_memory.h"

namespace vt {

namespace {
// Host memory keeps freed buffers faulted in for the next run (base/host_memory.h).
uint8_t* AlignedAlloc(size_t bytes) {
  void* p = HostAlloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<uint8_t*>(p);
}
}  // namespace

std::shared_ptr<Storage> Storage::AllocateUninitialized(size_t bytes) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->kind_ = Kind::kHeap;
  s->data_ = AlignedAlloc(bytes);
  s->size_ = bytes;
  return s;
}

std::shared_ptr<Storage> Storage::Allocate(size_t bytes) {
  auto s = AllocateUninitialized(bytes);
  std::memset(s->mutable_data(), 0, bytes);
  return s;
}

std::shared_ptr<Storage> Storage::AllocateStrings(size_t n) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->kind_ = Kind::kStrings;
  s->strings_.resize(n);
  s->data_ = reinterpret_cast<const uint8_t*>(s->strings_.data());
  s->size_ = n * sizeof(std::string);
  return s;
}

std::shared_ptr<Storage> Storage::Borrow(const void* data, size_t bytes,
                                         std::shared_ptr<const void> keep_alive, bool read_only) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->kind_ = Kind::kBorrowed;
  s->data_ = static_cast<const uint8_t*>(data);
  s->size_ = bytes;
  s->keep_alive_ = std::move(keep_alive);
  s->read_only_ = read_only;
  return s;
}

std::shared_ptr<Storage> Storage::FromMap(std::shared_ptr<MappedFile> file, size_t offset,
                                          size_t bytes) {
  auto s = std::shared_ptr<Storage>(new Storage());
  s->kind_ = Kind::kMapped;
  s->data_ = file->data() + offset;
  s->size_ = bytes;
  s->read_only_ = true;
  s->map_ = file.get();
  s->keep_alive_ = std::move(file);
  return s;
}

Storage::~Storage() {
  if (kind_ == Kind::kHeap) HostFree(const_cast<uint8_t*>(data_), size_);
}

}  // namespace vt
