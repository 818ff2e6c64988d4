#include "vtensor/tensor/tensor.h"

#include <cstring>

#include "vtensor/layout/minifloat.h"

namespace vt {

Tensor Tensor::Empty(DType dtype, const Shape& shape) {
  int64_t n = NumElements(shape);
  std::shared_ptr<Storage> s =
      dtype == DType::kString ? Storage::AllocateStrings(static_cast<size_t>(n))
                              : Storage::AllocateUninitialized(static_cast<size_t>(n) * DTypeSize(dtype));
  return Tensor(dtype, Layout::Contiguous(shape), std::move(s));
}

Expected<Tensor> Tensor::Borrow(DType dtype, const Shape& shape, const void* data, size_t bytes,
                                std::shared_ptr<const void> keep_alive) {
  if (dtype == DType::kUndefined || dtype == DType::kString)
    return InvalidArgument(std::string("cannot borrow memory as a ") + DTypeName(dtype) +
                           " tensor (strings are objects, not bytes)");
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("shape " + ShapeToString(shape) + " has a negative dim");
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
      return InvalidArgument("shape " + ShapeToString(shape) + " has too many elements");
  }
  uint64_t want = 0;
  if (__builtin_mul_overflow(n, static_cast<uint64_t>(DTypeSize(dtype)), &want) ||
      want != bytes)
    return InvalidArgument(std::string(DTypeName(dtype)) + ShapeToString(shape) + " needs " +
                           std::to_string(want) + " bytes, got " + std::to_string(bytes));
  if (data == nullptr && bytes > 0) return InvalidArgument("data is null");
  return Tensor(dtype, Layout::Contiguous(shape),
                Storage::Borrow(data, bytes, std::move(keep_alive), /*read_only=*/true));
}

Tensor Tensor::Zeros(DType dtype, const Shape& shape) {
  int64_t n = NumElements(shape);
  std::shared_ptr<Storage> s =
      dtype == DType::kString ? Storage::AllocateStrings(static_cast<size_t>(n))
                              : Storage::Allocate(static_cast<size_t>(n) * DTypeSize(dtype));
  return Tensor(dtype, Layout::Contiguous(shape), std::move(s));
}

Tensor Tensor::ScalarF32(float v) {
  Tensor t = Empty(DType::kFloat32, {});
  *t.mutable_data<float>() = v;
  return t;
}

Tensor Tensor::ScalarI64(int64_t v) {
  Tensor t = Empty(DType::kInt64, {});
  *t.mutable_data<int64_t>() = v;
  return t;
}

Tensor Tensor::FromI64(const std::vector<int64_t>& v) {
  Tensor t = Empty(DType::kInt64, {static_cast<int64_t>(v.size())});
  if (!v.empty()) std::memcpy(t.mutable_data<int64_t>(), v.data(), v.size() * 8);
  return t;
}

Tensor Tensor::FromF32(const std::vector<float>& v, const Shape& shape) {
  Tensor t = Empty(DType::kFloat32, shape);
  if (!v.empty()) std::memcpy(t.mutable_data<float>(), v.data(), v.size() * 4);
  return t;
}

namespace {

template <size_t kSize>
void CopyStrided(const uint8_t* base, const Layout& l, uint8_t* dst) {
  const int r = l.rank();
  const auto& shape = l.shape();
  const auto& strides = l.strides();
  int64_t n = l.numel();
  if (n == 0) return;
  if (r == 0) {
    std::memcpy(dst, base + l.offset() * static_cast<int64_t>(kSize), kSize);
    return;
  }
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  const int64_t inner = shape[static_cast<size_t>(r - 1)];
  const int64_t inner_stride = strides[static_cast<size_t>(r - 1)];
  int64_t outer = n / inner;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t e = l.offset();
    for (int d = 0; d < r - 1; ++d) e += idx[static_cast<size_t>(d)] * strides[static_cast<size_t>(d)];
    const uint8_t* src = base + e * static_cast<int64_t>(kSize);
    if (inner_stride == 1) {
      std::memcpy(dst, src, static_cast<size_t>(inner) * kSize);
      dst += inner * static_cast<int64_t>(kSize);
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        std::memcpy(dst, src + i * inner_stride * static_cast<int64_t>(kSize), kSize);
        dst += kSize;
      }
    }
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

void CopyStridedStrings(const std::string* base, const Layout& l, std::string* dst) {
  const int r = l.rank();
  int64_t n = l.numel();
  std::vector<int64_t> idx(static_cast<size_t>(r), 0);
  for (int64_t k = 0; k < n; ++k) {
    dst[k] = base[l.ElementIndex(idx.data())];
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < l.dim(d)) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
}

}  // namespace

void CopyToContiguous(const Tensor& src, void* dst) {
  const uint8_t* base = src.storage()->data();
  auto* d = static_cast<uint8_t*>(dst);
  if (src.dtype() == DType::kString) {
    CopyStridedStrings(reinterpret_cast<const std::string*>(base), src.layout(),
                       static_cast<std::string*>(dst));
    return;
  }
  if (src.is_contiguous()) {
    if (src.nbytes()) std::memcpy(d, src.raw_data(), src.nbytes());
    return;
  }
  switch (DTypeSize(src.dtype())) {
    case 1: CopyStrided<1>(base, src.layout(), d); break;
    case 2: CopyStrided<2>(base, src.layout(), d); break;
    case 4: CopyStrided<4>(base, src.layout(), d); break;
    case 8: CopyStrided<8>(base, src.layout(), d); break;
    case 16: CopyStrided<16>(base, src.layout(), d); break;
    default: break;
  }
}

Tensor Tensor::Contiguous() const {
  if (!defined() || is_contiguous()) return *this;
  return Clone();
}

Tensor Tensor::Clone() const {
  Tensor out = Empty(dtype_, shape());
  CopyToContiguous(*this, out.raw_mutable_data());
  out.name_ = name_;
  return out;
}

Tensor Tensor::WithLayout(Layout layout) const {
  Tensor t = *this;
  t.layout_ = std::move(layout);
  return t;
}

Expected<Tensor> Tensor::Reshape(const Shape& shape) const {
  if (NumElements(shape) != numel())
    return InvalidArgument("reshape: cannot reshape " + ShapeToString(this->shape()) + " to " +
                           ShapeToString(shape));
  Tensor c = Contiguous();
  Layout l = Layout::Contiguous(shape);
  auto st = Layout::Strided(shape, l.strides(), c.layout().offset());
  if (!st.ok()) return st.take_status();
  return c.WithLayout(std::move(st).value());
}

namespace {
template <typename T>
T ElementAt(const Tensor& t, int64_t flat) {
  if (t.is_contiguous()) return t.data<T>()[flat];
  std::vector<int64_t> idx(static_cast<size_t>(t.rank()));
  for (int d = t.rank() - 1; d >= 0; --d) {
    idx[static_cast<size_t>(d)] = flat % t.dim(d);
    flat /= t.dim(d);
  }
  return reinterpret_cast<const T*>(t.storage()->data())[t.layout().ElementIndex(idx.data())];
}
}  // namespace

double Tensor::GetDouble(int64_t flat) const {
  switch (dtype_) {
    case DType::kFloat32: return ElementAt<float>(*this, flat);
    case DType::kFloat64: return ElementAt<double>(*this, flat);
    case DType::kFloat16: return HalfToFloat(ElementAt<uint16_t>(*this, flat));
    case DType::kBFloat16: return BFloat16ToFloat(ElementAt<uint16_t>(*this, flat));
    case DType::kInt8: return ElementAt<int8_t>(*this, flat);
    case DType::kUInt8: return ElementAt<uint8_t>(*this, flat);
    case DType::kInt16: return ElementAt<int16_t>(*this, flat);
    case DType::kUInt16: return ElementAt<uint16_t>(*this, flat);
    case DType::kInt32: return ElementAt<int32_t>(*this, flat);
    case DType::kUInt32: return ElementAt<uint32_t>(*this, flat);
    case DType::kInt64: return static_cast<double>(ElementAt<int64_t>(*this, flat));
    case DType::kUInt64: return static_cast<double>(ElementAt<uint64_t>(*this, flat));
    case DType::kBool: return ElementAt<uint8_t>(*this, flat) ? 1.0 : 0.0;
    case DType::kInt4: return ElementAt<int8_t>(*this, flat);   // unpacked, layout/dtype.h
    case DType::kUInt4: return ElementAt<uint8_t>(*this, flat);
    case DType::kFloat8E4M3FN: case DType::kFloat8E4M3FNUZ: case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ: case DType::kFloat4E2M1:
      return MiniFloatToFloat(dtype_, ElementAt<uint8_t>(*this, flat));
    default: return 0.0;
  }
}

int64_t Tensor::GetInt64(int64_t flat) const {
  switch (dtype_) {
    case DType::kInt64: return ElementAt<int64_t>(*this, flat);
    case DType::kUInt64: return static_cast<int64_t>(ElementAt<uint64_t>(*this, flat));
    case DType::kInt32: return ElementAt<int32_t>(*this, flat);
    case DType::kUInt32: return ElementAt<uint32_t>(*this, flat);
    case DType::kInt16: return ElementAt<int16_t>(*this, flat);
    case DType::kUInt16: return ElementAt<uint16_t>(*this, flat);
    case DType::kInt8: return ElementAt<int8_t>(*this, flat);
    case DType::kUInt8: return ElementAt<uint8_t>(*this, flat);
    case DType::kBool: return ElementAt<uint8_t>(*this, flat) ? 1 : 0;
    case DType::kInt4: return ElementAt<int8_t>(*this, flat);
    case DType::kUInt4: return ElementAt<uint8_t>(*this, flat);
    default: return static_cast<int64_t>(GetDouble(flat));
  }
}

}  // namespace vt
