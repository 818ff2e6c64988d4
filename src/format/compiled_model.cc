#include "vtensor/format/compiled_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

#include "vtensor/base/file.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/format/struct_decoder.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_text.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

namespace {

using Ext = vtensor::ModelExtension;

bool IsExtensionField(int number) {
  return number == Ext::kStructTypesFieldNumber || number == Ext::kDevicesFieldNumber ||
         number == Ext::kCompiledTensorsFieldNumber || number == Ext::kSessionPlansFieldNumber;
}

bool SameMessage(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  return a.SerializeAsString() == b.SerializeAsString();
}

}  // namespace

CompiledModel::CompiledModel() : model(std::make_unique<onnx::ModelProto>()) {}
CompiledModel::~CompiledModel() = default;
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;

Expected<CompiledModel> ParseCompiledModel(const void* data, size_t size,
                                           const std::string& path) {
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": model protobuf larger than 2 GiB; use external data");
  CompiledModel m;
  m.path = path;
  if (!m.model->ParseFromArray(data, static_cast<int>(size)))
    return InvalidArgument(path + ": not a valid ONNX ModelProto (protobuf parse failed: "
                                  "truncated or corrupted file)");
  // Fields 27-29 are unknown to onnx::ModelProto: move them into the extension message.
  auto* unknown = m.model->GetReflection()->MutableUnknownFields(m.model.get());
  google::protobuf::UnknownFieldSet ours;
  for (int i = 0; i < unknown->field_count(); ++i)
    if (IsExtensionField(unknown->field(i).number())) ours.AddField(unknown->field(i));
  if (!ours.empty()) {
    for (int n : {Ext::kStructTypesFieldNumber, Ext::kDevicesFieldNumber,
                  Ext::kCompiledTensorsFieldNumber, Ext::kSessionPlansFieldNumber})
      unknown->DeleteByNumber(n);
    std::string bytes;
    if (!ours.SerializeToString(&bytes) || !m.ext.ParseFromString(bytes))
      return InvalidArgument(path + ": field 27/28/29/30 (struct_types/devices/compiled_tensors/"
                                    "session_plans) is malformed");
    // Protobuf keeps a field of the wrong wire type as unknown instead of failing.
    const auto& left = Ext::GetReflection()->GetUnknownFields(m.ext);
    for (int i = 0; i < left.field_count(); ++i)
      if (IsExtensionField(left.field(i).number()))
        return InvalidArgument(path + ": field " + std::to_string(left.field(i).number()) +
                               " (struct_types/devices/compiled_tensors/session_plans) is malformed: wrong "
                               "wire type");
  }
  return m;
}

Expected<std::shared_ptr<vtensor::ModelExtension>> ParseModelExtension(const void* data,
                                                                       size_t size,
                                                                       const std::string& path) {
  using google::protobuf::internal::WireFormatLite;
  auto ext = std::make_shared<vtensor::ModelExtension>();
  if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(path + ": model protobuf larger than 2 GiB; use external data");
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data),
                                            static_cast<int>(size));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  std::string pieces;  // the extension fields' bytes, re-parsed as one ModelExtension
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    const int number = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
    if (IsExtensionField(number) &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t len = 0;
      std::string body;
      if (!in.ReadVarint32(&len) || !in.ReadString(&body, static_cast<int>(len)))
        return InvalidArgument(path + ": field " + std::to_string(number) + " is truncated");
      google::protobuf::io::StringOutputStream sos(&pieces);
      google::protobuf::io::CodedOutputStream out(&sos);
      out.WriteTag(tag);
      out.WriteVarint32(len);
      out.WriteString(body);
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag))
      return InvalidArgument(path + ": not a valid ONNX ModelProto (protobuf parse failed: "
                                  "truncated or corrupted file)");
  }
  if (!pieces.empty() && !ext->ParseFromString(pieces))
    return InvalidArgument(path + ": field 27/28/29/30 (struct_types/devices/compiled_tensors/"
                                  "session_plans) is malformed");
  return ext;
}

Expected<std::shared_ptr<vtensor::ModelExtension>> ReadModelExtension(const std::string& path) {
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(path));
  return ParseModelExtension(mf->data(), mf->size(), path);
}

Expected<CompiledModel> ReadCompiledModel(const std::string& path) {
  VT_ASSIGN_OR_RETURN(auto mf, MappedFile::Open(path));
  if (mf->size() == 0) return InvalidArgument(path + ": empty file, not an ONNX model");
  return ParseCompiledModel(mf->data(), mf->size(), path);
}

Expected<std::string> SerializeCompiledModel(const CompiledModel& m) {
  std::string out;
  if (!m.model->SerializeToString(&out))
    return InvalidArgument(m.path + ": model cannot be serialized (over 2 GiB?)");
  std::string ext;
  if (!m.ext.SerializeToString(&ext))
    return InvalidArgument(m.path + ": compiled tensors cannot be serialized");
  if (out.size() + ext.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return InvalidArgument(m.path + ": model with compiled tensors over 2 GiB; use external payloads");
  out += ext;
  return out;
}

Status WriteCompiledModel(const CompiledModel& m, const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string bytes, SerializeCompiledModel(m));
  return WriteFileAtomic(path, bytes);
}

void LayoutToProto(const Layout& l, vtensor::LayoutProto* p) {
  p->Clear();
  p->set_version(kLayoutTextVersion);
  for (int64_t d : l.shape()) p->add_shape()->set_dim_value(d);
  if (l.encoding() != Encoding::kUnspecified)
    p->set_encoding(GetEncodingTraits(l.encoding()).name);
  if (l.is_strided()) {
    if (l.strides() != RowMajorStrides(l.shape()))
      for (int64_t s : l.strides()) p->add_strides(s);
  } else {
    for (const auto& lv : l.levels()) {
      auto* q = p->add_levels();
      q->set_dim(lv.dim);
      q->set_tile(lv.tile);
      q->set_stride(lv.stride);
    }
    for (int64_t d : l.padded_shape()) p->add_padded(d);
  }
  if (l.offset() != 0) p->set_offset(l.offset());
}

Expected<Layout> LayoutFromProto(const vtensor::LayoutProto& p) {
  if (p.version() != kLayoutTextVersion)
    return InvalidArgument("layout: version " + std::to_string(p.version()) + ", expected " +
                           std::to_string(kLayoutTextVersion));
  Shape shape;
  for (int i = 0; i < p.shape_size(); ++i) {
    if (!p.shape(i).has_dim_value())
      return InvalidArgument("layout: shape[" + std::to_string(i) + "] is symbolic ('" +
                             p.shape(i).dim_param() + "')");
    shape.push_back(p.shape(i).dim_value());
  }
  Encoding enc = Encoding::kUnspecified;
  if (p.has_encoding()) {
    auto e = EncodingFromName(p.encoding());
    if (!e) return InvalidArgument("layout: unknown encoding '" + p.encoding() + "'");
    enc = *e;
  }
  if (p.levels_size() == 0 && p.padded_size() == 0) {
    std::vector<int64_t> strides(p.strides().begin(), p.strides().end());
    __int128 total = 1;
    for (int64_t d : shape) {
      if (d < 0) return InvalidArgument("layout: negative dim");
      total *= std::max<int64_t>(d, 1);
      if (total > (__int128{1} << 62)) return InvalidArgument("layout: more than 2^62 elements");
    }
    if (strides.empty()) strides = RowMajorStrides(shape);
    if (strides.size() != shape.size())
      return InvalidArgument("layout: " + std::to_string(strides.size()) + " strides for rank " +
                             std::to_string(shape.size()));
    // The factory's address bounds apply; the strides are kept literally.
    LayoutSpec check{shape, Encoding::kUnspecified, {}, {}, p.offset()};
    for (size_t d = 0; d < shape.size(); ++d)
      check.levels.push_back({static_cast<int32_t>(d), 1, strides[d]});
    if (auto c = Layout::Make(check); !c.ok()) return c.take_status();
    return Layout::Strided(shape, strides, p.offset(), enc);
  }
  if (p.strides_size() != 0) return InvalidArgument("layout: both strides and levels");
  LayoutSpec s;
  s.shape = shape;
  s.encoding = enc;
  s.offset = p.offset();
  s.padded.assign(p.padded().begin(), p.padded().end());
  for (const auto& q : p.levels()) s.levels.push_back({q.dim(), q.tile(), q.stride()});
  return Layout::Make(s);
}

Expected<int64_t> FieldBytes(const vtensor::StructFieldProto& f) {
  auto e = EncodingFromName(f.encoding());
  if (!e) return InvalidArgument("unknown encoding '" + f.encoding() + "'");
  int64_t n = 1;
  for (const auto& d : f.shape()) {
    if (!d.has_dim_value()) return InvalidArgument("symbolic dim '" + d.dim_param() + "'");
    if (d.dim_value() < 0) return InvalidArgument("negative dim");
    if (d.dim_value() != 0 && n > (int64_t{1} << 50) / d.dim_value())
      return InvalidArgument("size overflows");
    n *= d.dim_value();
  }
  return EncodedBytes(*e, n);
}

bool IsSymbolicType(const vtensor::StructTypeProto& t) {
  for (const auto& d : t.layout().shape())
    if (!d.has_dim_value()) return true;
  for (const auto& f : t.fields())
    for (const auto& d : f.shape())
      if (!d.has_dim_value()) return true;
  return false;
}

vtensor::StructTypeProto StructTypeForLayout(const Layout& layout, const std::string& name,
                                             int64_t format_version) {
  vtensor::StructTypeProto t;
  t.set_name(name);
  t.set_format_version(format_version);
  LayoutToProto(layout, t.mutable_layout());
  auto* f = t.add_fields();
  f->set_name("data");
  f->set_encoding(GetEncodingTraits(layout.encoding()).name);
  f->add_shape()->set_dim_value(PhysicalElements(layout));
  f->set_offset(0);
  f->set_alignment(64);
  t.set_byte_size(layout.StorageBytes());
  // Inspectable formats carry a portable decoder; block formats have no standard ONNX form.
  if (auto d = BuildLayoutDecoder(layout, "decode_" + name); d.ok()) t.set_decoder(*d);
  return t;
}

Status AddCompiledTensor(CompiledModel& m, const std::string& source_name, const Layout& layout,
                         const vtensor::DeviceProto& device, const std::string& type_name,
                         const CompileOptions& opts) {
  const onnx::TensorProto* src = nullptr;
  for (const auto& init : m.model->graph().initializer())
    if (init.name() == source_name) src = &init;
  if (!src) return NotFound(m.path + ": no initializer '" + source_name + "'");
  ExternalDataResolver resolver(DirName(m.path));
  TensorContext ctx;
  ctx.file = m.path;
  ctx.external = &resolver;
  VT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(*src, ctx));
  if (t.shape() != layout.shape())
    return InvalidArgument(m.path + ": initializer '" + source_name + "' has shape " +
                           ShapeToString(t.shape()) + ", layout has " +
                           ShapeToString(layout.shape()));
  if (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat16 && t.dtype() != DType::kBFloat16)
    return InvalidArgument(m.path + ": initializer '" + source_name + "': element type " +
                           DTypeName(t.dtype()) + " cannot be compiled (float types only)");
  std::vector<float> values(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) values[static_cast<size_t>(i)] = static_cast<float>(t.GetDouble(i));
  VT_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, PackFloats(values.data(), layout));
  VT_ASSIGN_OR_RETURN(std::string digest, TensorProtoDigest(*src, opts.digest, &resolver, m.path));

  int device_index = -1;
  for (int i = 0; i < m.ext.devices_size(); ++i)
    if (SameMessage(m.ext.devices(i), device)) device_index = i;
  if (device_index < 0) {
    *m.ext.add_devices() = device;
    device_index = m.ext.devices_size() - 1;
  }
  auto type = StructTypeForLayout(layout, type_name, 1);
  auto* entry = m.ext.add_compiled_tensors();
  entry->set_source_name(source_name);
  entry->set_device(device_index);
  entry->set_source_digest(digest);
  entry->set_digest_algorithm(DigestAlgorithmName(opts.digest));
  auto* pd = entry->add_metadata_props();
  pd->set_key(kPayloadDigestKey);
  pd->set_value(PayloadDigest(payload.data(), payload.size()));
  auto* value = entry->mutable_value();
  if (opts.model_level_type) {
    int index = -1;
    for (int i = 0; i < m.ext.struct_types_size(); ++i)
      if (SameMessage(m.ext.struct_types(i), type)) index = i;
    if (index < 0) {
      *m.ext.add_struct_types() = type;
      index = m.ext.struct_types_size() - 1;
    }
    value->set_type_index(index);
  } else {
    *value->mutable_struct_type() = type;
  }
  if (opts.external_location.empty()) {
    value->set_raw_data(payload.data(), payload.size());
    return Status::Ok();
  }
  // Append to the external file at a 64-byte aligned offset (mmap-friendly), atomically.
  const std::string file = JoinPath(DirName(m.path), opts.external_location);
  std::string bytes;
  if (auto old = ReadFileToString(file); old.ok()) bytes = std::move(*old);
  bytes.resize((bytes.size() + 63) / 64 * 64, '\0');
  const size_t offset = bytes.size();
  bytes.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  VT_RETURN_IF_ERROR(WriteFileAtomic(file, bytes));
  auto* ext = value->mutable_external();
  ext->set_location(opts.external_location);
  ext->set_offset(static_cast<int64_t>(offset));
  ext->set_length(static_cast<int64_t>(payload.size()));
  return Status::Ok();
}

}  // namespace vt
