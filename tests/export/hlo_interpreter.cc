#include "hlo_interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "export/irpa_test_reader.h"
#include "hlo_dynamic_shape.h"
#include "vtensor/export/layout_attr.h"
#include "vtensor/layout/layout_pack.h"
#include "vtensor/layout/layout_text.h"

namespace vt::testing {

namespace {

// ---------------------------------------------------------------- values

double RoundTo(DType dt, double x) {
  switch (dt) {
    case DType::kFloat32: return static_cast<double>(static_cast<float>(x));
    case DType::kFloat16: return HalfToFloat(FloatToHalf(static_cast<float>(x)));
    case DType::kBFloat16: return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x)));
    case DType::kFloat64: return x;
    case DType::kBool: return x != 0 ? 1 : 0;
    default: return std::trunc(x);
  }
}

double DecodeElem(DType dt, const uint8_t* p) {
  switch (dt) {
    case DType::kFloat32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::kFloat64: { double d; std::memcpy(&d, p, 8); return d; }
    case DType::kFloat16: { uint16_t h; std::memcpy(&h, p, 2); return HalfToFloat(h); }
    case DType::kBFloat16: { uint16_t h; std::memcpy(&h, p, 2); return BFloat16ToFloat(h); }
    case DType::kInt8: return static_cast<int8_t>(p[0]);
    case DType::kUInt8: return p[0];
    case DType::kBool: return p[0] != 0;
    case DType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kUInt16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kUInt32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::kUInt64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    default: return 0;
  }
}

double ParseScalarLiteral(std::string_view s, DType dt) {
  s = Trim(s);
  if (s == "true") return 1;
  if (s == "false") return 0;
  if (s.substr(0, 2) == "0x" && IsFloatDType(dt)) {
    const uint64_t bits = std::stoull(std::string(s.substr(2)), nullptr, 16);
    uint8_t b[8];
    std::memcpy(b, &bits, 8);
    return DecodeElem(dt, b);
  }
  return std::strtod(std::string(s).c_str(), nullptr);
}

Expected<HValue> ParseDense(std::string_view attrs, DType dt, const Shape& shape) {
  const size_t p = attrs.find("dense<");
  if (p == std::string_view::npos) return InvalidArgument("constant without dense<>");
  const size_t end = Matching(attrs, p + 5);
  std::string_view body = attrs.substr(p + 6, end - p - 6);
  HValue v{dt, shape, {}};
  const int64_t n = NumElements(shape);
  if (!body.empty() && body[0] == '"') {
    body = body.substr(3, body.size() - 4);  // "0x...."
    const size_t es = DTypeSize(dt);
    std::vector<uint8_t> bytes(body.size() / 2);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<uint8_t>(std::stoi(std::string(body.substr(2 * i, 2)), nullptr, 16));
    if (static_cast<int64_t>(bytes.size()) != n * static_cast<int64_t>(es))
      return InvalidArgument("hex constant of the wrong size");
    for (int64_t i = 0; i < n; ++i) v.v.push_back(DecodeElem(dt, bytes.data() + i * static_cast<int64_t>(es)));
    return v;
  }
  if (!body.empty() && body[0] == '[') {
    std::string flat;
    for (char c : body)
      if (c != '[' && c != ']') flat += c;
    for (const auto& tok : SplitTop(flat)) v.v.push_back(ParseScalarLiteral(tok, dt));
    if (static_cast<int64_t>(v.v.size()) != n) return InvalidArgument("nested constant of the wrong size");
    return v;
  }
  v.v.assign(static_cast<size_t>(n), ParseScalarLiteral(body, dt));
  return v;
}

std::vector<int64_t> Strides(const Shape& s) { return RowMajorStrides(s); }

// Calls f(flat, idx) for every index of `shape` in row-major order.
void ForEach(const Shape& shape, const std::function<void(int64_t, const std::vector<int64_t>&)>& f) {
  const int64_t n = NumElements(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(flat, idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

double Apply2(const std::string& op, double a, double b, DType dt) {
  if (op == "stablehlo.add") return a + b;
  if (op == "stablehlo.subtract") return a - b;
  if (op == "stablehlo.multiply") return a * b;
  if (op == "stablehlo.divide") return IsFloatDType(dt) ? a / b : (b == 0 ? 0 : std::trunc(a / b));
  if (op == "stablehlo.maximum") return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  if (op == "stablehlo.minimum") return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  if (op == "stablehlo.power") return std::pow(a, b);
  if (op == "stablehlo.and") return static_cast<double>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
  if (op == "stablehlo.or") return static_cast<double>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
  if (op == "stablehlo.xor") return static_cast<double>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b));
  return NAN;
}

bool IsBinary(const std::string& op) {
  static const char* k[] = {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
                            "stablehlo.maximum", "stablehlo.minimum", "stablehlo.power", "stablehlo.and",
                            "stablehlo.or", "stablehlo.xor"};
  return std::find(std::begin(k), std::end(k), op) != std::end(k);
}

Expected<double> Apply1(const std::string& op, double x, DType dt) {
  if (op == "stablehlo.sqrt") return std::sqrt(x);
  if (op == "stablehlo.exponential") return std::exp(x);
  if (op == "stablehlo.exponential_minus_one") return std::expm1(x);
  if (op == "stablehlo.log") return std::log(x);
  if (op == "stablehlo.log_plus_one") return std::log1p(x);
  if (op == "stablehlo.logistic") return 1.0 / (1.0 + std::exp(-x));
  if (op == "stablehlo.tanh") return std::tanh(x);
  if (op == "stablehlo.negate") return -x;
  if (op == "stablehlo.abs") return std::fabs(x);
  if (op == "stablehlo.not") return dt == DType::kBool ? (x != 0 ? 0 : 1) : static_cast<double>(~static_cast<int64_t>(x));
  if (op == "stablehlo.floor") return std::floor(x);
  if (op == "stablehlo.ceil") return std::ceil(x);
  if (op == "stablehlo.round_nearest_even") return std::nearbyint(x);
  if (op == "stablehlo.sign") return x > 0 ? 1 : x < 0 ? -1 : x;
  if (op == "stablehlo.sine") return std::sin(x);
  if (op == "stablehlo.cosine") return std::cos(x);
  if (op == "chlo.erf") return std::erf(x);
  return Unimplemented("op " + op);
}

// ---------------------------------------------------------------- evaluation helpers

HValue Make(const std::string& type) {
  auto t = ParseType(type);
  HValue v;
  if (t.ok()) {
    v.dtype = t->first;
    v.shape = t->second;
  }
  v.v.assign(static_cast<size_t>(NumElements(v.shape)), 0.0);
  return v;
}

void RoundAll(HValue& v) {
  for (auto& x : v.v) x = RoundTo(v.dtype, x);
}

std::string BodyOp(const HOp& op) {
  for (const auto& o : op.regions.at(0))
    if (o.name != "^bb0" && o.name != "stablehlo.return") return o.name;
  return "";
}

HValue Convolution(const HOp& op, const HValue& x, const HValue& w, const std::string& rtype) {
  HValue out = Make(rtype);
  const size_t n = x.shape.size() - 2;
  std::vector<int64_t> s = ArrayAttr(op.attrs, "window_strides");
  std::vector<int64_t> ld = ArrayAttr(op.attrs, "lhs_dilation");
  std::vector<int64_t> rd = ArrayAttr(op.attrs, "rhs_dilation");
  auto pad = PairsAttr(op.attrs, "padding");
  if (s.empty()) s.assign(n, 1);
  if (ld.empty()) ld.assign(n, 1);
  if (rd.empty()) rd.assign(n, 1);
  const int64_t G = IntAttr(op.attrs, "feature_group_count", 1);
  const bool io = op.attrs.find("x[i, o") != std::string::npos;
  const int64_t B = x.shape[0], C = x.shape[1], O = out.shape[1], Cg = C / G, Og = O / G;
  Shape ksp(w.shape.begin() + 2, w.shape.end());
  const int64_t K = NumElements(ksp);
  const auto xs = Strides(x.shape), ws = Strides(w.shape), os = Strides(out.shape);
  std::vector<std::vector<int64_t>> koff;
  ForEach(ksp, [&](int64_t, const std::vector<int64_t>& k) { koff.push_back(k); });
  Shape osp(out.shape.begin() + 2, out.shape.end());
  ForEach(osp, [&](int64_t of, const std::vector<int64_t>& y) {
    // For each kernel tap, the input spatial offset (or -1 when it falls in padding/holes).
    std::vector<int64_t> tap_off(static_cast<size_t>(K), -1);
    for (int64_t t = 0; t < K; ++t) {
      int64_t off = 0;
      bool ok = true;
      for (size_t d = 0; d < n && ok; ++d) {
        const int64_t p = y[d] * s[d] + koff[static_cast<size_t>(t)][d] * rd[d] - pad[d].first;
        if (p < 0 || p % ld[d] != 0) ok = false;
        const int64_t i = p / ld[d];
        if (i >= x.shape[d + 2]) ok = false;
        off += i * xs[d + 2];
      }
      if (ok) tap_off[static_cast<size_t>(t)] = off;
    }
    for (int64_t b = 0; b < B; ++b)
      for (int64_t o = 0; o < O; ++o) {
        const int64_t g = o / Og;
        double acc = 0;
        for (int64_t c = 0; c < Cg; ++c) {
          const double* xp = x.v.data() + b * xs[0] + (g * Cg + c) * xs[1];
          const double* wp = w.v.data() + (io ? c * ws[0] + o * ws[1] : o * ws[0] + c * ws[1]);
          for (int64_t t = 0; t < K; ++t)
            if (tap_off[static_cast<size_t>(t)] >= 0) acc += xp[tap_off[static_cast<size_t>(t)]] * wp[t];
        }
        out.v[static_cast<size_t>(b * os[0] + o * os[1] + of)] = acc;
      }
  });
  RoundAll(out);
  return out;
}

HValue DotGeneral(const HOp& op, const HValue& a, const HValue& b, const std::string& rtype) {
  HValue out = Make(rtype);
  const std::vector<int64_t> lb = ListAttr(op.attrs, "lhs_batching_dimensions"),
                             rb = ListAttr(op.attrs, "rhs_batching_dimensions"),
                             lc = ListAttr(op.attrs, "lhs_contracting_dimensions"),
                             rc = ListAttr(op.attrs, "rhs_contracting_dimensions");
  auto free_dims = [](const Shape& s, const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
    std::vector<int64_t> f;
    for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d)
      if (std::find(x.begin(), x.end(), d) == x.end() && std::find(y.begin(), y.end(), d) == y.end()) f.push_back(d);
    return f;
  };
  const auto lf = free_dims(a.shape, lb, lc), rf = free_dims(b.shape, rb, rc);
  auto ext = [](const Shape& s, const std::vector<int64_t>& d) {
    int64_t n = 1;
    for (int64_t x : d) n *= s[static_cast<size_t>(x)];
    return n;
  };
  const int64_t NB = ext(a.shape, lb), M = ext(a.shape, lf), N = ext(b.shape, rf), KC = ext(a.shape, lc);
  // Gather both operands as [batch, free, contract] / [batch, contract, free].
  auto flat = [](const HValue& v, const std::vector<int64_t>& d0, const std::vector<int64_t>& d1,
                 const std::vector<int64_t>& d2) {
    std::vector<int64_t> perm = d0;
    perm.insert(perm.end(), d1.begin(), d1.end());
    perm.insert(perm.end(), d2.begin(), d2.end());
    const auto st = RowMajorStrides(v.shape);
    Shape ps;
    for (int64_t p : perm) ps.push_back(v.shape[static_cast<size_t>(p)]);
    std::vector<double> r(v.v.size());
    ForEach(ps, [&](int64_t f, const std::vector<int64_t>& idx) {
      int64_t src = 0;
      for (size_t k = 0; k < perm.size(); ++k) src += idx[k] * st[static_cast<size_t>(perm[k])];
      r[static_cast<size_t>(f)] = v.v[static_cast<size_t>(src)];
    });
    return r;
  };
  const std::vector<double> A = flat(a, lb, lf, lc), Bm = flat(b, rb, rc, rf);
  for (int64_t bt = 0; bt < NB; ++bt)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t nn = 0; nn < N; ++nn) {
        double acc = 0;
        for (int64_t k = 0; k < KC; ++k)
          acc += A[static_cast<size_t>((bt * M + m) * KC + k)] * Bm[static_cast<size_t>((bt * KC + k) * N + nn)];
        out.v[static_cast<size_t>((bt * M + m) * N + nn)] = acc;
      }
  RoundAll(out);
  return out;
}

// `sizes_operand`: dynamic_gather's slice sizes (else the slice_sizes attribute).
HValue Gather(const HOp& op, const HValue& x, const HValue& idx, const std::string& rtype,
              const HValue* sizes_operand = nullptr) {
  HValue out = Make(rtype);
  const auto offset_dims = ListAttr(op.attrs, "offset_dims");
  const auto collapsed = ListAttr(op.attrs, "collapsed_slice_dims");
  const auto start_map = ListAttr(op.attrs, "start_index_map");
  const int64_t ivd = IntAttr(op.attrs, "index_vector_dim", 0);
  std::vector<int64_t> sizes = ArrayAttr(op.attrs, "slice_sizes");
  if (sizes_operand != nullptr) {
    sizes.clear();
    for (double d : sizes_operand->v) sizes.push_back(static_cast<int64_t>(d));
  }
  const auto xs = Strides(x.shape), is = Strides(idx.shape);
  std::vector<int64_t> batch_dims, operand_offset_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(out.shape.size()); ++d)
    if (std::find(offset_dims.begin(), offset_dims.end(), d) == offset_dims.end()) batch_dims.push_back(d);
  for (int64_t d = 0; d < static_cast<int64_t>(x.shape.size()); ++d)
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end()) operand_offset_dims.push_back(d);
  ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
    std::vector<int64_t> bi;
    bi.reserve(batch_dims.size());
    for (int64_t d : batch_dims) bi.push_back(o[static_cast<size_t>(d)]);
    std::vector<int64_t> start(x.shape.size(), 0);
    for (size_t k = 0; k < start_map.size(); ++k) {
      // Index vector element k at batch index bi (inserting k at index_vector_dim).
      int64_t flat = 0;
      size_t bpos = 0;
      for (int64_t d = 0; d < static_cast<int64_t>(idx.shape.size()); ++d) {
        const int64_t v = d == ivd ? static_cast<int64_t>(k) : bi[bpos++];
        flat += v * is[static_cast<size_t>(d)];
      }
      const int64_t od = start_map[k];
      const int64_t s = static_cast<int64_t>(idx.v[static_cast<size_t>(flat)]);
      start[static_cast<size_t>(od)] =
          std::clamp<int64_t>(s, 0, x.shape[static_cast<size_t>(od)] - sizes[static_cast<size_t>(od)]);
    }
    int64_t src = 0;
    for (size_t d = 0; d < x.shape.size(); ++d) src += start[d] * xs[d];
    for (size_t k = 0; k < offset_dims.size(); ++k)
      src += o[static_cast<size_t>(offset_dims[k])] * xs[static_cast<size_t>(operand_offset_dims[k])];
    out.v[static_cast<size_t>(f)] = x.v[static_cast<size_t>(src)];
  });
  return out;
}

HValue ReduceWindow(const HOp& op, const HValue& x, double init, const std::string& rtype) {
  HValue out = Make(rtype);
  const std::string body = BodyOp(op);
  const auto win = ArrayAttr(op.attrs, "window_dimensions");
  auto st = ArrayAttr(op.attrs, "window_strides");
  auto wd = ArrayAttr(op.attrs, "window_dilations");
  auto pad = PairsAttr(op.attrs, "padding");
  const size_t r = x.shape.size();
  if (st.empty()) st.assign(r, 1);
  if (wd.empty()) wd.assign(r, 1);
  const auto xs = Strides(x.shape);
  ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
    double acc = init;
    ForEach(win, [&](int64_t, const std::vector<int64_t>& k) {
      int64_t src = 0;
      for (size_t d = 0; d < r; ++d) {
        const int64_t p = o[d] * st[d] + k[d] * wd[d] - pad[d].first;
        if (p < 0 || p >= x.shape[d]) return;
        src += p * xs[d];
      }
      acc = Apply2(body, acc, x.v[static_cast<size_t>(src)], x.dtype);
    });
    out.v[static_cast<size_t>(f)] = acc;
  });
  RoundAll(out);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- HloInterpreter

Expected<std::unique_ptr<HloInterpreter>> HloInterpreter::Parse(std::string_view mlir) {
  auto in = std::unique_ptr<HloInterpreter>(new HloInterpreter());
  in->module_text_ = std::string(mlir);
  std::vector<std::string_view> lines = SplitLines(in->module_text_);
  size_t i = 0;
  for (; i < lines.size(); ++i) {
    std::string_view l = Trim(lines[i]);
    if (l.substr(0, 13) == "\"util.global\"") {
      const size_t s = l.find("sym_name = \"") + 12;
      const std::string sym(l.substr(s, l.find('"', s) - s));
      const size_t k = l.find("::\"") + 3;
      in->globals_[sym] = std::string(l.substr(k, l.find('"', k) - k));
    }
    if (l.substr(0, 15) == "func.func @main") break;
  }
  if (i == lines.size()) return InvalidArgument("no func.func @main");
  std::string_view head = Trim(lines[i]);
  const size_t open = head.find('(');
  const size_t close = Matching(head, open);
  for (const auto& a : SplitTop(head.substr(open + 1, close - open - 1))) {
    const size_t colon = a.find(':');
    std::string type = a.substr(colon + 1);
    const size_t brace = type.find(" {");
    if (brace != std::string::npos) type = type.substr(0, brace);
    VT_ASSIGN_OR_RETURN(auto t, ParseType(type));
    in->args_.push_back({a.substr(0, colon), t.first, t.second});
  }
  ++i;
  VT_ASSIGN_OR_RETURN(in->body_, ParseRegion(lines, &i, true));
  return in;
}

Status HloInterpreter::LoadParameters(std::string_view irpa) {
  VT_ASSIGN_OR_RETURN(IrpaReadArchive a, ReadIrpa(irpa));
  VT_ASSIGN_OR_RETURN(auto declared, ReadTensorLayouts(module_text_));
  for (const auto& [sym, key] : globals_) {
    const IrpaReadEntry* e = a.Find(key);
    if (e == nullptr) return NotFound("parameter '" + key + "' is not in the archive");
    // The global's type gives dtype and logical shape.
    const size_t p = module_text_.find("sym_name = \"" + sym + "\"");
    const size_t t = module_text_.find("type = ", p) + 7;
    VT_ASSIGN_OR_RETURN(auto ty, ParseType(std::string_view(module_text_).substr(t, 400)));
    HValue v{ty.first, ty.second, {}};
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(irpa.data()) + e->file_offset;
    if (!e->metadata.empty()) {
      VT_ASSIGN_OR_RETURN(Layout l, ParseLayout(e->metadata));
      auto d = declared.find(key);
      if (d == declared.end() || !(d->second == l))
        return InvalidArgument("parameter '" + key + "': archive layout differs from vt.tensor_layouts");
      if (l.shape() != v.shape) return InvalidArgument("parameter '" + key + "': layout shape differs");
      VT_ASSIGN_OR_RETURN(std::vector<float> f, UnpackFloats(bytes, e->length, l));
      v.v.assign(f.begin(), f.end());
    } else {
      const size_t es = DTypeSize(v.dtype);
      const int64_t n = NumElements(v.shape);
      if (e->length != static_cast<uint64_t>(n) * es) return InvalidArgument("parameter '" + key + "': size");
      for (int64_t k = 0; k < n; ++k) v.v.push_back(DecodeElem(v.dtype, bytes + k * static_cast<int64_t>(es)));
    }
    params_[key] = std::move(v);
  }
  return Status::Ok();
}

Expected<std::vector<Tensor>> HloInterpreter::Run(const std::vector<Tensor>& inputs) {
  if (inputs.size() != args_.size()) return InvalidArgument("wrong number of inputs");
  std::map<std::string, HValue> env;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor t = inputs[i].Contiguous();
    HValue v{args_[i].dtype, t.shape(), {}};
    bool fits = t.shape().size() == args_[i].shape.size() && t.dtype() == v.dtype;
    for (size_t d = 0; fits && d < t.shape().size(); ++d)
      fits = args_[i].shape[d] < 0 || args_[i].shape[d] == t.shape()[d];  // `?` takes any extent
    if (!fits) return InvalidArgument("input " + std::to_string(i) + " type");
    for (int64_t k = 0; k < t.numel(); ++k) v.v.push_back(t.GetDouble(k));
    env[args_[i].ref] = std::move(v);
  }
  VT_ASSIGN_OR_RETURN(std::vector<HValue> outs, RunRegion(body_, env));
  std::vector<Tensor> result;
  for (const HValue& v : outs) {
    Tensor t = Tensor::Empty(v.dtype, v.shape);
    for (int64_t k = 0; k < t.numel(); ++k) {
      uint8_t* p = static_cast<uint8_t*>(t.raw_mutable_data()) + k * static_cast<int64_t>(DTypeSize(v.dtype));
      const double x = v.v[static_cast<size_t>(k)];
      switch (v.dtype) {
        case DType::kFloat32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
        case DType::kFloat64: std::memcpy(p, &x, 8); break;
        case DType::kInt64: { int64_t q = static_cast<int64_t>(x); std::memcpy(p, &q, 8); break; }
        case DType::kInt32: { int32_t q = static_cast<int32_t>(x); std::memcpy(p, &q, 4); break; }
        case DType::kBool: *p = x != 0; break;
        default: return Unimplemented("output dtype");
      }
    }
    result.push_back(std::move(t));
  }
  return result;
}

Expected<std::vector<HValue>> HloInterpreter::RunRegion(const HRegion& r, std::map<std::string, HValue>& env) {
  for (const HOp& op : r) {
    if (op.name == "^bb0") continue;
    if (op.name == "func.return" || op.name == "stablehlo.return") {
      std::vector<HValue> out;
      for (const auto& o : op.operands) {
        auto it = env.find(o);
        if (it == env.end()) return InvalidArgument("undefined " + o);
        out.push_back(it->second);
      }
      return out;
    }
    VT_ASSIGN_OR_RETURN(std::vector<HValue> res, Eval(op, env));
    for (size_t k = 0; k < op.results.size() && k < res.size(); ++k) env[op.results[k]] = std::move(res[k]);
  }
  return InvalidArgument("region without a return");
}

Expected<std::vector<HValue>> HloInterpreter::Eval(const HOp& op, std::map<std::string, HValue>& env) {
  std::vector<const HValue*> in;
  for (const auto& o : op.operands) {
    auto it = env.find(o);
    if (it == env.end()) return InvalidArgument(op.name + ": undefined operand " + o);
    in.push_back(&it->second);
  }
  const std::string& n = op.name;
  std::string rtype = op.result_types.empty() ? "" : op.result_types[0];
  if (rtype.find('?') != std::string::npos) {
    VT_ASSIGN_OR_RETURN(auto t, ParseType(rtype));
    VT_ASSIGN_OR_RETURN(Shape s, RunTimeShape(op, in, t.second));
    rtype = StaticType(rtype, s);
  }
  auto one = [](HValue v) { return std::vector<HValue>{std::move(v)}; };
  if (n == "stablehlo.get_dimension_size") {
    HValue out = Make(rtype);
    out.v.at(0) = static_cast<double>(in.at(0)->shape.at(static_cast<size_t>(IntAttr(op.attrs, "dimension", 0))));
    return one(std::move(out));
  }
  if (n == "stablehlo.constant") {
    VT_ASSIGN_OR_RETURN(auto t, ParseType(rtype));
    VT_ASSIGN_OR_RETURN(HValue v, ParseDense(op.attrs, t.first, t.second));
    return one(std::move(v));
  }
  if (n == "util.global.load") {
    const size_t s = op.attrs.find("@\"") + 2;
    const std::string sym = op.attrs.substr(s, op.attrs.find('"', s) - s);
    auto p = params_.find(globals_[sym]);
    if (p == params_.end()) return NotFound("parameter for global " + sym + " (LoadParameters first)");
    return one(p->second);
  }
  if (IsBinary(n)) {
    HValue out = Make(rtype);
    for (size_t k = 0; k < out.v.size(); ++k) out.v[k] = Apply2(n, in[0]->v[k], in[1]->v[k], out.dtype);
    RoundAll(out);
    return one(std::move(out));
  }
  if (n == "stablehlo.compare") {
    HValue out = Make(rtype);
    const size_t p = op.attrs.find("<comparison_direction ") + 22;
    const std::string dir = op.attrs.substr(p, 2);
    for (size_t k = 0; k < out.v.size(); ++k) {
      const double a = in[0]->v[k], b = in[1]->v[k];
      bool r = dir == "EQ" ? a == b : dir == "NE" ? a != b : dir == "LT" ? a < b : dir == "LE" ? a <= b
             : dir == "GT" ? a > b : a >= b;
      out.v[k] = r;
    }
    return one(std::move(out));
  }
  if (n == "stablehlo.select") {
    HValue out = Make(rtype);
    for (size_t k = 0; k < out.v.size(); ++k) {
      const double p = in[0]->v.size() == 1 ? in[0]->v[0] : in[0]->v[k];
      out.v[k] = p != 0 ? in[1]->v[k] : in[2]->v[k];
    }
    return one(std::move(out));
  }
  if (n == "stablehlo.clamp") {
    HValue out = Make(rtype);
    for (size_t k = 0; k < out.v.size(); ++k) {
      const double lo = in[0]->v.size() == 1 ? in[0]->v[0] : in[0]->v[k];
      const double hi = in[2]->v.size() == 1 ? in[2]->v[0] : in[2]->v[k];
      out.v[k] = std::min(std::max(in[1]->v[k], lo), hi);
    }
    return one(std::move(out));
  }
  if (n == "stablehlo.convert") {
    HValue out = Make(rtype);
    for (size_t k = 0; k < out.v.size(); ++k) out.v[k] = in[0]->v[k];
    RoundAll(out);
    return one(std::move(out));
  }
  if (n == "stablehlo.reshape" || n == "stablehlo.dynamic_reshape") {
    HValue out = Make(rtype);
    out.v = in[0]->v;
    return one(std::move(out));
  }
  if (n == "stablehlo.transpose") {
    HValue out = Make(rtype);
    const auto perm = ArrayAttr(op.attrs, "permutation");
    const auto xs = Strides(in[0]->shape);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      int64_t src = 0;
      for (size_t d = 0; d < perm.size(); ++d) src += o[d] * xs[static_cast<size_t>(perm[d])];
      out.v[static_cast<size_t>(f)] = in[0]->v[static_cast<size_t>(src)];
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.broadcast_in_dim" || n == "stablehlo.dynamic_broadcast_in_dim") {
    HValue out = Make(rtype);
    const auto dims = ArrayAttr(op.attrs, "broadcast_dimensions");
    const auto xs = Strides(in[0]->shape);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      int64_t src = 0;
      for (size_t d = 0; d < dims.size(); ++d)
        if (in[0]->shape[d] != 1) src += o[static_cast<size_t>(dims[d])] * xs[d];
      out.v[static_cast<size_t>(f)] = in[0]->v[static_cast<size_t>(src)];
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.slice" || n == "stablehlo.real_dynamic_slice") {
    HValue out = Make(rtype);
    std::vector<int64_t> st = ArrayAttr(op.attrs, "start_indices"), sd = ArrayAttr(op.attrs, "strides");
    if (n == "stablehlo.real_dynamic_slice") {  // start and strides are operands
      st.clear();
      sd.clear();
      for (double x : in.at(1)->v) st.push_back(static_cast<int64_t>(x));
      for (double x : in.at(3)->v) sd.push_back(static_cast<int64_t>(x));
    }
    const auto xs = Strides(in[0]->shape);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      int64_t src = 0;
      for (size_t d = 0; d < o.size(); ++d) src += (st[d] + o[d] * sd[d]) * xs[d];
      out.v[static_cast<size_t>(f)] = in[0]->v[static_cast<size_t>(src)];
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.reverse") {
    HValue out = Make(rtype);
    const auto dims = ArrayAttr(op.attrs, "dimensions");
    const auto xs = Strides(in[0]->shape);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      int64_t src = 0;
      for (size_t d = 0; d < o.size(); ++d) {
        const bool rev = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
        src += (rev ? out.shape[d] - 1 - o[d] : o[d]) * xs[d];
      }
      out.v[static_cast<size_t>(f)] = in[0]->v[static_cast<size_t>(src)];
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.concatenate") {
    HValue out = Make(rtype);
    const int64_t dim = IntAttr(op.attrs, "dimension", 0);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      int64_t pos = o[static_cast<size_t>(dim)];
      for (const HValue* v : in) {
        if (pos < v->shape[static_cast<size_t>(dim)]) {
          std::vector<int64_t> idx = o;
          idx[static_cast<size_t>(dim)] = pos;
          const auto xs = Strides(v->shape);
          int64_t src = 0;
          for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * xs[d];
          out.v[static_cast<size_t>(f)] = v->v[static_cast<size_t>(src)];
          return;
        }
        pos -= v->shape[static_cast<size_t>(dim)];
      }
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.pad") {
    HValue out = Make(rtype);
    const auto lo = ArrayAttr(op.attrs, "edge_padding_low"), it = ArrayAttr(op.attrs, "interior_padding");
    std::fill(out.v.begin(), out.v.end(), in[1]->v[0]);
    const auto os = Strides(out.shape);
    ForEach(in[0]->shape, [&](int64_t f, const std::vector<int64_t>& x) {
      int64_t dst = 0;
      for (size_t d = 0; d < x.size(); ++d) {
        const int64_t p = lo[d] + x[d] * (it[d] + 1);
        if (p < 0 || p >= out.shape[d]) return;
        dst += p * os[d];
      }
      out.v[static_cast<size_t>(dst)] = in[0]->v[static_cast<size_t>(f)];
    });
    return one(std::move(out));
  }
  if (n == "stablehlo.gather") return one(Gather(op, *in[0], *in[1], rtype));
  if (n == "stablehlo.dynamic_gather") return one(Gather(op, *in[0], *in[1], rtype, in.at(2)));
  if (n == "stablehlo.dot_general") return one(DotGeneral(op, *in[0], *in[1], rtype));
  if (n == "stablehlo.convolution") return one(Convolution(op, *in[0], *in[1], rtype));
  if (n == "stablehlo.reduce") {
    HValue out = Make(rtype);
    const std::string body = BodyOp(op);
    const auto dims = ArrayAttr(op.attrs, "dimensions");
    std::fill(out.v.begin(), out.v.end(), in[1]->v[0]);
    const auto os = Strides(out.shape);
    ForEach(in[0]->shape, [&](int64_t f, const std::vector<int64_t>& x) {
      int64_t dst = 0;
      size_t k = 0;
      for (size_t d = 0; d < x.size(); ++d)
        if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) == dims.end()) dst += x[d] * os[k++];
      out.v[static_cast<size_t>(dst)] = Apply2(body, out.v[static_cast<size_t>(dst)], in[0]->v[static_cast<size_t>(f)], out.dtype);
    });
    RoundAll(out);
    return one(std::move(out));
  }
  if (n == "stablehlo.reduce_window") return one(ReduceWindow(op, *in[0], in[1]->v[0], rtype));
  if (n == "stablehlo.batch_norm_inference") {
    HValue out = Make(rtype);
    const double eps = FloatAttr(op.attrs, "epsilon");
    const int64_t fi = IntAttr(op.attrs, "feature_index", 1);
    ForEach(out.shape, [&](int64_t f, const std::vector<int64_t>& o) {
      const size_t c = static_cast<size_t>(o[static_cast<size_t>(fi)]);
      const double x = in[0]->v[static_cast<size_t>(f)];
      out.v[static_cast<size_t>(f)] =
          (x - in[3]->v[c]) / std::sqrt(in[4]->v[c] + static_cast<double>(static_cast<float>(eps))) * in[1]->v[c] + in[2]->v[c];
    });
    RoundAll(out);
    return one(std::move(out));
  }
  if (n == "stablehlo.if") {
    const bool p = in[0]->v.at(0) != 0;
    std::map<std::string, HValue> inner = env;
    return RunRegion(op.regions.at(p ? 0 : 1), inner);
  }
  if (in.size() == 1 && op.regions.empty()) {
    HValue out = Make(rtype);
    for (size_t k = 0; k < out.v.size(); ++k) {
      VT_ASSIGN_OR_RETURN(out.v[k], Apply1(n, in[0]->v[k], out.dtype));
    }
    RoundAll(out);
    return one(std::move(out));
  }
  return Unimplemented("interpreter: op " + n);
}

}  // namespace vt::testing
