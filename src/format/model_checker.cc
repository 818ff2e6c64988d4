#include "vtensor/format/model_checker.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <vector>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "format/onnx_defs.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/format/payload_digest.h"
#include "vtensor/format/struct_decoder.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/tensor/tensor.h"

namespace vt {

namespace {

using vtensor::StructTypeProto;

class Checker {
 public:
  Checker(const CompiledModel& m, const CheckOptions& o)
      : m_(m), o_(o), resolver_(DirName(m.path)) {}

  std::vector<Finding> Run() {
    if (o_.onnx_checker) CheckOnnx();
    CheckDevices();
    CheckModelTypes();
    for (int i = 0; i < m_.ext.compiled_tensors_size(); ++i) CheckEntry(i);
    CheckDuplicateKeys();
    return std::move(out_);
  }

 private:
  void Add(Severity s, const char* rule, int entry, const std::string& field, std::string msg) {
    std::string source =
        entry >= 0 ? m_.ext.compiled_tensors(entry).source_name() : std::string();
    out_.push_back({s, rule, entry, source, field, std::move(msg)});
  }
  static std::string Entry(int i) { return "compiled_tensors[" + std::to_string(i) + "]"; }

  bool NewerThanChecker(const OnnxDefs& defs) const {
    if (m_.model->ir_version() > onnx::Version::IR_VERSION) return true;
    const std::map<std::string, int> last = defs.last_opsets();
    for (const auto& os : m_.model->opset_import()) {
      std::string d = os.domain() == "ai.onnx" ? "" : os.domain();
      auto it = last.find(d);
      if (it != last.end() && os.version() > it->second) return true;
    }
    return false;
  }

  void CheckOnnx() {
    Expected<const OnnxDefs*> defs = LoadOnnxDefs("the ONNX model checker");
    if (!defs.ok()) {
      Add(Severity::kError, "onnx", -1, "graph", defs.status().message());
      return;
    }
    std::string msg;
    if ((*defs)->check_model(*m_.model, &msg)) return;
    if (NewerThanChecker(**defs)) {
      Add(Severity::kWarning, "onnx-newer", -1, "ir_version/opset_import",
          "model is newer than the libonnx checker (IR " +
              std::to_string(onnx::Version::IR_VERSION) + "); not rejected: " + msg);
    } else {
      Add(Severity::kError, "onnx", -1, "graph", msg);
    }
  }

  template <typename Entries>
  void CheckKeys(const Entries& props, const char* rule, int entry, const std::string& field) {
    std::set<std::string> seen;
    for (const auto& kv : props)
      if (!seen.insert(kv.key()).second)
        Add(Severity::kError, rule, entry, field, "duplicate metadata key '" + kv.key() + "'");
  }

  void CheckDevices() {
    std::map<std::string, int> seen;
    for (int i = 0; i < m_.ext.devices_size(); ++i) {
      const auto& d = m_.ext.devices(i);
      const std::string field = "devices[" + std::to_string(i) + "]";
      auto [it, fresh] = seen.emplace(d.SerializeAsString(), i);
      if (!fresh)
        Add(Severity::kError, "device-duplicate", -1, field,
            "device descriptor identical to devices[" + std::to_string(it->second) + "] (" +
                d.type() + ", " + d.architecture() + ", " + d.runtime() + " " +
                d.runtime_version() + ")");
      CheckKeys(d.metadata_props(), "device-metadata-key", -1, field + ".metadata_props");
    }
  }

  // Structural validation of one concrete or template type; returns false when malformed.
  bool CheckType(const StructTypeProto& t, int entry, const std::string& field) {
    auto bad = [&](const std::string& msg) {
      Add(Severity::kError, "type-invalid", entry, field, msg);
      return false;
    };
    if (t.name().empty()) return bad("struct type has no name");
    if (t.format_version() < 1) return bad("type '" + t.name() + "': format_version must be >= 1");
    if (t.fields_size() == 0) return bad("type '" + t.name() + "' has no fields");
    const bool symbolic = IsSymbolicType(t);
    if (!symbolic && t.byte_size() <= 0) return bad("type '" + t.name() + "': byte_size must be > 0");
    std::set<std::string> names;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (int i = 0; i < t.fields_size(); ++i) {
      const auto& f = t.fields(i);
      const std::string ff = "fields[" + std::to_string(i) + "]";
      if (f.name().empty() || !names.insert(f.name()).second)
        return bad(ff + ": field name empty or repeated ('" + f.name() + "')");
      if (!EncodingFromName(f.encoding()))
        return bad(ff + " '" + f.name() + "': unknown encoding '" + f.encoding() + "'");
      const int64_t a = f.alignment() == 0 ? 1 : f.alignment();
      if (a < 1 || (a & (a - 1)) != 0)
        return bad(ff + " '" + f.name() + "': alignment " + std::to_string(a) + " is not a power of two");
      if (f.offset() < 0 || f.offset() % a != 0)
        return bad(ff + " '" + f.name() + "': offset " + std::to_string(f.offset()) +
                   " is negative or not a multiple of its alignment " + std::to_string(a));
      if (symbolic) continue;
      auto bytes = FieldBytes(f);
      if (!bytes.ok()) return bad(ff + " '" + f.name() + "': " + bytes.status().message());
      if (f.offset() + *bytes > t.byte_size())
        return bad(ff + " '" + f.name() + "': bytes [" + std::to_string(f.offset()) + ", " +
                   std::to_string(f.offset() + *bytes) + ") outside byte_size " +
                   std::to_string(t.byte_size()));
      ranges.push_back({f.offset(), f.offset() + *bytes});
    }
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i)
      if (ranges[i].first < ranges[i - 1].second)
        return bad("type '" + t.name() + "': fields overlap at byte " + std::to_string(ranges[i].first));
    if (t.has_layout() && !symbolic) {
      auto l = LayoutFromProto(t.layout());
      if (!l.ok()) return bad("type '" + t.name() + "': layout: " + l.status().message());
      if (l->encoding() == Encoding::kUnspecified)
        return bad("type '" + t.name() + "': layout has no encoding");
      if (l->StorageBytes() > t.byte_size())
        return bad("type '" + t.name() + "': layout needs " + std::to_string(l->StorageBytes()) +
                   " bytes, byte_size is " + std::to_string(t.byte_size()));
    }
    if (t.has_decoder()) {
      onnx::FunctionProto fn;
      if (!fn.ParseFromString(t.decoder()) || fn.output_size() != 1 ||
          fn.input_size() != t.fields_size()) {
        Add(Severity::kError, "decoder-invalid", entry, field + ".decoder",
            "decoder of type '" + t.name() + "' must be a FunctionProto with one input per "
            "field (" + std::to_string(t.fields_size()) + ") and one output");
        return false;
      }
    }
    return true;
  }

  void CheckModelTypes() {
    type_ok_.assign(static_cast<size_t>(m_.ext.struct_types_size()), false);
    for (int i = 0; i < m_.ext.struct_types_size(); ++i)
      type_ok_[static_cast<size_t>(i)] =
          CheckType(m_.ext.struct_types(i), -1, "struct_types[" + std::to_string(i) + "]");
  }

  // The tensors named `name` in `g` and its subgraphs: initializers and the `value` of
  // Constant nodes (exporters such as paddle2onnx keep every weight in Constant nodes; the
  // runtime folds them into initializers of the same name).
  static void FindSources(const onnx::GraphProto& g, const std::string& name,
                          std::vector<const onnx::TensorProto*>* out) {
    for (const auto& init : g.initializer())
      if (init.name() == name) out->push_back(&init);
    for (const auto& n : g.node()) {
      if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") &&
          n.output_size() == 1 && n.output(0) == name)
        for (const auto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) out->push_back(&a.t());
      for (const auto& a : n.attribute()) {
        if (a.has_g()) FindSources(a.g(), name, out);
        for (const auto& sg : a.graphs()) FindSources(sg, name, out);
      }
    }
  }

  const onnx::TensorProto* Source(int i) {
    const auto& name = m_.ext.compiled_tensors(i).source_name();
    std::vector<const onnx::TensorProto*> found;
    FindSources(m_.model->graph(), name, &found);
    const size_t count = found.size();
    if (count == 0) {
      Add(Severity::kError, "source-missing", i, Entry(i) + ".source_name",
          "no initializer or Constant value named '" + name + "'");
      return nullptr;
    }
    if (count > 1) {
      Add(Severity::kError, "source-ambiguous", i, Entry(i) + ".source_name",
          std::to_string(count) + " initializers or Constant values are named '" + name + "'");
      return nullptr;
    }
    return found[0];
  }

  void CheckDigest(int i, const onnx::TensorProto* src) {
    const auto& e = m_.ext.compiled_tensors(i);
    if (e.source_digest().empty())
      Add(Severity::kError, "digest-empty", i, Entry(i) + ".source_digest", "source_digest is empty");
    if (e.digest_algorithm().empty()) {
      Add(Severity::kError, "digest-algorithm-empty", i, Entry(i) + ".digest_algorithm",
          "digest_algorithm is empty");
      return;
    }
    auto algo = DigestAlgorithmFromName(e.digest_algorithm());
    if (!algo) {
      Add(Severity::kWarning, "digest-algorithm-unknown", i, Entry(i) + ".digest_algorithm",
          "unknown digest algorithm '" + e.digest_algorithm() + "': always a cache miss");
      return;
    }
    if (e.source_digest().empty()) return;
    if (e.source_digest().size() != DigestLength(*algo)) {
      Add(Severity::kError, "digest-length", i, Entry(i) + ".source_digest",
          e.digest_algorithm() + " digest must be " + std::to_string(DigestLength(*algo)) +
              " bytes, found " + std::to_string(e.source_digest().size()));
      return;
    }
    if (!o_.digests || !src) return;
    auto d = TensorProtoDigest(*src, *algo, &resolver_, m_.path);
    if (!d.ok()) return;  // a bad initializer is the onnx checker's / importer's finding
    if (*d != e.source_digest())
      Add(Severity::kWarning, "digest-stale", i, Entry(i) + ".source_digest",
          "digest does not match initializer '" + e.source_name() + "': always a cache miss");
  }

  // The entry's concrete type, or null after reporting why there is none.
  const StructTypeProto* ResolveType(int i) {
    const auto& v = m_.ext.compiled_tensors(i).value();
    const std::string field = Entry(i) + ".value";
    if (v.has_struct_type()) {
      const auto& t = v.struct_type();
      if (IsSymbolicType(t)) {
        Add(Severity::kError, "type-inexact", i, field + ".struct_type",
            "inline type '" + t.name() + "' has a symbolic dim: an unconstrained static type "
            "cannot type a compiled value");
        return nullptr;
      }
      return CheckType(t, i, field + ".struct_type") ? &t : nullptr;
    }
    if (!v.has_type_index()) {
      Add(Severity::kError, "type-unresolved", i, field, "value has neither type_index nor struct_type");
      return nullptr;
    }
    const int64_t k = v.type_index();
    if (k < 0 || k >= m_.ext.struct_types_size()) {
      Add(Severity::kError, "type-unresolved", i, field + ".type_index",
          "type_index " + std::to_string(k) + " outside struct_types (" +
              std::to_string(m_.ext.struct_types_size()) + ")");
      return nullptr;
    }
    const auto& t = m_.ext.struct_types(static_cast<int>(k));
    if (IsSymbolicType(t)) {
      Add(Severity::kError, "type-inexact", i, field + ".type_index",
          "struct_types[" + std::to_string(k) + "] '" + t.name() +
              "' has a symbolic dim: an unconstrained static type cannot type a compiled value");
      return nullptr;
    }
    return type_ok_[static_cast<size_t>(k)] ? &t : nullptr;
  }

  // Payload bytes (mapped or inline); null after reporting a problem.
  const uint8_t* Payload(int i, const StructTypeProto* t, size_t* size) {
    const auto& v = m_.ext.compiled_tensors(i).value();
    const std::string field = Entry(i) + ".value";
    if (v.has_raw_data()) {
      *size = v.raw_data().size();
      if (t && static_cast<int64_t>(*size) != t->byte_size()) {
        Add(Severity::kError, "payload-size", i, field + ".raw_data",
            "raw_data has " + std::to_string(*size) + " bytes, type '" + t->name() +
                "' has byte_size " + std::to_string(t->byte_size()));
        return nullptr;
      }
      return reinterpret_cast<const uint8_t*>(v.raw_data().data());
    }
    if (!v.has_external()) {
      Add(Severity::kError, "payload-missing", i, field, "value has neither raw_data nor external");
      return nullptr;
    }
    const auto& x = v.external();
    if (t && x.length() != t->byte_size()) {
      Add(Severity::kError, "payload-size", i, field + ".external.length",
          "external length " + std::to_string(x.length()) + ", type '" + t->name() +
              "' has byte_size " + std::to_string(t->byte_size()));
      return nullptr;
    }
    if (x.offset() < 0 || x.offset() % 64 != 0 || x.length() < 0) {
      Add(Severity::kError, "payload-external", i, field + ".external.offset",
          "external offset " + std::to_string(x.offset()) + " must be a non-negative multiple of 64");
      return nullptr;
    }
    auto mf = resolver_.Map(x.location());
    if (!mf.ok()) {
      Add(Severity::kError, "payload-external", i, field + ".external.location",
          mf.status().message());
      return nullptr;
    }
    const size_t fsize = (*mf)->size();
    if (static_cast<uint64_t>(x.offset()) > fsize ||
        static_cast<uint64_t>(x.length()) > fsize - static_cast<uint64_t>(x.offset())) {
      Add(Severity::kError, "payload-external", i, field + ".external",
          "bytes [" + std::to_string(x.offset()) + ", " + std::to_string(x.offset() + x.length()) +
              ") outside '" + x.location() + "' (" + std::to_string(fsize) + " bytes)");
      return nullptr;
    }
    *size = static_cast<size_t>(x.length());
    return (*mf)->data() + x.offset();
  }

  // The payload decoded to the logical tensor, as floats in row-major order; nullopt after
  // reporting why (decode-skipped, decode-layout is added on success through the layout).
  std::optional<std::vector<float>> Decoded(int i, const StructTypeProto& t, const Shape& want,
                                            const uint8_t* bytes, size_t size) {
    const std::string field = Entry(i) + ".value";
    auto skip = [&](const std::string& why) {
      Add(Severity::kInfo, "decode-skipped", i, field, why);
      return std::nullopt;
    };
    if (t.has_decoder() && o_.run_decoder) {
      auto inputs = DecoderInputs(t, bytes, size);
      if (!inputs.ok()) return skip(inputs.status().message());
      auto got = o_.run_decoder(t.decoder(), *inputs, "type '" + t.name() + "' decoder");
      if (!got.ok()) {
        if (got.status().code() == StatusCode::kUnimplemented)
          return skip("decoder cannot run here: " + got.status().message());
        Add(Severity::kError, "decode-mismatch", i, field,
            "decoder fails on the payload: " + got.status().message());
        return std::nullopt;
      }
      if (got->shape() != want || !(IsFloatDType(got->dtype()) || IsIntegerDType(got->dtype()))) {
        Add(Severity::kError, "decode-mismatch", i, field,
            "decoder of type '" + t.name() + "' yields " + DTypeName(got->dtype()) +
                ShapeToString(got->shape()) + ", initializer is " + ShapeToString(want));
        return std::nullopt;
      }
      std::vector<float> v(static_cast<size_t>(got->numel()));
      for (int64_t k = 0; k < got->numel(); ++k) v[static_cast<size_t>(k)] = static_cast<float>(got->GetDouble(k));
      return v;
    }
    if (!t.has_layout())
      return skip("type '" + t.name() + "' has neither a decoder" +
                  std::string(t.has_decoder() ? " runner" : "") + " nor a layout to decode through");
    auto l = LayoutFromProto(t.layout());
    if (!l.ok()) return skip(l.status().message());
    if (l->numel() > PhysicalElements(*l))
      return skip("layout maps several elements to one slot (broadcast); nothing to compare");
    if (t.fields_size() != 1 || t.fields(0).offset() != 0)
      return skip("type '" + t.name() + "' has several fields; only its decoder could interpret it");
    auto got = UnpackFloats(bytes, size, *l);
    if (!got.ok()) return skip(got.status().message());
    Add(Severity::kInfo, "decode-layout", i, field,
        t.has_decoder() ? "no decoder runner given: decoded through the layout with vtensor's unpacker"
                        : "type '" + t.name() + "' has no decoder: decoded through its layout with "
                          "vtensor's unpacker");
    return std::move(*got);
  }

  void Decode(int i, const onnx::TensorProto& src, const StructTypeProto& t, const uint8_t* bytes,
              size_t size) {
    const std::string field = Entry(i) + ".value";
    auto skip = [&](const std::string& why) {
      Add(Severity::kInfo, "decode-skipped", i, field, why);
    };
    // Validate the initializer's data against its dims without allocating (a corrupt model may
    // declare dims far larger than its bytes) before materializing it.
    if (Status s = CanonicalTensorStream(src, &resolver_, m_.path, [](const void*, size_t) {});
        !s.ok())
      return skip(s.message());
    TensorContext ctx;
    ctx.file = m_.path;
    ctx.external = &resolver_;
    auto tensor = TensorFromProto(src, ctx);
    if (!tensor.ok()) return skip(tensor.status().message());
    // 8- and 4-bit integer sources (MatMulNBits codes and zero points) and the float8 /
    // float4e2m1 types are compared as the exact floats they hold.
    const DType sdt = tensor->dtype();
    if (!IsFloatDType(sdt) && sdt != DType::kUInt8 && sdt != DType::kInt8 &&
        !IsFloat8DType(sdt) && !IsSubByteDType(sdt))
      return skip(std::string("initializer is ") + DTypeName(sdt) +
                  " (only float and 8- or 4-bit integer sources are decoded)");
    auto got = Decoded(i, t, tensor->shape(), bytes, size);
    if (!got) return;
    const int64_t n = tensor->numel();
    float amax = 0;
    for (int64_t k = 0; k < n; ++k) amax = std::max(amax, std::fabs(static_cast<float>(tensor->GetDouble(k))));
    const float rel = DecodeTolerance(t, tensor->dtype());
    const float bound = rel * amax * 1.01f;
    for (int64_t k = 0; k < n; ++k) {
      const float want = static_cast<float>(tensor->GetDouble(k));
      const float have = (*got)[static_cast<size_t>(k)];
      const bool ok = (std::isnan(want) && std::isnan(have)) ||
                      (rel == 0 ? std::bit_cast<uint32_t>(want) == std::bit_cast<uint32_t>(have) : std::fabs(want - have) <= bound);
      if (!ok) {
        Add(Severity::kError, "decode-mismatch", i, field,
            "element " + std::to_string(k) + ": decoded " + std::to_string(have) + ", initializer " +
                std::to_string(want) +
                (rel == 0 ? " (lossless for the source type: must be bit-exact)"
                          : " (bound " + std::to_string(bound) + " = " + std::to_string(rel) +
                                " x max|initializer|)") +
                (t.has_decoder() && o_.run_decoder ? "; decoded by the type's decoder" : ""));
        return;
      }
    }
  }

  // The entry's own payload digest (metadata_props vt.payload_digest, format/payload_digest.h),
  // when it has one: damage to the payload bytes (a flipped byte, another file swapped in).
  void CheckPayloadDigestProp(int i, const uint8_t* bytes, size_t size) {
    const auto& props = m_.ext.compiled_tensors(i).metadata_props();
    for (int k = 0; k < props.size(); ++k) {
      if (props[k].key() != kPayloadDigestKey) continue;
      if (Status st = CheckPayloadDigest(props[k].value(), bytes, size); !st.ok())
        Add(Severity::kError, "payload-digest", i,
            Entry(i) + ".metadata_props[" + std::to_string(k) + "]", st.message());
      return;
    }
  }

  void CheckEntry(int i) {
    const auto& e = m_.ext.compiled_tensors(i);
    CheckKeys(e.metadata_props(), "metadata-key", i, Entry(i) + ".metadata_props");
    if (e.device() < 0 || e.device() >= m_.ext.devices_size())
      Add(Severity::kError, "device-index", i, Entry(i) + ".device",
          "device " + std::to_string(e.device()) + " outside devices (" +
              std::to_string(m_.ext.devices_size()) + ")");
    const onnx::TensorProto* src = Source(i);
    CheckDigest(i, src);
    const StructTypeProto* t = ResolveType(i);
    if (t && src && t->has_layout()) {
      bool same = t->layout().shape_size() == src->dims_size();
      for (int k = 0; same && k < src->dims_size(); ++k)
        same = t->layout().shape(k).dim_value() == src->dims(k);
      if (!same) {
        Add(Severity::kError, "layout-shape", i, Entry(i) + ".value",
            "type '" + t->name() + "' lays out a different shape than initializer '" +
                e.source_name() + "'");
        t = nullptr;
      }
    }
    size_t size = 0;
    const uint8_t* bytes = Payload(i, t, &size);
    if (bytes) CheckPayloadDigestProp(i, bytes, size);
    if (o_.decode && t && src && bytes) Decode(i, *src, *t, bytes, size);
  }

  void CheckDuplicateKeys() {
    std::map<std::tuple<std::string, int, std::string>, int> seen;
    for (int i = 0; i < m_.ext.compiled_tensors_size(); ++i) {
      const auto& e = m_.ext.compiled_tensors(i);
      const auto& v = e.value();
      std::string type;
      if (v.has_struct_type()) type = v.struct_type().name();
      else if (v.has_type_index() && v.type_index() >= 0 && v.type_index() < m_.ext.struct_types_size())
        type = m_.ext.struct_types(static_cast<int>(v.type_index())).name();
      else continue;
      auto [it, fresh] = seen.emplace(std::make_tuple(e.source_name(), e.device(), type), i);
      if (!fresh)
        Add(Severity::kError, "duplicate-key", i, Entry(i),
            "same (source_name, device, physical type) = ('" + e.source_name() + "', " +
                std::to_string(e.device()) + ", '" + type + "') as " + Entry(it->second));
    }
  }

  const CompiledModel& m_;
  const CheckOptions& o_;
  ExternalDataResolver resolver_;
  std::vector<bool> type_ok_;
  std::vector<Finding> out_;
};

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    default: return "info";
  }
}

float DecodeErrorBound(Encoding e) { return GetEncodingTraits(e).decode_error; }

float DecodeTolerance(const StructTypeProto& t, DType source) {
  if (t.has_layout() && t.layout().has_encoding()) {
    auto e = EncodingFromName(t.layout().encoding());
    if (!e) return 0;
    return EncodingFromDType(source) == *e ? 0 : DecodeErrorBound(*e);
  }
  float bound = 0;
  for (const auto& f : t.fields()) {
    auto e = EncodingFromName(f.encoding());
    if (!e) continue;
    const float b = *e == EncodingFromDType(source) ? 0 : GetEncodingTraits(*e).plane_error;
    bound = std::max(bound, b);
  }
  return bound;
}

std::vector<Finding> CheckCompiledModel(const CompiledModel& m, const CheckOptions& opts) {
  return Checker(m, opts).Run();
}

}  // namespace vt
