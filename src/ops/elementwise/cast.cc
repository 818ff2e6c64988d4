// Cast (opset 1..), CastLike (15..): ONNX Operators.md "Cast".
#include "ops/elementwise/cast.h"

#include "ops/elementwise/cast_small.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace vt::ops {

namespace {

// Round-to-odd binary64 -> binary32: the result keeps a sticky low bit when inexact, so a
// second rounding to a format with at most 22 significand bits is exactly the one rounding
// of `d` (the classic round-to-odd argument; float has 24 bits, half 11, bfloat16 8).
float RoundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (d != d || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

// "-1.2345e+07" (the output of %e / to_chars scientific) -> numpy str() layout.
std::string SciToNumpy(std::string_view sci, double value) {
  std::string out;
  size_t i = 0;
  if (i < sci.size() && sci[i] == '-') {
    out.push_back('-');
    ++i;
  }
  std::string digits;
  int exp10 = 0;
  for (; i < sci.size() && sci[i] != 'e' && sci[i] != 'E'; ++i)
    if (sci[i] != '.') digits.push_back(sci[i]);
  if (i < sci.size()) {
    ++i;
    std::from_chars(sci.data() + i + (sci[i] == '+' ? 1 : 0), sci.data() + sci.size(), exp10);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits.empty()) digits = "0";
  const double a = std::fabs(value);
  if (a == 0.0) return out + "0.0";
  if (a >= 1e-4 && a < 1e16) {
    if (exp10 >= 0) {
      const size_t int_len = static_cast<size_t>(exp10) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  return out + e;
}

std::string SpecialText(double v) {
  if (v != v) return "NaN";
  return v > 0 ? "INF" : "-INF";
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Special literals shared by the float parsers; true when `s` was one of them.
template <typename F>
bool ParseSpecial(std::string_view s, F& out) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsNoCase(body, "nan")) {
    out = std::numeric_limits<F>::quiet_NaN();
    return true;
  }
  if (EqualsNoCase(body, "inf") || EqualsNoCase(body, "infinity")) {
    out = neg ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
    return true;
  }
  if (!neg && s[0] != '+') {
    if (EqualsNoCase(body, "true")) {
      out = 1;
      return true;
    }
    if (EqualsNoCase(body, "false")) {
      out = 0;
      return true;
    }
  }
  return false;
}

template <typename F>
Expected<F> ParseFloating(std::string_view text) {
  std::string_view s = Trim(text);
  F v{};
  if (s.empty()) return InvalidArgument("cannot parse an empty string as a number");
  if (ParseSpecial(s, v)) return v;
  std::string_view body = s;
  if (body[0] == '+') body.remove_prefix(1);
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (p != body.data() + body.size() || body.empty()) {
    return InvalidArgument("cannot parse '" + std::string(text) + "' as a number");
  }
  // Out of range: from_chars leaves v untouched; follow strtod (+-Inf or +-0).
  if (ec == std::errc::result_out_of_range) {
    const bool neg = body[0] == '-';
    const bool tiny = body.find_first_of("eE") != std::string_view::npos &&
                      body[body.find_first_of("eE") + 1] == '-';
    if (tiny) v = neg ? -F(0) : F(0);
    else v = neg ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  } else if (ec != std::errc()) {
    return InvalidArgument("cannot parse '" + std::string(text) + "' as a number");
  }
  return v;
}

template <typename I>
Expected<I> ParseInteger(std::string_view text) {
  std::string_view s = Trim(text);
  std::string_view body = s;
  if (!body.empty() && body[0] == '+') body.remove_prefix(1);
  I v{};
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec == std::errc() && p == body.data() + body.size() && !body.empty()) return v;
  VT_ASSIGN_OR_RETURN(double d, ParseFloating<double>(text));
  return FloatToInt<I>(d);
}

// Number -> string for every numeric storage type.
template <typename S>
std::string FormatElem(S v) {
  if constexpr (std::is_same_v<S, bool>) return v ? "True" : "False";
  else if constexpr (std::is_same_v<S, float>) return FormatFloat(v);
  else if constexpr (std::is_same_v<S, double>) return FormatDouble(v);
  else if constexpr (std::is_same_v<S, Float16>) return FormatHalf(v.bits, false);
  else if constexpr (std::is_same_v<S, BFloat16>) return FormatHalf(v.bits, true);
  else return std::to_string(v);
}

// String -> every numeric storage type.
template <typename D>
Expected<D> ParseElem(const std::string& s) {
  if constexpr (std::is_same_v<D, float>) {
    return ParseFloat(s);
  } else if constexpr (std::is_same_v<D, double> || kIsHalf<D>) {
    VT_ASSIGN_OR_RETURN(double d, ParseDouble(s));
    return ConvertElem<D>(d);
  } else if constexpr (std::is_same_v<D, bool>) {
    VT_ASSIGN_OR_RETURN(double d, ParseDouble(s));
    return d != 0.0;
  } else if constexpr (std::is_signed_v<D>) {
    VT_ASSIGN_OR_RETURN(int64_t i, ParseInt64(s));
    return static_cast<D>(i);
  } else {
    VT_ASSIGN_OR_RETURN(uint64_t u, ParseUInt64(s));
    return static_cast<D>(u);
  }
}

constexpr unsigned kCastable = kSetNumeric | kSetBool;

}  // namespace

uint16_t DoubleToHalf(double d) { return FloatToHalf(RoundToOddFloat(d)); }
uint16_t DoubleToBFloat16(double d) { return FloatToBFloat16(RoundToOddFloat(d)); }

std::string FormatFloat(float v) {
  if (!std::isfinite(v)) return SpecialText(v);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return SciToNumpy(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), v);
}

std::string FormatDouble(double v) {
  if (!std::isfinite(v)) return SpecialText(v);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return SciToNumpy(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), v);
}

std::string FormatHalf(uint16_t bits, bool bfloat16) {
  const float f = bfloat16 ? BFloat16ToFloat(bits) : HalfToFloat(bits);
  if (!std::isfinite(f)) return SpecialText(f);
  // Shortest precision whose decimal text rounds back to the same 16-bit value (to_chars and
  // from_chars, unlike printf/strtod, ignore the C locale).
  char buf[64];
  std::string_view text;
  for (int prec = 1; prec <= 9; ++prec) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(f),
                           std::chars_format::scientific, prec - 1);
    text = std::string_view(buf, static_cast<size_t>(r.ptr - buf));
    double back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    const uint16_t b = bfloat16 ? DoubleToBFloat16(back) : DoubleToHalf(back);
    if (b == bits || (f == 0.0f && back == 0.0)) break;
  }
  return SciToNumpy(text, f);
}

Expected<double> ParseDouble(std::string_view s) { return ParseFloating<double>(s); }
Expected<float> ParseFloat(std::string_view s) { return ParseFloating<float>(s); }
Expected<int64_t> ParseInt64(std::string_view s) { return ParseInteger<int64_t>(s); }
Expected<uint64_t> ParseUInt64(std::string_view s) { return ParseInteger<uint64_t>(s); }

Status CastInto(const Tensor& in, Tensor& out, int threads) {
  const DType from = in.dtype(), to = out.dtype();
  if (from == DType::kString && to == DType::kString) {
    CopyToContiguous(in, out.raw_mutable_data());
    return Status::Ok();
  }
  if (from == DType::kString) {
    Tensor src = in.Contiguous();
    const std::string* ps = src.data<std::string>();
    const int64_t n = src.numel();
    return DispatchElem<kCastable>(to, [&](auto dtag) -> Status {
      using D = decltype(dtag);
      D* po = out.mutable_data<D>();
      for (int64_t i = 0; i < n; ++i) {
        VT_ASSIGN_OR_RETURN(po[i], ParseElem<D>(ps[i]));
      }
      return Status::Ok();
    });
  }
  if (to == DType::kString) {
    return DispatchElem<kCastable>(from, [&](auto stag) -> Status {
      using S = decltype(stag);
      return MapTensor<S, std::string>(in, out, 1, [](S v) { return FormatElem(v); });
    });
  }
  return DispatchElem<kCastable>(from, [&](auto stag) -> Status {
    using S = decltype(stag);
    return DispatchElem<kCastable>(to, [&](auto dtag) -> Status {
      using D = decltype(dtag);
      return MapTensor<S, D>(in, out, threads, [](S v) { return ConvertElem<D>(v); });
    });
  });
}

Expected<Tensor> CastTo(const Tensor& in, DType to, int threads) {
  if (in.dtype() == to) return in;
  Tensor out = Tensor::Empty(to, in.shape());
  VT_RETURN_IF_ERROR(CastInto(in, out, threads));
  return out;
}

namespace {

// Opset 1 spelled `to` as a string ("FLOAT", "INT64", ...).
Expected<DType> DTypeFromName(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"FLOAT", DType::kFloat32},   {"UINT8", DType::kUInt8},     {"INT8", DType::kInt8},
      {"UINT16", DType::kUInt16},   {"INT16", DType::kInt16},     {"INT32", DType::kInt32},
      {"INT64", DType::kInt64},     {"STRING", DType::kString},   {"BOOL", DType::kBool},
      {"FLOAT16", DType::kFloat16}, {"DOUBLE", DType::kFloat64},  {"UINT32", DType::kUInt32},
      {"UINT64", DType::kUInt64},   {"BFLOAT16", DType::kBFloat16}};
  for (const auto& [n, t] : kNames)
    if (EqualsNoCase(name, n)) return t;
  return InvalidArgument("unknown type name '" + name + "' in attribute 'to'");
}

// `saturate` (opset 19+, default 1) applies to float8 outputs only (cast_small.h).
Status CastToDType(KernelContext& ctx, const Tensor& x, DType to) {
  if (to == DType::kComplex64 || to == DType::kComplex128 ||
      !IsKnownDType(static_cast<int32_t>(to)))
    return ctx.Unsupported(std::string("cast to ") + DTypeName(to) + " is not supported");
  if (x.dtype() == to) {
    ctx.SetOutput(0, x);
    return Status::Ok();
  }
  Tensor out = ctx.AllocOutput(0, to, x.shape());
  const bool saturate = ctx.node().GetInt("saturate", 1) != 0;
  Status st = IsSmallCast(x.dtype(), to) ? CastSmallInto(x, out, saturate)
                                         : CastInto(x, out, ctx.threads());
  if (!st.ok()) {
    // An unsupported pair names both types; other errors name what they are about.
    if (st.code() == StatusCode::kUnimplemented)
      st.WithContext(std::string("cast from ") + DTypeName(x.dtype()) + " to " + DTypeName(to));
    return ctx.Annotate(std::move(st));
  }
  return Status::Ok();
}

Status CastCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  const Attribute* a = ctx.node().FindAttr("to");
  if (a == nullptr) return ctx.Error("attribute 'to' is required");
  DType to;
  if (a->type == Attribute::Type::kString) {
    auto t = DTypeFromName(a->s);
    if (!t.ok()) return ctx.Annotate(t.take_status());
    to = *t;
  } else {
    if (!IsKnownDType(static_cast<int32_t>(a->i)))
      return ctx.Unsupported("attribute 'to' = " + std::to_string(a->i) +
                             " is not a supported type");
    to = static_cast<DType>(a->i);
  }
  return CastToDType(ctx, x, to);
}

Status CastLikeCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Tensor like, ctx.RequireTensor(1));
  return CastToDType(ctx, x, like.dtype());
}

VT_REGISTER_OP("", "Cast", 1, kMaxOpset, CastCompute);
VT_REGISTER_OP("", "CastLike", 15, kMaxOpset, CastLikeCompute);

}  // namespace
}  // namespace vt::ops
