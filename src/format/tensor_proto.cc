#include "vtensor/format/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "vtensor/format/model_skeleton.h"
#include "vtensor/layout/nibble_pack.h"
#include "vtensor/tensor/natural_alignment.h"

namespace vt {

namespace {

template <typename Src, typename Dst>
void CopyField(const google::protobuf::RepeatedField<Src>& f, Dst* out) {
  for (int i = 0; i < f.size(); ++i) out[i] = static_cast<Dst>(f.Get(i));
}

bool PathEscapes(const std::string& loc) {
  if (loc.empty() || loc[0] == '/') return true;
  size_t start = 0;
  while (start <= loc.size()) {
    size_t end = loc.find('/', start);
    if (end == std::string::npos) end = loc.size();
    if (loc.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::string TensorLabel(const onnx::TensorProto& tp) { return "tensor '" + tp.name() + "'"; }

Expected<std::shared_ptr<MappedFile>> ExternalDataResolver::Map(const std::string& location) {
  if (PathEscapes(location))
    return InvalidArgument("external data location '" + location +
                           "' must be a relative path inside the model directory");
  auto it = files_.find(location);
  if (it != files_.end()) return it->second;
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(JoinPath(base_dir_, location)));
  files_[location] = mf;
  return mf;
}

namespace {

// What the header fields of one TensorProto say: element type, shape and byte size.
struct ProtoHeader {
  std::string where;  // "<file>: tensor '<name>'" for errors
  DType dt = DType::kUndefined;
  Shape shape;
  int64_t numel = 1;
  size_t bytes = 0;       // in memory
  size_t file_bytes = 0;  // in raw_data / external data (4-bit types packed two per byte)
};

Expected<ProtoHeader> ReadHeader(const onnx::TensorProto& tp, const TensorContext& ctx) {
  ProtoHeader h;
  h.where = ctx.file + ": " + TensorLabel(tp);
  if (!IsKnownDType(tp.data_type()))
    return InvalidArgument(h.where + ": field data_type: unsupported element type " +
                           std::to_string(tp.data_type()));
  h.dt = static_cast<DType>(tp.data_type());
  for (int i = 0; i < tp.dims_size(); ++i) {
    const int64_t d = tp.dims(i);
    if (d < 0) return InvalidArgument(h.where + ": field dims: negative dim " + std::to_string(d));
    if (d != 0 && h.numel > kMaxTensorElements / d)
      return InvalidArgument(h.where + ": field dims: element count overflows");
    h.numel *= d;
    h.shape.push_back(d);
  }
  if (tp.has_segment()) return Unimplemented(h.where + ": field segment: segmented tensors");
  h.bytes = static_cast<size_t>(h.numel) * DTypeSize(h.dt);
  h.file_bytes = DTypeFileBytes(h.dt, h.numel);
  return h;
}

// A 4-bit tensor (uint4, int4, float4e2m1) from its packed bytes: unpacked one per byte, the
// in-memory form (layout/dtype.h).
Tensor UnpackedTensor(const onnx::TensorProto& tp, const ProtoHeader& h, const uint8_t* packed) {
  Tensor t = Tensor::Empty(h.dt, h.shape);
  t.set_name(tp.name());
  UnpackNibbles(h.dt, packed, h.numel, static_cast<uint8_t*>(t.raw_mutable_data()));
  return t;
}

// data_location EXTERNAL: a read-only view of the mapped file. Errors: external data not
// allowed in this context, string tensors, malformed keys, a location outside the model
// directory, or bytes outside the file.
Expected<Tensor> ExternalTensor(const onnx::TensorProto& tp, const TensorContext& ctx,
                                const ProtoHeader& h) {
  const std::string& where = h.where;
  if (ctx.external == nullptr)
    return InvalidArgument(where + ": field data_location: external data not allowed here");
  if (h.dt == DType::kString)
    return InvalidArgument(where + ": field data_location: string tensors cannot be external");
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : tp.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (...) {
      return InvalidArgument(where + ": field external_data: key '" + kv.key() +
                             "' has non-numeric value '" + kv.value() + "'");
    }
  }
  if (location.empty()) return InvalidArgument(where + ": field external_data: no location");
  auto mf = ctx.external->Map(location);
  if (!mf.ok()) return mf.take_status().WithContext(where + ": field external_data");
  const size_t fsize = (*mf)->size(), want = h.file_bytes;
  if (offset < 0 || static_cast<size_t>(offset) > fsize)
    return OutOfRange(where + ": field external_data: offset " + std::to_string(offset) +
                      " outside '" + location + "' (" + std::to_string(fsize) + " bytes)");
  if (length >= 0 && static_cast<size_t>(length) != want)
    return InvalidArgument(where + ": field external_data: length " + std::to_string(length) +
                           " != " + std::to_string(want) + " bytes for " + DTypeName(h.dt) +
                           ShapeToString(h.shape));
  if (static_cast<size_t>(offset) + want > fsize)
    return OutOfRange(where + ": field external_data: bytes [" + std::to_string(offset) + ", " +
                      std::to_string(offset + static_cast<int64_t>(want)) + ") outside '" +
                      location + "' (" + std::to_string(fsize) + " bytes)");
  if (IsSubByteDType(h.dt))
    return UnpackedTensor(tp, h, static_cast<const uint8_t*>((*mf)->data()) + offset);
  auto storage = Storage::FromMap(*mf, static_cast<size_t>(offset), want);
  Tensor t(h.dt, Layout::Contiguous(h.shape), storage);
  t.set_name(tp.name());
  return t;
}

Status RawDataSize(size_t have, const ProtoHeader& h) {
  if (have == h.file_bytes) return Status::Ok();
  return InvalidArgument(h.where + ": field raw_data: " + std::to_string(have) +
                         " bytes, expected " + std::to_string(h.file_bytes) + " for " +
                         DTypeName(h.dt) + ShapeToString(h.shape) +
                         (IsSubByteDType(h.dt) ? " (packed two per byte)" : ""));
}

// raw_data a skeleton parse left in the mapped file (format/model_skeleton.h): a view of the
// mapping when aligned to its element type (or the context aligns later), else a copy.
Expected<Tensor> ElidedTensor(const onnx::TensorProto& tp, const TensorContext& ctx,
                              const ProtoHeader& h, const ElidedPayloads::Span& span) {
  VT_RETURN_IF_ERROR(RawDataSize(static_cast<size_t>(span.length), h));
  const std::shared_ptr<MappedFile>& file = ctx.elided->file();
  const uint8_t* at = file->data() + span.offset;
  if (IsSubByteDType(h.dt)) return UnpackedTensor(tp, h, at);
  Tensor t;
  if (ctx.keep_misaligned || reinterpret_cast<uintptr_t>(at) % NaturalAlignment(h.dt) == 0) {
    t = Tensor(h.dt, Layout::Contiguous(h.shape),
               Storage::FromMap(file, static_cast<size_t>(span.offset), h.bytes));
  } else {
    t = Tensor::Empty(h.dt, h.shape);
    if (h.bytes) std::memcpy(t.raw_mutable_data(), at, h.bytes);
  }
  t.set_name(tp.name());
  return t;
}

// raw_data: borrowed from the message when the context owns it and the tensor is large,
// copied otherwise. Errors: string tensors, a byte count other than the shape's.
Expected<Tensor> RawDataTensor(const onnx::TensorProto& tp, const TensorContext& ctx,
                               const ProtoHeader& h) {
  if (h.dt == DType::kString)
    return InvalidArgument(h.where + ": field raw_data: string tensors must use string_data");
  if (ctx.elided != nullptr)
    if (const ElidedPayloads::Span* span = ctx.elided->Find(tp.raw_data()))
      return ElidedTensor(tp, ctx, h, *span);
  VT_RETURN_IF_ERROR(RawDataSize(tp.raw_data().size(), h));
  if (IsSubByteDType(h.dt))
    return UnpackedTensor(tp, h, reinterpret_cast<const uint8_t*>(tp.raw_data().data()));
  if (ctx.owner && h.bytes >= kBorrowMinBytes) {
    auto storage = Storage::Borrow(tp.raw_data().data(), h.bytes, ctx.owner, /*read_only=*/true);
    Tensor t(h.dt, Layout::Contiguous(h.shape), storage);
    t.set_name(tp.name());
    return t;
  }
  Tensor t = Tensor::Empty(h.dt, h.shape);
  t.set_name(tp.name());
  if (h.bytes) std::memcpy(t.raw_mutable_data(), tp.raw_data().data(), h.bytes);
  return t;
}

// int32_data of a type whose values are single bytes (float8 codes, packed 4-bit pairs): every
// value must be in [0, 255].
Status ByteCodes(const onnx::TensorProto& tp, const ProtoHeader& h, uint8_t* out) {
  for (int i = 0; i < tp.int32_data_size(); ++i) {
    const int32_t v = tp.int32_data(i);
    if (v < 0 || v > 255)
      return InvalidArgument(h.where + ": field int32_data: value " + std::to_string(v) +
                             " at index " + std::to_string(i) + " is not a " + DTypeName(h.dt) +
                             " code (0..255)");
    out[i] = static_cast<uint8_t>(v);
  }
  return Status::Ok();
}

// The typed repeated field of the element type (float_data, int32_data, ...). The tensor is
// allocated only once the field is known to hold numel values, so a tensor that declares huge
// dims but stores few values is an error, not a failed allocation.
Expected<Tensor> TypedFieldTensor(const onnx::TensorProto& tp, const ProtoHeader& h) {
  Tensor t;
  auto check = [&](int have, int per, const char* field) -> Status {
    if (static_cast<int64_t>(have) != h.numel * per)
      return InvalidArgument(h.where + ": field " + field + ": " + std::to_string(have) +
                             " values, expected " + std::to_string(h.numel * per) + " for " +
                             DTypeName(h.dt) + ShapeToString(h.shape));
    t = Tensor::Empty(h.dt, h.shape);
    t.set_name(tp.name());
    return Status::Ok();
  };
  switch (h.dt) {
    case DType::kFloat32:
      VT_RETURN_IF_ERROR(check(tp.float_data_size(), 1, "float_data"));
      CopyField(tp.float_data(), t.mutable_data<float>());
      break;
    case DType::kComplex64:
      VT_RETURN_IF_ERROR(check(tp.float_data_size(), 2, "float_data"));
      CopyField(tp.float_data(), t.mutable_data<float>());
      break;
    case DType::kFloat64:
      VT_RETURN_IF_ERROR(check(tp.double_data_size(), 1, "double_data"));
      CopyField(tp.double_data(), t.mutable_data<double>());
      break;
    case DType::kComplex128:
      VT_RETURN_IF_ERROR(check(tp.double_data_size(), 2, "double_data"));
      CopyField(tp.double_data(), t.mutable_data<double>());
      break;
    case DType::kInt64:
      VT_RETURN_IF_ERROR(check(tp.int64_data_size(), 1, "int64_data"));
      CopyField(tp.int64_data(), t.mutable_data<int64_t>());
      break;
    case DType::kUInt32:
      VT_RETURN_IF_ERROR(check(tp.uint64_data_size(), 1, "uint64_data"));
      CopyField(tp.uint64_data(), t.mutable_data<uint32_t>());
      break;
    case DType::kUInt64:
      VT_RETURN_IF_ERROR(check(tp.uint64_data_size(), 1, "uint64_data"));
      CopyField(tp.uint64_data(), t.mutable_data<uint64_t>());
      break;
    case DType::kInt32:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      CopyField(tp.int32_data(), t.mutable_data<int32_t>());
      break;
    case DType::kInt16:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      CopyField(tp.int32_data(), t.mutable_data<int16_t>());
      break;
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      CopyField(tp.int32_data(), t.mutable_data<uint16_t>());
      break;
    case DType::kInt8:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      CopyField(tp.int32_data(), t.mutable_data<int8_t>());
      break;
    case DType::kUInt8:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      CopyField(tp.int32_data(), t.mutable_data<uint8_t>());
      break;
    case DType::kBool: {
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      auto* o = t.mutable_data<uint8_t>();
      for (int i = 0; i < tp.int32_data_size(); ++i) o[i] = tp.int32_data(i) != 0;
      break;
    }
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), 1, "int32_data"));
      VT_RETURN_IF_ERROR(ByteCodes(tp, h, t.mutable_data<uint8_t>()));
      break;
    case DType::kUInt4:
    case DType::kInt4:
    case DType::kFloat4E2M1: {
      // Two elements per int32_data value (onnx.proto), each value one packed byte.
      const int64_t want = (h.numel + 1) / 2;
      if (tp.int32_data_size() != want)
        return InvalidArgument(h.where + ": field int32_data: " +
                               std::to_string(tp.int32_data_size()) + " values, expected " +
                               std::to_string(want) + " for " + DTypeName(h.dt) +
                               ShapeToString(h.shape) + " (two elements per value)");
      std::vector<uint8_t> packed(static_cast<size_t>(want));
      VT_RETURN_IF_ERROR(ByteCodes(tp, h, packed.data()));
      return UnpackedTensor(tp, h, packed.data());
    }
    case DType::kString: {
      VT_RETURN_IF_ERROR(check(tp.string_data_size(), 1, "string_data"));
      auto* o = t.mutable_data<std::string>();
      for (int i = 0; i < tp.string_data_size(); ++i) o[i] = tp.string_data(i);
      break;
    }
    default:
      return Unimplemented(h.where + ": field data_type: " + DTypeName(h.dt));
  }
  return t;
}

}  // namespace

Expected<Tensor> TensorFromProto(const onnx::TensorProto& tp, const TensorContext& ctx) {
  VT_ASSIGN_OR_RETURN(ProtoHeader h, ReadHeader(tp, ctx));
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) return ExternalTensor(tp, ctx, h);
  if (tp.has_raw_data()) return RawDataTensor(tp, ctx, h);
  return TypedFieldTensor(tp, h);
}

void TensorToProto(const Tensor& t, const std::string& name, onnx::TensorProto* tp) {
  tp->Clear();
  tp->set_name(name);
  tp->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) tp->add_dims(d);
  Tensor c = t.Contiguous();
  if (t.dtype() == DType::kString) {
    const auto* s = c.data<std::string>();
    for (int64_t i = 0; i < c.numel(); ++i) tp->add_string_data(s[i]);
  } else if (IsSubByteDType(t.dtype())) {
    std::string packed(DTypeFileBytes(t.dtype(), c.numel()), '\0');
    PackNibbles(static_cast<const uint8_t*>(c.raw_data()), c.numel(),
                reinterpret_cast<uint8_t*>(packed.data()));
    tp->set_raw_data(std::move(packed));
  } else {
    tp->set_raw_data(c.raw_data(), c.nbytes());
  }
}

Expected<std::unique_ptr<onnx::ModelProto>> ParseModelFile(const std::string& path) {
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(path));
  if (mf->size() == 0) return InvalidArgument(path + ": empty file, not an ONNX model");
  if (mf->size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": model protobuf larger than 2 GiB; use external data");
  auto mp = std::make_unique<onnx::ModelProto>();
  if (!mp->ParseFromArray(mf->data(), static_cast<int>(mf->size())))
    return InvalidArgument(path + ": not a valid ONNX ModelProto (protobuf parse failed: "
                           "truncated or corrupted file)");
  return mp;
}

}  // namespace vt
