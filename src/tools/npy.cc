#include "tools/npy.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "vtensor/base/file.h"

namespace vt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct NpyDescr {
  DType dtype = DType::kUndefined;
  bool swap = false;  // stored big-endian
};

// 'descr' -> dtype. NumPy writes '|' for one-byte types and '<'/'>' for the rest.
Expected<NpyDescr> ParseDescr(const std::string& d, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(path + ": .npy header field 'descr' is '" + d + "': " + why);
  };
  if (d.size() < 3) return bad("expected a byte order, a kind and a size, e.g. '<f4'");
  NpyDescr out;
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return bad("unknown byte order '" + std::string(1, order) + "'");
  out.swap = order == '>';
  const char kind = d[1];
  const std::string size = d.substr(2);
  struct Row {
    char kind;
    const char* size;
    DType dtype;
  };
  static constexpr Row kRows[] = {
      {'b', "1", DType::kBool},     {'i', "1", DType::kInt8},        {'i', "2", DType::kInt16},
      {'i', "4", DType::kInt32},    {'i', "8", DType::kInt64},       {'u', "1", DType::kUInt8},
      {'u', "2", DType::kUInt16},   {'u', "4", DType::kUInt32},      {'u', "8", DType::kUInt64},
      {'f', "2", DType::kFloat16},  {'f', "4", DType::kFloat32},     {'f', "8", DType::kFloat64},
      {'c', "8", DType::kComplex64}, {'c', "16", DType::kComplex128}};
  for (const Row& r : kRows)
    if (r.kind == kind && size == r.size) out.dtype = r.dtype;
  if (out.dtype == DType::kUndefined)
    return bad("unsupported element type (bool, int8..int64, uint8..uint64, float16/32/64, "
               "complex64/128 are)");
  return out;
}

// A tiny reader for the Python dict literal NumPy writes as the header.
class HeaderReader {
 public:
  HeaderReader(std::string_view s, const std::string& path) : s_(s), path_(path) {}

  Status Error(const std::string& field, const std::string& why) const {
    return InvalidArgument(path_ + ": .npy header field '" + field + "': " + why + " (header: " +
                           std::string(s_) + ")");
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> QuotedString() {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    const char q = s_[pos_++];
    const size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  std::optional<bool> Bool() {
    SkipSpace();
    for (const auto& [word, v] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (s_.substr(pos_, n) == word) {
        pos_ += n;
        return v;
      }
    }
    return std::nullopt;
  }
  // "(2, 3)", "(5,)", "()".
  Expected<Shape> Tuple() {
    if (!Eat('(')) return Error("shape", "expected a tuple such as (2, 3)");
    Shape shape;
    while (!Eat(')')) {
      SkipSpace();
      size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ == start || pos_ - start > 18)
        return Error("shape", "expected non-negative integers in the tuple");
      shape.push_back(std::stoll(std::string(s_.substr(start, pos_ - start))));
      if (!Eat(',')) {
        if (!Eat(')')) return Error("shape", "expected ',' or ')' in the tuple");
        break;
      }
    }
    return shape;
  }
  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= s_.size(); }

 private:
  std::string_view s_;
  const std::string& path_;
  size_t pos_ = 0;
};

struct NpyHeader {
  NpyDescr descr;
  bool fortran = false;
  Shape shape;
};

Expected<NpyHeader> ParseHeader(std::string_view text, const std::string& path) {
  HeaderReader r(text, path);
  if (!r.Eat('{')) return r.Error("header", "expected a dict literal starting with '{'");
  NpyHeader h;
  bool have_descr = false, have_fortran = false, have_shape = false;
  while (!r.Eat('}')) {
    auto key = r.QuotedString();
    if (!key) return r.Error("header", "expected a quoted key");
    if (!r.Eat(':')) return r.Error(*key, "expected ':' after the key");
    if (*key == "descr") {
      auto d = r.QuotedString();
      if (!d) return r.Error("descr", "expected a quoted type string (structured dtypes are not supported)");
      VT_ASSIGN_OR_RETURN(h.descr, ParseDescr(*d, path));
      have_descr = true;
    } else if (*key == "fortran_order") {
      auto b = r.Bool();
      if (!b) return r.Error("fortran_order", "expected True or False");
      h.fortran = *b;
      have_fortran = true;
    } else if (*key == "shape") {
      VT_ASSIGN_OR_RETURN(h.shape, r.Tuple());
      have_shape = true;
    } else {
      return r.Error(*key, "unknown key (expected descr, fortran_order, shape)");
    }
    if (!r.Eat(',')) {
      if (!r.Eat('}')) return r.Error("header", "expected ',' or '}' after a value");
      break;
    }
  }
  if (!have_descr) return r.Error("descr", "missing");
  if (!have_fortran) return r.Error("fortran_order", "missing");
  if (!have_shape) return r.Error("shape", "missing");
  return h;
}

uint32_t ReadLE(std::string_view b, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(b[at + i])) << (8 * i);
  return v;
}

// Reverses the bytes of each element (complex: of each component).
void SwapBytes(uint8_t* data, size_t count, size_t width) {
  for (size_t i = 0; i < count; ++i)
    for (size_t a = 0, b = width - 1; a < b; ++a, --b) std::swap(data[i * width + a], data[i * width + b]);
}

// Fortran (column-major) bytes -> row-major tensor of `shape`.
Tensor FromFortran(const uint8_t* src, DType dt, const Shape& shape) {
  Tensor t = Tensor::Empty(dt, shape);
  const size_t es = DTypeSize(dt);
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> idx(rank, 0), fstride(rank, 1);
  for (int d = 1; d < rank; ++d) fstride[d] = fstride[d - 1] * shape[d - 1];
  uint8_t* dst = static_cast<uint8_t*>(t.raw_mutable_data());
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += idx[d] * fstride[d];
    std::memcpy(dst + flat * es, src + off * es, es);
    for (int d = rank - 1; d >= 0; --d) {  // row-major increment
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return t;
}

}  // namespace

Expected<Tensor> ParseNpy(std::string_view bytes, const std::string& path) {
  auto bad = [&](const std::string& field, const std::string& why) {
    return InvalidArgument(path + ": .npy " + field + ": " + why);
  };
  if (bytes.size() < kMagicLen + 2 || bytes.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
    return bad("magic", "the file does not start with \\x93NUMPY (not a .npy file)");
  const int major = static_cast<uint8_t>(bytes[kMagicLen]);
  const int minor = static_cast<uint8_t>(bytes[kMagicLen + 1]);
  if (major < 1 || major > 3 || minor != 0)
    return bad("version", std::to_string(major) + "." + std::to_string(minor) +
                              " is not 1.0, 2.0 or 3.0");
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t header_at = kMagicLen + 2 + len_bytes;
  if (bytes.size() < header_at) return bad("header length", "the file ends inside it");
  const size_t header_len = ReadLE(bytes, kMagicLen + 2, len_bytes);
  if (header_len > bytes.size() - header_at)
    return bad("header length", std::to_string(header_len) + " bytes, but only " +
                                    std::to_string(bytes.size() - header_at) + " follow");
  VT_ASSIGN_OR_RETURN(NpyHeader h, ParseHeader(bytes.substr(header_at, header_len), path));
  const size_t es = DTypeSize(h.descr.dtype);
  uint64_t count = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && count > std::numeric_limits<uint64_t>::max() / es / static_cast<uint64_t>(d))
      return bad("shape", "element count overflows");
    count *= static_cast<uint64_t>(d);
  }
  const size_t data_at = header_at + header_len;
  const uint64_t want = count * es;
  if (bytes.size() - data_at != want)
    return bad("data size", std::to_string(bytes.size() - data_at) + " bytes after the header, " +
                                "but shape " + ShapeToString(h.shape) + " of " +
                                DTypeName(h.descr.dtype) + " needs " + std::to_string(want));
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data() + data_at);
  std::vector<uint8_t> swapped;
  if (h.descr.swap && es > 1) {
    swapped.assign(src, src + want);
    const bool complex = h.descr.dtype == DType::kComplex64 || h.descr.dtype == DType::kComplex128;
    SwapBytes(swapped.data(), complex ? count * 2 : count, complex ? es / 2 : es);
    src = swapped.data();
  }
  if (h.fortran && h.shape.size() > 1) return FromFortran(src, h.descr.dtype, h.shape);
  Tensor t = Tensor::Empty(h.descr.dtype, h.shape);
  if (want) std::memcpy(t.raw_mutable_data(), src, want);
  return t;
}

Expected<Tensor> ReadNpy(const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  return ParseNpy(bytes, path);
}

Expected<std::string> SerializeNpy(const Tensor& t) {
  std::string descr;
  switch (t.dtype()) {
    case DType::kBool: descr = "|b1"; break;
    case DType::kInt8: descr = "|i1"; break;
    case DType::kUInt8: descr = "|u1"; break;
    case DType::kInt16: descr = "<i2"; break;
    case DType::kInt32: descr = "<i4"; break;
    case DType::kInt64: descr = "<i8"; break;
    case DType::kUInt16: descr = "<u2"; break;
    case DType::kUInt32: descr = "<u4"; break;
    case DType::kUInt64: descr = "<u8"; break;
    case DType::kFloat16: descr = "<f2"; break;
    case DType::kFloat32: descr = "<f4"; break;
    case DType::kFloat64: descr = "<f8"; break;
    case DType::kComplex64: descr = "<c8"; break;
    case DType::kComplex128: descr = "<c16"; break;
    default:
      return InvalidArgument(std::string("a ") + DTypeName(t.dtype()) +
                             " tensor has no .npy element type");
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i)
    shape += std::to_string(t.shape()[i]) + (t.shape().size() == 1 ? "," : i + 1 < t.shape().size() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes as NumPy does.
  const size_t unpadded = kMagicLen + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  const size_t at = out.size();
  out.resize(at + t.nbytes());
  if (t.nbytes()) CopyToContiguous(t, out.data() + at);
  return out;
}

Status WriteNpy(const std::string& path, const Tensor& t) {
  auto bytes = SerializeNpy(t);
  if (!bytes.ok()) return InvalidArgument(path + ": " + bytes.status().message());
  return WriteFileAtomic(path, *bytes);
}

}  // namespace vt
