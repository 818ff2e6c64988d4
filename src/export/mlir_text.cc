#include "export/mlir_text.h"

#include <fmt/core.h>

#include <cmath>
#include <cstring>

#include "vtensor/layout/minifloat.h"

namespace vt::mlir {

std::string ElementType(DType t) {
  switch (t) {
    case DType::kFloat32: return "f32";
    case DType::kFloat16: return "f16";
    case DType::kBFloat16: return "bf16";
    case DType::kFloat64: return "f64";
    case DType::kInt8: return "i8";
    case DType::kInt16: return "i16";
    case DType::kInt32: return "i32";
    case DType::kInt64: return "i64";
    case DType::kUInt8: return "ui8";
    case DType::kUInt16: return "ui16";
    case DType::kUInt32: return "ui32";
    case DType::kUInt64: return "ui64";
    case DType::kBool: return "i1";
    // MLIR 16 builtin types for the small ONNX types (docs/dtypes.md); the fnuz float8 types
    // (MLIR 17) and float4e2m1 have none there.
    case DType::kFloat8E4M3FN: return "f8E4M3FN";
    case DType::kFloat8E5M2: return "f8E5M2";
    case DType::kInt4: return "i4";
    case DType::kUInt4: return "ui4";
    default: return "";
  }
}

std::string TensorType(DType t, const Shape& shape, std::string_view encoding) {
  std::string s = "tensor<";
  for (int64_t d : shape) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  s += ElementType(t);
  if (!encoding.empty()) s += ", " + std::string(encoding);
  return s + ">";
}

std::string FloatLiteral(double v, DType t) {
  if (IsFloat8DType(t) && (std::isnan(v) || std::isinf(v)))
    return fmt::format("0x{:02X}", FloatToFloat8(t, v, /*saturate=*/false));
  if (std::isnan(v) || std::isinf(v)) {
    switch (t) {
      case DType::kFloat64: {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        return fmt::format("0x{:016X}", b);
      }
      case DType::kFloat16: return fmt::format("0x{:04X}", FloatToHalf(static_cast<float>(v)));
      case DType::kBFloat16: return fmt::format("0x{:04X}", FloatToBFloat16(static_cast<float>(v)));
      default: {
        const float f = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return fmt::format("0x{:08X}", b);
      }
    }
  }
  // 17 significant digits round-trip any double (9 any float); %e always has a '.'.
  if (t == DType::kFloat64) return fmt::format("{:.16e}", v);
  return fmt::format("{:.8e}", static_cast<double>(static_cast<float>(v)));
}

std::string ArrayI64(const std::vector<int64_t>& v) {
  if (v.empty()) return "array<i64>";
  std::string s = "array<i64: ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ">";
}

std::string ArrayBool(const std::vector<bool>& v) {
  if (v.empty()) return "array<i1>";
  std::string s = "array<i1: ";
  for (size_t i = 0; i < v.size(); ++i) s += std::string(i ? ", " : "") + (v[i] ? "true" : "false");
  return s + ">";
}

std::string Quote(std::string_view s) {
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7F) {
      r += fmt::format("\\{:02X}", c);
    } else {
      r += static_cast<char>(c);
    }
  }
  return r + "\"";
}

namespace {

std::string ElementLiteral(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kBool: return t.GetInt64(i) != 0 ? "true" : "false";
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat64:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ: return FloatLiteral(t.GetDouble(i), t.dtype());
    case DType::kUInt64: {
      uint64_t v;
      std::memcpy(&v, static_cast<const uint8_t*>(t.raw_data()) + i * 8, 8);
      return std::to_string(v);
    }
    default: return std::to_string(t.GetInt64(i));
  }
}

void Nested(const Tensor& t, size_t dim, int64_t* flat, std::string& out) {
  if (dim == t.shape().size()) {
    out += ElementLiteral(t, (*flat)++);
    return;
  }
  out += "[";
  for (int64_t i = 0; i < t.shape()[dim]; ++i) {
    if (i) out += ", ";
    Nested(t, dim + 1, flat, out);
  }
  out += "]";
}

}  // namespace

Expected<std::string> DenseLiteral(const Tensor& t0) {
  if (ElementType(t0.dtype()).empty())
    return Unimplemented(std::string("no MLIR element type for dtype ") + DTypeName(t0.dtype()));
  const Tensor t = t0.Contiguous();
  const size_t es = DTypeSize(t.dtype());
  const auto* bytes = static_cast<const uint8_t*>(t.numel() ? t.raw_data() : nullptr);
  bool splat = t.numel() > 0;
  for (int64_t i = 1; i < t.numel() && splat; ++i)
    splat = std::memcmp(bytes, bytes + i * static_cast<int64_t>(es), es) == 0;
  if (splat) return "dense<" + ElementLiteral(t, 0) + ">";
  if (t.numel() == 0) return std::string("dense<>");
  if (t.dtype() == DType::kBool) {
    std::string s = "dense<";
    int64_t flat = 0;
    if (t.rank() == 0) s += ElementLiteral(t, 0);
    else Nested(t, 0, &flat, s);
    return s + ">";
  }
  std::string s = "dense<\"0x";
  s.reserve(s.size() + static_cast<size_t>(t.numel()) * es * 2 + 3);
  static const char* kHex = "0123456789ABCDEF";
  for (size_t i = 0; i < static_cast<size_t>(t.numel()) * es; ++i) {
    s += kHex[bytes[i] >> 4];
    s += kHex[bytes[i] & 15];
  }
  return s + "\">";
}

std::string DenseI64Matrix(const std::vector<std::pair<int64_t, int64_t>>& rows) {
  std::string s = "dense<[";
  for (size_t i = 0; i < rows.size(); ++i)
    s += (i ? ", " : "") + fmt::format("[{}, {}]", rows[i].first, rows[i].second);
  if (rows.empty()) return "dense<> : tensor<0x2xi64>";
  return s + "]> : tensor<" + std::to_string(rows.size()) + "x2xi64>";
}

}  // namespace vt::mlir
