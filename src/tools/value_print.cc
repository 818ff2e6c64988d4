#include "tools/value_print.h"

#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <vector>

namespace vt::cli {

namespace {

constexpr int64_t kThreshold = 1000;  // NumPy's print threshold (numel above it: summarise)
constexpr int64_t kEdgeItems = 3;     // entries kept at each end of a summarised axis
constexpr size_t kLineWidth = 75;

std::string FormatReal(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eni") == std::string::npos) s += '.';  // "1" -> "1." as NumPy
  return s;
}
std::string FormatFloat(float v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eni") == std::string::npos) s += '.';
  return s;
}

// Element `flat` of contiguous `t` as text.
std::string FormatElement(const Tensor& t, int64_t flat) {
  switch (t.dtype()) {
    case DType::kFloat32: return FormatFloat(t.data<float>()[flat]);
    case DType::kFloat64: return FormatReal(t.data<double>()[flat]);
    case DType::kFloat16: return FormatFloat(HalfToFloat(t.data<uint16_t>()[flat]));
    case DType::kBFloat16: return FormatFloat(BFloat16ToFloat(t.data<uint16_t>()[flat]));
    case DType::kBool: return t.data<bool>()[flat] ? "True" : "False";
    case DType::kString: return "'" + t.data<std::string>()[flat] + "'";
    case DType::kUInt64: return fmt::format("{}", t.data<uint64_t>()[flat]);
    case DType::kComplex64: {
      const float* p = t.data<float>() + 2 * flat;
      return fmt::format("{}{}{}j", FormatFloat(p[0]), p[1] < 0 ? "" : "+", FormatFloat(p[1]));
    }
    case DType::kComplex128: {
      const double* p = t.data<double>() + 2 * flat;
      return fmt::format("{}{}{}j", FormatReal(p[0]), p[1] < 0 ? "" : "+", FormatReal(p[1]));
    }
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat4E2M1: return FormatFloat(static_cast<float>(t.GetDouble(flat)));
    default: return fmt::format("{}", t.GetInt64(flat));
  }
}

struct Printer {
  const Tensor& t;
  bool summarise;
  std::vector<int64_t> strides;
  size_t width = 0;

  // The indices printed along an axis of size n; -1 marks the "..." gap.
  std::vector<int64_t> Indices(int64_t n) const {
    std::vector<int64_t> idx;
    if (summarise && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  // Visits every printed element (to size the columns).
  void Measure(int axis, int64_t offset) {
    if (axis == t.rank()) {
      width = std::max(width, FormatElement(t, offset).size());
      return;
    }
    for (int64_t i : Indices(t.dim(axis)))
      if (i >= 0) Measure(axis + 1, offset + i * strides[axis]);
  }

  std::string Row(int64_t offset, size_t indent) const {
    std::string out = "[";
    size_t line = indent + 1;
    bool first = true;
    for (int64_t i : Indices(t.dim(t.rank() - 1))) {
      std::string e = i < 0 ? "..." : FormatElement(t, offset + i);
      if (i >= 0 && e.size() < width) e.insert(0, width - e.size(), ' ');
      if (!first) {
        if (line + 1 + e.size() + 1 > kLineWidth) {
          out += "\n" + std::string(indent + 1, ' ');
          line = indent + 1;
        } else {
          out += ' ';
          ++line;
        }
      }
      out += e;
      line += e.size();
      first = false;
    }
    return out + "]";
  }

  std::string Axis(int axis, int64_t offset) const {
    if (axis == t.rank() - 1) return Row(offset, static_cast<size_t>(axis));
    std::string out = "[";
    const std::string sep = "," + std::string(static_cast<size_t>(t.rank() - axis - 1), '\n') +
                            std::string(static_cast<size_t>(axis) + 1, ' ');
    bool first = true;
    for (int64_t i : Indices(t.dim(axis))) {
      if (!first) out += sep;
      out += i < 0 ? "..." : Axis(axis + 1, offset + i * strides[axis]);
      first = false;
    }
    return out + "]";
  }
};

}  // namespace

std::string FormatTensor(const Tensor& tensor, bool all) {
  const Tensor t = tensor.Contiguous();
  if (t.rank() == 0) return FormatElement(t, 0);
  Printer p{t, !all && t.numel() > kThreshold, std::vector<int64_t>(t.rank(), 1)};
  for (int d = t.rank() - 2; d >= 0; --d) p.strides[d] = p.strides[d + 1] * t.dim(d + 1);
  if (t.numel() == 0) return "[]";
  p.Measure(0, 0);
  return p.Axis(0, 0);
}

}  // namespace vt::cli
