#include "vtensor/format/tensor_digest.h"

#include <algorithm>

#include <dlfcn.h>
#include <onnx/onnx_pb.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vtensor/base/blake3.h"
#include "vtensor/format/tensor_proto.h"
#include "vtensor/tensor/tensor.h"
#include "vtensor/layout/nibble_pack.h"

namespace vt {

namespace {

constexpr int64_t kMaxElements = int64_t{1} << 40;
constexpr size_t kBufBytes = 1 << 16;

// How one ONNX element type appears in the canonical stream and in typed fields.
enum class Field { kFloat, kDouble, kInt32, kInt64, kUint64, kString };
struct TypeInfo {
  int bytes;      // bytes per element; 0 for strings; for packed 4-bit types see `nibbles`
  bool nibbles;   // two elements per byte (int4, uint4, float4e2m1)
  int per_elem;   // typed-field values per element (2 for complex)
  Field field;
};

std::optional<TypeInfo> InfoOf(int32_t dt) {
  switch (dt) {
    case 1: return TypeInfo{4, false, 1, Field::kFloat};     // FLOAT
    case 2: return TypeInfo{1, false, 1, Field::kInt32};     // UINT8
    case 3: return TypeInfo{1, false, 1, Field::kInt32};     // INT8
    case 4: return TypeInfo{2, false, 1, Field::kInt32};     // UINT16
    case 5: return TypeInfo{2, false, 1, Field::kInt32};     // INT16
    case 6: return TypeInfo{4, false, 1, Field::kInt32};     // INT32
    case 7: return TypeInfo{8, false, 1, Field::kInt64};     // INT64
    case 8: return TypeInfo{0, false, 1, Field::kString};    // STRING
    case 9: return TypeInfo{1, false, 1, Field::kInt32};     // BOOL
    case 10: return TypeInfo{2, false, 1, Field::kInt32};    // FLOAT16
    case 11: return TypeInfo{8, false, 1, Field::kDouble};   // DOUBLE
    case 12: return TypeInfo{4, false, 1, Field::kUint64};   // UINT32
    case 13: return TypeInfo{8, false, 1, Field::kUint64};   // UINT64
    case 14: return TypeInfo{8, false, 2, Field::kFloat};    // COMPLEX64
    case 15: return TypeInfo{16, false, 2, Field::kDouble};  // COMPLEX128
    case 16: return TypeInfo{2, false, 1, Field::kInt32};    // BFLOAT16
    case 17: case 18: case 19: case 20:                      // FLOAT8 variants
      return TypeInfo{1, false, 1, Field::kInt32};
    case 21: case 22: case 23:                               // UINT4, INT4, FLOAT4E2M1
      return TypeInfo{1, true, 1, Field::kInt32};
    default: return std::nullopt;
  }
}

void PutU64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Buffers small writes so the digest sees large pieces.
class Writer {
 public:
  explicit Writer(ByteSink sink) : sink_(std::move(sink)) { buf_.reserve(kBufBytes); }
  ~Writer() { Flush(); }
  void Put(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    if (buf_.size() >= kBufBytes - 16) Flush();
  }
  void Bytes(const void* p, size_t n) {
    if (n >= kBufBytes) {
      Flush();
      sink_(p, n);
      return;
    }
    const auto* c = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), c, c + n);
    if (buf_.size() >= kBufBytes) Flush();
  }
  void Flush() {
    if (!buf_.empty()) sink_(buf_.data(), buf_.size());
    buf_.clear();
  }

 private:
  ByteSink sink_;
  std::vector<uint8_t> buf_;
};

// Element bytes as stored in raw_data / external data, normalized: bool to 0/1 and the unused
// high nibble of an odd-length 4-bit tensor to 0.
void PutRaw(Writer& w, const uint8_t* p, size_t n, int32_t dt, int64_t numel) {
  if (dt == 9) {
    for (size_t i = 0; i < n; ++i) w.Put(p[i] != 0, 1);
    return;
  }
  const auto info = InfoOf(dt);
  if (info && info->nibbles && (numel & 1) && n > 0) {
    w.Bytes(p, n - 1);
    w.Put(p[n - 1] & 0x0F, 1);
    return;
  }
  w.Bytes(p, n);
}

}  // namespace

const char* DigestAlgorithmName(DigestAlgorithm a) {
  return a == DigestAlgorithm::kBlake3 ? "blake3" : "sha256";
}

std::optional<DigestAlgorithm> DigestAlgorithmFromName(std::string_view name) {
  if (name == "blake3") return DigestAlgorithm::kBlake3;
  if (name == "sha256") return DigestAlgorithm::kSha256;
  return std::nullopt;
}

size_t DigestLength(DigestAlgorithm) { return 32; }

namespace {

// OpenSSL's SHA-256, loaded on first use rather than linked: mapping and relocating libcrypto
// costs every process about 6 ms and 130 page faults at start (docs/benchmarks.md, "Process
// start"), and only sha256 digests need it (the default algorithms are xxh3-128 and blake3).
struct Sha256Api {
  decltype(&EVP_MD_CTX_new) ctx_new = nullptr;
  decltype(&EVP_MD_CTX_free) ctx_free = nullptr;
  decltype(&EVP_sha256) sha256 = nullptr;
  decltype(&EVP_DigestInit_ex) init = nullptr;
  decltype(&EVP_DigestUpdate) update = nullptr;
  decltype(&EVP_DigestFinal_ex) finish = nullptr;
  std::string error;  // why the library is unusable; empty when loaded
};

#define VT_STR2(x) #x
#define VT_STR(x) VT_STR2(x)
constexpr const char kLibcrypto[] = "libcrypto.so." VT_STR(OPENSSL_VERSION_MAJOR);

template <typename Fn>
bool LoadSymbol(void* lib, const char* name, Fn* fn, std::string* error) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) *error = std::string(kLibcrypto) + " has no " + name;
  *fn = reinterpret_cast<Fn>(sym);
  return sym != nullptr;
}

const Sha256Api& Sha256() {
  static const Sha256Api api = [] {
    Sha256Api a;
    void* lib = dlopen(kLibcrypto, RTLD_NOW | RTLD_LOCAL);  // never closed: used until exit
    if (lib == nullptr) {
      const char* why = dlerror();
      a.error = std::string("sha256 digests need OpenSSL's ") + kLibcrypto +
                ", which could not be loaded: " + (why ? why : "unknown error");
      return a;
    }
    (void)(LoadSymbol(lib, "EVP_MD_CTX_new", &a.ctx_new, &a.error) &&
           LoadSymbol(lib, "EVP_MD_CTX_free", &a.ctx_free, &a.error) &&
           LoadSymbol(lib, "EVP_sha256", &a.sha256, &a.error) &&
           LoadSymbol(lib, "EVP_DigestInit_ex", &a.init, &a.error) &&
           LoadSymbol(lib, "EVP_DigestUpdate", &a.update, &a.error) &&
           LoadSymbol(lib, "EVP_DigestFinal_ex", &a.finish, &a.error));
    return a;
  }();
  return api;
}

}  // namespace

struct Digester::Impl {
  DigestAlgorithm algo;
  Blake3 blake3;
  EVP_MD_CTX* sha = nullptr;
  std::string error;  // set when the algorithm's library is unusable
};

Digester::Digester(DigestAlgorithm a) : impl_(new Impl{a, Blake3(), nullptr, {}}) {
  if (a != DigestAlgorithm::kSha256) return;
  const Sha256Api& api = Sha256();
  if (!api.error.empty()) {
    impl_->error = api.error;
    return;
  }
  impl_->sha = api.ctx_new();
  if (impl_->sha == nullptr || api.init(impl_->sha, api.sha256(), nullptr) != 1)
    impl_->error = "sha256: OpenSSL could not start a digest";
}

Digester::~Digester() {
  if (impl_->sha) Sha256().ctx_free(impl_->sha);
}

void Digester::Update(const void* data, size_t n) {
  if (impl_->algo == DigestAlgorithm::kSha256) {
    if (impl_->error.empty() && Sha256().update(impl_->sha, data, n) != 1)
      impl_->error = "sha256: OpenSSL failed to hash the data";
  } else {
    impl_->blake3.Update(data, n);
  }
}

Expected<std::string> Digester::Finish() {
  if (impl_->algo == DigestAlgorithm::kSha256) {
    if (!impl_->error.empty()) return FailedPrecondition(impl_->error);
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (Sha256().finish(impl_->sha, out, &len) != 1)
      return FailedPrecondition("sha256: OpenSSL failed to finish the digest");
    return std::string(reinterpret_cast<char*>(out), len);
  }
  auto d = impl_->blake3.Finalize();
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

namespace {

// The element bytes of one tensor as the stream carries them.
struct StreamedTensor {
  std::string where;  // "<file>: tensor '<name>'" for errors
  int32_t dt = 0;
  TypeInfo info{};
  int64_t numel = 1;
  size_t raw_bytes = 0;  // bytes of raw_data / external data for the dims
};

// Element type, segment and dims of `tp`. Errors: an element type without a canonical form,
// segmented tensors, negative dims or an element count over 2^40.
Expected<StreamedTensor> ReadStreamHeader(const onnx::TensorProto& tp, const std::string& file) {
  StreamedTensor t;
  t.where = file + ": tensor '" + tp.name() + "'";
  t.dt = tp.data_type();
  const auto info = InfoOf(t.dt);
  if (!info)
    return InvalidArgument(t.where + ": field data_type: cannot digest element type " +
                           std::to_string(t.dt));
  t.info = *info;
  if (tp.has_segment()) return Unimplemented(t.where + ": field segment: segmented tensors");
  for (int64_t d : tp.dims()) {
    if (d < 0) return InvalidArgument(t.where + ": field dims: negative dim " + std::to_string(d));
    if (d != 0 && t.numel > kMaxElements / d)
      return InvalidArgument(t.where + ": field dims: element count overflows");
    t.numel *= d;
  }
  t.raw_bytes = t.info.nibbles ? static_cast<size_t>((t.numel + 1) / 2)
                               : static_cast<size_t>(t.numel) * t.info.bytes;
  return t;
}

// External data: the mapped bytes. Errors: external data not allowed here, string tensors,
// malformed keys, a length other than the dims' or bytes outside the file.
Status StreamExternal(const onnx::TensorProto& tp, const StreamedTensor& t,
                      ExternalDataResolver* external, Writer& w) {
  const std::string& where = t.where;
  if (!external)
    return InvalidArgument(where + ": field data_location: external data not allowed here");
  if (t.info.field == Field::kString)
    return InvalidArgument(where + ": field data_location: string tensors cannot be external");
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : tp.external_data()) {
    const std::string& v = kv.value();
    auto num = [&](int64_t* out) -> Status {
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != 0 || errno != 0 || x < 0) {
        std::string msg = where;
        msg.append(": field external_data: key '").append(kv.key());
        msg.append("' has invalid value '").append(v).append("'");
        return InvalidArgument(msg);
      }
      *out = x;
      return Status::Ok();
    };
    if (kv.key() == "location") location = v;
    else if (kv.key() == "offset") VT_RETURN_IF_ERROR(num(&offset));
    else if (kv.key() == "length") VT_RETURN_IF_ERROR(num(&length));
  }
  if (location.empty()) return InvalidArgument(where + ": field external_data: no location");
  auto mf = external->Map(location);
  if (!mf.ok()) return mf.take_status().WithContext(where + ": field external_data");
  const size_t fsize = (*mf)->size(), raw_bytes = t.raw_bytes;
  if (length >= 0 && static_cast<size_t>(length) != raw_bytes)
    return InvalidArgument(where + ": field external_data: length " + std::to_string(length) +
                           " != " + std::to_string(raw_bytes) + " bytes for the dims");
  if (static_cast<size_t>(offset) > fsize || raw_bytes > fsize - static_cast<size_t>(offset))
    return OutOfRange(where + ": field external_data: bytes [" + std::to_string(offset) + ", " +
                      std::to_string(offset + static_cast<int64_t>(raw_bytes)) + ") outside '" +
                      location + "' (" + std::to_string(fsize) + " bytes)");
  PutRaw(w, (*mf)->data() + offset, raw_bytes, t.dt, t.numel);
  return Status::Ok();
}

// The typed repeated field, each value little-endian at the element's width. Errors: a value
// count other than the dims'.
Status StreamTypedFields(const onnx::TensorProto& tp, const StreamedTensor& t, Writer& w) {
  const TypeInfo& info = t.info;
  const int64_t values = info.nibbles ? (t.numel + 1) / 2 : t.numel * info.per_elem;
  auto check = [&](int have, const char* field) -> Status {
    if (have != values)
      return InvalidArgument(t.where + ": field " + field + ": " + std::to_string(have) +
                             " values, expected " + std::to_string(values));
    return Status::Ok();
  };
  const int vbytes = info.bytes / info.per_elem;  // bytes per typed value
  switch (info.field) {
    case Field::kFloat:
      VT_RETURN_IF_ERROR(check(tp.float_data_size(), "float_data"));
      for (float f : tp.float_data()) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        w.Put(u, 4);
      }
      break;
    case Field::kDouble:
      VT_RETURN_IF_ERROR(check(tp.double_data_size(), "double_data"));
      for (double f : tp.double_data()) {
        uint64_t u;
        std::memcpy(&u, &f, 8);
        w.Put(u, 8);
      }
      break;
    case Field::kInt64:
      VT_RETURN_IF_ERROR(check(tp.int64_data_size(), "int64_data"));
      for (int64_t v : tp.int64_data()) w.Put(static_cast<uint64_t>(v), 8);
      break;
    case Field::kUint64:
      VT_RETURN_IF_ERROR(check(tp.uint64_data_size(), "uint64_data"));
      for (uint64_t v : tp.uint64_data()) w.Put(v, vbytes);
      break;
    case Field::kInt32:
      VT_RETURN_IF_ERROR(check(tp.int32_data_size(), "int32_data"));
      for (int i = 0; i < tp.int32_data_size(); ++i) {
        uint32_t v = static_cast<uint32_t>(tp.int32_data(i));
        if (t.dt == 9) v = v != 0;
        if (info.nibbles && (t.numel & 1) && i + 1 == tp.int32_data_size()) v &= 0x0F;
        w.Put(v, vbytes);
      }
      break;
    case Field::kString:
      VT_RETURN_IF_ERROR(check(tp.string_data_size(), "string_data"));
      for (const auto& s : tp.string_data()) {
        w.Put(s.size(), 8);
        w.Bytes(s.data(), s.size());
      }
      break;
  }
  return Status::Ok();
}

}  // namespace

Status CanonicalTensorStream(const onnx::TensorProto& tp, ExternalDataResolver* external,
                             const std::string& file, const ByteSink& sink) {
  VT_ASSIGN_OR_RETURN(const StreamedTensor t, ReadStreamHeader(tp, file));
  std::vector<uint8_t> head;
  PutU64(head, static_cast<uint64_t>(t.dt));
  PutU64(head, static_cast<uint64_t>(tp.dims_size()));
  for (int64_t d : tp.dims()) PutU64(head, static_cast<uint64_t>(d));
  Writer w(sink);
  w.Bytes(head.data(), head.size());
  if (tp.data_location() == onnx::TensorProto::EXTERNAL) return StreamExternal(tp, t, external, w);
  if (tp.has_raw_data()) {
    if (t.info.field == Field::kString)
      return InvalidArgument(t.where + ": field raw_data: string tensors must use string_data");
    if (tp.raw_data().size() != t.raw_bytes)
      return InvalidArgument(t.where + ": field raw_data: " + std::to_string(tp.raw_data().size()) +
                             " bytes, expected " + std::to_string(t.raw_bytes));
    PutRaw(w, reinterpret_cast<const uint8_t*>(tp.raw_data().data()), t.raw_bytes, t.dt, t.numel);
    return Status::Ok();
  }
  return StreamTypedFields(tp, t, w);
}

Expected<std::string> TensorProtoDigest(const onnx::TensorProto& tp, DigestAlgorithm a,
                                        ExternalDataResolver* external,
                                        const std::string& file) {
  Digester d(a);
  VT_RETURN_IF_ERROR(CanonicalTensorStream(
      tp, external, file, [&](const void* p, size_t n) { d.Update(p, n); }));
  return d.Finish();
}

Expected<std::string> TensorDigest(const Tensor& t, DigestAlgorithm a, const ByteSink& consumed) {
  if (t.dtype() == DType::kUndefined || !IsKnownDType(static_cast<int32_t>(t.dtype())))
    return Unimplemented("digest: undefined element type");
  Digester d(a);
  {
    Writer w([&](const void* p, size_t n) { d.Update(p, n); });
    w.Put(static_cast<uint64_t>(t.dtype()), 8);
    w.Put(static_cast<uint64_t>(t.rank()), 8);
    for (int64_t dim : t.shape()) w.Put(static_cast<uint64_t>(dim), 8);
    if (t.numel() > 0) {
      Tensor c = t.Contiguous();
      if (t.dtype() == DType::kString) {
        const auto* s = c.data<std::string>();
        for (int64_t i = 0; i < c.numel(); ++i) {
          w.Put(s[i].size(), 8);
          w.Bytes(s[i].data(), s[i].size());
        }
      } else if (consumed && t.is_contiguous() && t.dtype() != DType::kBool &&
                 !(InfoOf(static_cast<int32_t>(t.dtype())) &&
                   InfoOf(static_cast<int32_t>(t.dtype()))->nibbles)) {
        // The canonical payload is the raw little-endian bytes: hash them piece by piece.
        constexpr size_t kPiece = size_t{8} << 20;
        const auto* p = static_cast<const uint8_t*>(c.raw_data());
        for (size_t off = 0, n = c.nbytes(); off < n; off += kPiece) {
          const size_t len = std::min(kPiece, n - off);
          w.Bytes(p + off, len);
          w.Flush();
          consumed(p + off, len);
        }
      } else if (IsSubByteDType(t.dtype())) {
        // In memory one element per byte (layout/dtype.h); the digest is over ONNX's packed
        // bytes, so a tensor and the initializer it came from digest alike (docs/digest.md).
        std::vector<uint8_t> packed(DTypeFileBytes(t.dtype(), c.numel()));
        PackNibbles(static_cast<const uint8_t*>(c.raw_data()), c.numel(), packed.data());
        PutRaw(w, packed.data(), packed.size(), static_cast<int32_t>(t.dtype()), c.numel());
      } else {
        PutRaw(w, static_cast<const uint8_t*>(c.raw_data()), c.nbytes(),
               static_cast<int32_t>(t.dtype()), c.numel());
      }
    }
  }
  return d.Finish();
}

}  // namespace vt
