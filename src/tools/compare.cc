#include "tools/compare.h"

#include <cmath>

#include <fmt/core.h>

#include "vtensor/layout/minifloat.h"

namespace vt {

std::string DescribeValue(const Value& v) {
  if (v.is_none()) return "none";
  if (v.is_sequence())
    return std::string("seq<") + DTypeName(v.elem_type()) + ">[" +
           std::to_string(v.sequence().size()) + "]";
  return std::string(DTypeName(v.tensor().dtype())) + ShapeToString(v.tensor().shape());
}

CompareResult CompareTensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  CompareResult r;
  if (got.dtype() != want.dtype()) {
    r.detail = std::string("dtype ") + DTypeName(got.dtype()) + " != expected " + DTypeName(want.dtype());
    return r;
  }
  if (got.shape() != want.shape()) {
    r.detail = "shape " + ShapeToString(got.shape()) + " != expected " + ShapeToString(want.shape());
    return r;
  }
  const int64_t n = got.numel();
  r.pass = true;
  if (got.dtype() == DType::kString) {
    Tensor g = got.Contiguous(), w = want.Contiguous();
    for (int64_t i = 0; i < n; ++i)
      if (g.data<std::string>()[i] != w.data<std::string>()[i]) {
        r.pass = false;
        r.detail = "string mismatch at " + std::to_string(i) + ": '" + g.data<std::string>()[i] +
                   "' != '" + w.data<std::string>()[i] + "'";
        return r;
      }
    return r;
  }
  const bool exact = !IsFloatDType(got.dtype()) && !IsMiniFloatDType(got.dtype()) &&
                     got.dtype() != DType::kComplex64 &&
                     got.dtype() != DType::kComplex128;
  if (exact) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = got.GetInt64(i), b = want.GetInt64(i);
      if (got.dtype() == DType::kUInt64) {
        a = static_cast<int64_t>(static_cast<uint64_t>(a));
      }
      if (a != b) {
        r.max_abs_diff = std::max(r.max_abs_diff, std::fabs(static_cast<double>(a) - static_cast<double>(b)));
        if (r.pass) r.detail = "mismatch at " + std::to_string(i) + ": " + std::to_string(a) + " != " + std::to_string(b);
        r.pass = false;
      }
    }
    return r;
  }
  Tensor g = got, w = want;
  int64_t count = n;
  if (got.dtype() == DType::kComplex64 || got.dtype() == DType::kComplex128) {
    // compare as pairs of reals
    DType real = got.dtype() == DType::kComplex64 ? DType::kFloat32 : DType::kFloat64;
    Shape s = got.shape();
    s.push_back(2);
    g = Tensor(real, Layout::Contiguous(s), got.Contiguous().storage());
    w = Tensor(real, Layout::Contiguous(s), want.Contiguous().storage());
    count = n * 2;
  }
  for (int64_t i = 0; i < count; ++i) {
    double a = g.GetDouble(i), b = w.GetDouble(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (std::isinf(b) || std::isinf(a)) {
      if (a != b) {
        if (r.pass) r.detail = fmt::format("mismatch at {}: {:.9g} != expected {:.9g}", i, a, b);
        r.pass = false;
        r.max_abs_diff = INFINITY;
      }
      continue;
    }
    double d = std::fabs(a - b);
    if (std::isnan(d)) d = INFINITY;
    r.max_abs_diff = std::max(r.max_abs_diff, d);
    if (!(d <= atol + rtol * std::fabs(b))) {
      if (r.pass)  // 9 significant digits: values near zero must not print as 0.000000
        r.detail = fmt::format("mismatch at {}: {:.9g} != expected {:.9g} (|diff| {:.3g} > atol {:.3g} "
                               "+ rtol {:.3g} * |expected|)",
                               i, a, b, d, atol, rtol);
      r.pass = false;
    }
  }
  return r;
}

CompareResult CompareValues(const Value& got, const Value& want, double rtol, double atol) {
  CompareResult r;
  if (want.is_none()) {
    r.pass = got.is_none();
    if (!r.pass) r.detail = "expected an empty optional, got " + DescribeValue(got);
    return r;
  }
  if (want.is_sequence()) {
    if (!got.is_sequence()) {
      r.detail = "expected a sequence, got " + DescribeValue(got);
      return r;
    }
    if (got.sequence().size() != want.sequence().size()) {
      r.detail = "sequence length " + std::to_string(got.sequence().size()) + " != expected " +
                 std::to_string(want.sequence().size());
      return r;
    }
    r.pass = true;
    for (size_t i = 0; i < want.sequence().size(); ++i) {
      auto e = CompareTensors(got.sequence()[i], want.sequence()[i], rtol, atol);
      r.max_abs_diff = std::max(r.max_abs_diff, e.max_abs_diff);
      if (!e.pass && r.pass) {
        r.pass = false;
        r.detail = "item " + std::to_string(i) + ": " + e.detail;
      }
    }
    return r;
  }
  if (!got.is_tensor()) {
    r.detail = "expected a tensor, got " + DescribeValue(got);
    return r;
  }
  return CompareTensors(got.tensor(), want.tensor(), rtol, atol);
}

}  // namespace vt
