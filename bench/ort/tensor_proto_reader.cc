#include "tensor_proto_reader.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vt::ortbench {

namespace {

// TensorProto.DataType values this reader holds.
enum : int32_t {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
  kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13, kBfloat16 = 16,
};

// Protobuf wire reader over one buffer; every read reports truncation instead of overrunning.
struct Wire {
  const uint8_t* p;
  const uint8_t* end;
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      const uint8_t b = *p++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Fixed(void* out, size_t n) {
    if (static_cast<size_t>(end - p) < n) return false;
    std::memcpy(out, p, n);
    p += n;
    return true;
  }
  bool Bytes(const uint8_t** data, size_t* n) {
    uint64_t len;
    if (!Varint(&len) || len > static_cast<uint64_t>(end - p)) return false;
    *data = p;
    *n = static_cast<size_t>(len);
    p += len;
    return true;
  }
  bool Skip(int wire) {
    uint64_t v;
    const uint8_t* d;
    size_t n;
    uint8_t tmp[8];
    switch (wire) {
      case 0: return Varint(&v);
      case 1: return Fixed(tmp, 8);
      case 2: return Bytes(&d, &n);
      case 5: return Fixed(tmp, 4);
      default: return false;
    }
  }
};

// Packed or unpacked repeated field whose elements are `kind` (0 varint, 5 fixed32, 1 fixed64).
bool ReadField(Wire* w, int wire, int kind, std::vector<uint64_t>* out) {
  auto one = [out, kind](Wire* r) {
    uint64_t v = 0;
    if (kind == 0) return r->Varint(&v) && (out->push_back(v), true);
    uint8_t b[8] = {};
    if (!r->Fixed(b, kind == 5 ? 4 : 8)) return false;
    std::memcpy(&v, b, 8);
    out->push_back(v);
    return true;
  };
  if (wire == kind) return one(w);
  if (wire != 2) return false;
  const uint8_t* d;
  size_t n;
  if (!w->Bytes(&d, &n)) return false;
  Wire sub{d, d + n};
  while (sub.p < sub.end)
    if (!one(&sub)) return false;
  return true;
}

float HalfToFloat(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(man | 0x400), exp - 25);
  return sign ? -v : v;
}

// Stores the typed-field value `v` (as read from the wire) as element i of `t`.
void StoreTyped(HostTensor* t, int64_t i, uint64_t v) {
  uint8_t* d = t->data.get();
  const size_t eb = ElementBytes(t->data_type);
  if (t->data_type == kDouble || t->data_type == kInt64 || t->data_type == kUint64 ||
      t->data_type == kFloat) {
    std::memcpy(d + i * eb, &v, eb);  // fixed64/fixed32 bits or a 64-bit varint, little-endian
    return;
  }
  // int32_data carries every narrower type as its (sign-extended) value or bit pattern.
  const uint32_t low = static_cast<uint32_t>(v);
  std::memcpy(d + i * eb, &low, eb);
}

}  // namespace

void FreeDeleter::operator()(void* p) const { std::free(p); }

size_t ElementBytes(int32_t data_type) {
  switch (data_type) {
    case kUint8: case kInt8: case kBool: return 1;
    case kUint16: case kInt16: case kFloat16: case kBfloat16: return 2;
    case kFloat: case kInt32: case kUint32: return 4;
    case kInt64: case kDouble: case kUint64: return 8;
    default: return 0;
  }
}

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

double ElementAsDouble(int32_t data_type, const void* data, int64_t i) {
  const uint8_t* p = static_cast<const uint8_t*>(data) + i * ElementBytes(data_type);
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (data_type) {
    case kFloat: return get(float{});
    case kDouble: return get(double{});
    case kUint8: case kBool: return get(uint8_t{});
    case kInt8: return get(int8_t{});
    case kUint16: return get(uint16_t{});
    case kInt16: return get(int16_t{});
    case kInt32: return get(int32_t{});
    case kUint32: return get(uint32_t{});
    case kInt64: return get(int64_t{});
    case kUint64: return get(uint64_t{});
    case kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return HalfToFloat(h);
    }
    case kBfloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      const uint32_t bits = static_cast<uint32_t>(h) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return NAN;
  }
}

std::string DecodeTensorProto(const uint8_t* bytes, size_t n, HostTensor* out) {
  Wire w{bytes, bytes + n};
  std::vector<uint64_t> dims, typed;
  const uint8_t* raw = nullptr;
  size_t raw_n = 0;
  bool has_raw = false;
  int32_t data_type = 0;
  while (w.p < w.end) {
    uint64_t key;
    if (!w.Varint(&key)) return "truncated field key";
    const int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    bool ok = true;
    uint64_t v;
    switch (field) {
      case 1: ok = ReadField(&w, wire, 0, &dims); break;                 // dims
      case 2: ok = wire == 0 && w.Varint(&v); data_type = static_cast<int32_t>(v); break;
      case 4: ok = ReadField(&w, wire, 5, &typed); break;                // float_data
      case 5: case 7: case 11: ok = ReadField(&w, wire, 0, &typed); break;  // int32/int64/uint64
      case 10: ok = ReadField(&w, wire, 1, &typed); break;               // double_data
      case 9: ok = wire == 2 && w.Bytes(&raw, &raw_n); has_raw = true; break;  // raw_data
      case 6: return "string tensors (string_data) are not supported";
      case 13: return "external data (external_data) is not supported";
      case 14:
        ok = wire == 0 && w.Varint(&v);
        if (ok && v != 0) return "external data (data_location EXTERNAL) is not supported";
        break;
      default: ok = w.Skip(wire);
    }
    if (!ok) return "malformed field " + std::to_string(field);
  }
  const size_t eb = ElementBytes(data_type);
  if (eb == 0) return "unsupported data_type " + std::to_string(data_type);
  out->data_type = data_type;
  out->dims.clear();
  for (uint64_t d : dims) {
    if (static_cast<int64_t>(d) < 0) return "negative dim";
    out->dims.push_back(static_cast<int64_t>(d));
  }
  const int64_t count = out->elements();
  out->bytes = static_cast<size_t>(count) * eb;
  const size_t alloc = (out->bytes + 63) / 64 * 64;
  out->data.reset(static_cast<uint8_t*>(std::aligned_alloc(64, alloc == 0 ? 64 : alloc)));
  if (!out->data) return "out of memory";
  if (has_raw) {
    if (raw_n != out->bytes)
      return "raw_data has " + std::to_string(raw_n) + " bytes, dims and data_type want " +
             std::to_string(out->bytes);
    if (raw_n) std::memcpy(out->data.get(), raw, raw_n);
    return "";
  }
  if (typed.size() != static_cast<size_t>(count))
    return "typed data has " + std::to_string(typed.size()) + " values, dims want " +
           std::to_string(count);
  for (int64_t i = 0; i < count; ++i) StoreTyped(out, i, typed[static_cast<size_t>(i)]);
  return "";
}

std::string ReadTensorProtoFile(const std::string& path, HostTensor* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "cannot open '" + path + "'";
  std::vector<uint8_t> buf;
  uint8_t chunk[1 << 16];
  size_t k;
  while ((k = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + k);
  const bool err = std::ferror(f);
  std::fclose(f);
  if (err) return "read of '" + path + "' failed";
  std::string e = DecodeTensorProto(buf.data(), buf.size(), out);
  return e.empty() ? e : path + ": " + e;
}

}  // namespace vt::ortbench
