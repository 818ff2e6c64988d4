// Tensor: the TensorView of docs/design.md §2 — element type + Layout + Storage + identity.
// This is what kernels receive. Copying a Tensor copies the view, not the bytes.
// Views (transpose, slice, broadcast, reshape of contiguous data) share storage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/layout/dtype.h"
#include "vtensor/layout/layout.h"
#include "vtensor/tensor/storage.h"

namespace vt {

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Layout layout, std::shared_ptr<Storage> storage)
      : dtype_(dtype), layout_(std::move(layout)), storage_(std::move(storage)) {}

  // New contiguous tensor with uninitialised contents (strings empty).
  static Tensor Empty(DType dtype, const Shape& shape);
  // New contiguous zero-filled tensor.
  static Tensor Zeros(DType dtype, const Shape& shape);
  // Rank-0 helpers.
  static Tensor ScalarF32(float v);
  static Tensor ScalarI64(int64_t v);
  // Rank-1 tensor from values.
  static Tensor FromI64(const std::vector<int64_t>& v);
  static Tensor FromF32(const std::vector<float>& v, const Shape& shape);
  // A read-only tensor over caller memory, without a copy: `data` holds the NumElements(shape)
  // elements of `dtype` densely in row-major order, `bytes` = NumElements(shape) *
  // DTypeSize(dtype). The bytes must stay valid and unchanged while the tensor or any view of
  // it is in use; `keep_alive` (may be null) is held that long. Errors: InvalidArgument for
  // an undefined or string dtype, a negative dim, an element count that overflows, a `bytes`
  // that differs, or null `data` with bytes > 0.
  static Expected<Tensor> Borrow(DType dtype, const Shape& shape, const void* data, size_t bytes,
                                 std::shared_ptr<const void> keep_alive = nullptr);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Layout& layout() const { return layout_; }
  const Shape& shape() const { return layout_.shape(); }
  int rank() const { return layout_.rank(); }
  int64_t dim(int i) const { return layout_.dim(i); }
  int64_t numel() const { return layout_.numel(); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * DTypeSize(dtype_); }
  bool is_contiguous() const { return layout_.is_contiguous(); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Identity: initializer name (empty for intermediates).
  const std::string& name() const {
    static const std::string kEmpty;
    return name_ ? *name_ : kEmpty;
  }
  void set_name(std::string n) { name_ = std::make_shared<const std::string>(std::move(n)); }

  // Pointer to logical element 0 (offset applied). For contiguous tensors this is the
  // start of numel() dense elements.
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(storage_->data()) + layout_.offset();
  }
  // Mutable pointer; the storage must be writable (heap) — kernels only write outputs they
  // allocated.
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(storage_->mutable_data()) + layout_.offset();
  }
  const void* raw_data() const { return storage_->data() + layout_.offset() * DTypeSize(dtype_); }
  void* raw_mutable_data() {
    return storage_->mutable_data() + layout_.offset() * DTypeSize(dtype_);
  }

  // Returns *this when contiguous, otherwise a dense row-major copy.
  Tensor Contiguous() const;
  // Dense deep copy (always new storage).
  Tensor Clone() const;
  // View with another layout over the same storage (caller guarantees bounds).
  Tensor WithLayout(Layout layout) const;
  // Reshape; a view when contiguous, a copy otherwise. Errors: element count mismatch.
  Expected<Tensor> Reshape(const Shape& shape) const;

  // Element `flat` (row-major logical index) converted to double / int64; any numeric dtype.
  double GetDouble(int64_t flat) const;
  int64_t GetInt64(int64_t flat) const;

 private:
  DType dtype_ = DType::kUndefined;
  Layout layout_;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<const std::string> name_;  // shared: copying a view must not allocate
};

// Copies `src` (any layout) into `dst` (contiguous, same dtype and numel), row-major order.
void CopyToContiguous(const Tensor& src, void* dst);

}  // namespace vt
