#include "vtensor/format/struct_decoder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <numeric>

#include "decoder_builder.h"
#include "vtensor/format/compiled_model.h"
#include "vtensor/layout/layout_pack.h"

namespace vt {

namespace {

using decoder::FunctionBuilder;

// int8 value of every byte (two's complement).
std::vector<float> Int8Table() {
  std::vector<float> t(256);
  for (int b = 0; b < 256; ++b) t[b] = static_cast<float>(b < 128 ? b : b - 256);
  return t;
}

// IEEE binary32 from its little-endian bytes b0..b3 (int32 index tensors of one shape),
// bit-exact: value = sign * (m + implicit) * 2^(max(e,1) - 150) with m < 2^23 and the product
// an integer < 2^24 times a power of two, exact (subnormals included); e == 255 is Inf / NaN.
std::string FloatFromBytes(FunctionBuilder& b, const std::string* bytes, const std::string& out) {
  std::vector<float> e_hi(256), e_lo(256), m_hi(256), sign(256), pow2(256), implicit(256),
      nan_probe(256), ident(256);
  for (int v = 0; v < 256; ++v) {
    e_hi[v] = static_cast<float>((v & 127) * 2);
    e_lo[v] = static_cast<float>(v >> 7);
    m_hi[v] = static_cast<float>((v & 127) * 65536);
    sign[v] = v >> 7 ? -1.0f : 1.0f;
    pow2[v] = v == 255 ? std::numeric_limits<float>::infinity() : std::ldexp(1.0f, std::max(v, 1) - 150);
    implicit[v] = v > 0 ? 8388608.0f : 0.0f;
    nan_probe[v] = v == 255 ? 0.0f : -16777216.0f;  // + m > 0 only for NaN
    ident[v] = static_cast<float>(v);
  }
  const std::string e = out + "_e";
  b.Op("Add", {b.Lookup(bytes[3], e_hi, out + "_ehi"), b.Lookup(bytes[2], e_lo, out + "_elo")}, e);
  FunctionBuilder::AttrInt(b.Op("Cast", {e}, out + "_ei"), "to", onnx::TensorProto::INT32);
  b.Op("Mul", {b.Lookup(bytes[1], ident, out + "_b1"), b.ConstF32(out + "_256", {256.0f}, {})},
       out + "_m1");
  b.Op("Add", {b.Lookup(bytes[2], m_hi, out + "_m2"), out + "_m1"}, out + "_m21");
  b.Op("Add", {out + "_m21", b.Lookup(bytes[0], ident, out + "_b0")}, out + "_m");
  b.Op("Add", {out + "_m", b.Lookup(out + "_ei", implicit, out + "_imp")}, out + "_mant");
  b.Op("Mul", {out + "_mant", b.Lookup(out + "_ei", pow2, out + "_pow2")}, out + "_mag");
  b.Op("Mul", {out + "_mag", b.Lookup(bytes[3], sign, out + "_sign")}, out + "_num");
  b.Op("Add", {b.Lookup(out + "_ei", nan_probe, out + "_probe"), out + "_m"}, out + "_nanm");
  b.Op("Greater", {out + "_nanm", b.ConstF32(out + "_zero", {0.0f}, {})}, out + "_isnan");
  b.Op("Where", {out + "_isnan",
                 b.ConstF32(out + "_nan", {std::numeric_limits<float>::quiet_NaN()}, {}),
                 out + "_num"},
       out);
  return out;
}

// Column c of a [rows, cols] index tensor as [rows, 1].
std::string Col(FunctionBuilder& b, const std::string& idx, int64_t c, const std::string& out) {
  return b.Slice(idx, {c}, {c + 1}, {1}, out);
}

// Appends nodes turning input "data" (uint8 bytes of a sub-byte or block encoding) into the
// flat float32 physical elements "phys" (PhysicalElements(l) values, block after block).
Status DecodeBlocks(FunctionBuilder& b, const Layout& l) {
  const Encoding enc = l.encoding();
  const auto& t = GetEncodingTraits(enc);
  // Every encoding is listed (no default): adding one to layout/encoding.h stops the build
  // here until its decoder is written or declined.
  switch (enc) {
    case Encoding::kI4:
    case Encoding::kU4:
      b.Nibbles(b.ByteIndex("data", "bytes"), enc == Encoding::kI4, /*interleave=*/true, "phys");
      return Status::Ok();
    case Encoding::kQ8_0:
    case Encoding::kQ4_0:
    case Encoding::kQ4Zp32:
      break;
    case Encoding::kQ4_K:
      return Unimplemented(std::string("decoder: encoding ") + t.name +
                           " is not generated (sub-block scales packed in 6-bit fields)");
    case Encoding::kF4E2M1:
      return Unimplemented(std::string("decoder: encoding ") + t.name + " is not generated");
    case Encoding::kUnspecified:
    case Encoding::kF32:
    case Encoding::kF16:
    case Encoding::kBF16:
    case Encoding::kI8:
    case Encoding::kU8:
    case Encoding::kF8E4M3FN:
    case Encoding::kF8E4M3FNUZ:
    case Encoding::kF8E5M2:
    case Encoding::kF8E5M2FNUZ:
    case Encoding::kCount:
      return Internal(std::string("decoder: encoding ") + t.name + " has no blocks to decode");
  }
  const int64_t blocks = l.StorageBytes() / t.block_bytes;
  b.Reshape("data", {blocks, t.block_bytes}, "block_bytes");
  const std::string idx = b.ByteIndex("block_bytes", "block_idx");
  std::string q, scale;
  if (enc == Encoding::kQ8_0) {  // f16 d, int8 qs[32]: x = d * q
    scale = b.HalfFromBytes(Col(b, idx, 0, "d_lo"), Col(b, idx, 1, "d_hi"), "scale");
    q = b.Lookup(b.Slice(idx, {2}, {34}, {1}, "qs"), Int8Table(), "q");
  } else if (enc == Encoding::kQ4_0) {  // f16 d, qs[16] (j low, j+16 high): x = d * (q - 8)
    scale = b.HalfFromBytes(Col(b, idx, 0, "d_lo"), Col(b, idx, 1, "d_hi"), "scale");
    b.Nibbles(b.Slice(idx, {2}, {18}, {1}, "qs"), false, false, "q_u");
    b.Op("Sub", {"q_u", b.ConstF32("eight", {8.0f}, {})}, "q");
    q = "q";
  } else {  // q4zp32: f32 scale, u8 zp (low nibble), 3 reserved, qs[16] in ONNX INT4 packing
    const std::string bytes[4] = {Col(b, idx, 0, "s0"), Col(b, idx, 1, "s1"),
                                  Col(b, idx, 2, "s2"), Col(b, idx, 3, "s3")};
    scale = FloatFromBytes(b, bytes, "scale");
    b.Nibbles(b.Slice(idx, {8}, {24}, {1}, "qs"), false, true, "q_flat");
    b.Reshape("q_flat", {blocks, 32}, "q_u");
    b.Nibbles(Col(b, idx, 4, "zp_byte"), false, false, "zp_nibbles");
    b.Op("Sub", {"q_u", Col(b, "zp_nibbles", 0, "zp")}, "q");
    q = "q";
  }
  b.Op("Mul", {scale, q}, "block_values");
  b.Reshape("block_values", {-1}, "phys");
  return Status::Ok();
}

}  // namespace

Expected<std::string> BuildLayoutDecoder(const Layout& l, const std::string& name) {
  const auto& t = GetEncodingTraits(l.encoding());
  if (t.block_bytes == 0) return Unimplemented("decoder: layout has no encoding");
  const bool scalar = t.block_elems == 1 && !t.has_scale;
  // Digit counts per level (canonical order is outermost first), and density.
  const auto levels = l.levels();
  Shape padded = l.padded_shape();
  std::vector<int64_t> counts(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    int64_t parent = 0;
    for (const auto& o : levels)
      if (o.dim == levels[i].dim && o.tile > levels[i].tile && (parent == 0 || o.tile < parent))
        parent = o.tile;
    counts[i] = parent ? parent / levels[i].tile
                       : (padded[static_cast<size_t>(levels[i].dim)] + levels[i].tile - 1) / levels[i].tile;
  }
  int64_t inner = 1;
  for (size_t i = levels.size(); i-- > 0;) {
    // A row gap (e.g. i4 rows rounded up to whole bytes: strides [34, 1] for [7, 33]) widens
    // the next inner level when that level is its dim's outermost: the extra digits land in
    // the padding the final Slice drops.
    if (levels[i].stride != inner && i + 1 < levels.size() && inner > 0 &&
        levels[i].stride % (inner / counts[i + 1]) == 0) {
      const auto& in = levels[i + 1];
      bool outermost = true;
      for (const auto& o : levels) outermost = outermost && !(o.dim == in.dim && o.tile > in.tile);
      const int64_t wider = levels[i].stride / (inner / counts[i + 1]);
      if (outermost && wider > counts[i + 1]) {
        inner = inner / counts[i + 1] * wider;
        counts[i + 1] = wider;
        padded[static_cast<size_t>(in.dim)] = wider * in.tile;
      }
    }
    if (levels[i].stride != inner)
      return Unimplemented("decoder: level " + std::to_string(i) + " is not densely nested");
    inner *= counts[i];
  }
  // Target order: logical dims in order, each dim's levels from largest tile to smallest.
  std::vector<int64_t> perm(levels.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    const auto& x = levels[static_cast<size_t>(a)];
    const auto& y = levels[static_cast<size_t>(b)];
    return x.dim != y.dim ? x.dim < y.dim : x.tile > y.tile;
  });

  FunctionBuilder f(name, {"data"});
  std::string cur = "data";
  if (!scalar) {
    VT_RETURN_IF_ERROR(DecodeBlocks(f, l));
    cur = "phys";
  }
  const int64_t total = inner;
  if (l.offset() != 0 || PhysicalElements(l) != total)
    cur = f.Slice(cur, {l.offset()}, {l.offset() + total}, {0}, "flat");
  if (levels.empty()) {
    f.Reshape(cur, l.shape(), "value");
    return f.Serialize();
  }
  f.Reshape(cur, counts, "by_level");
  FunctionBuilder::AttrInts(f.Op("Transpose", {"by_level"}, "by_dim"), "perm", perm);
  const bool slice = padded != l.shape();
  f.Reshape("by_dim", padded, slice ? "padded" : "value");
  if (slice) {
    std::vector<int64_t> axes(l.shape().size());
    std::iota(axes.begin(), axes.end(), 0);
    f.Slice("padded", std::vector<int64_t>(l.shape().size(), 0), l.shape(), axes, "value");
  }
  return f.Serialize();
}

Expected<std::vector<Tensor>> DecoderInputs(const vtensor::StructTypeProto& t,
                                            const uint8_t* bytes, size_t size) {
  std::vector<Tensor> out;
  for (int i = 0; i < t.fields_size(); ++i) {
    const auto& f = t.fields(i);
    const std::string where = "type '" + t.name() + "' fields[" + std::to_string(i) + "] '" + f.name() + "'";
    auto n = FieldBytes(f);
    if (!n.ok()) return n.take_status().WithContext(where);
    if (f.offset() < 0 || static_cast<uint64_t>(f.offset()) > size ||
        static_cast<uint64_t>(*n) > size - static_cast<uint64_t>(f.offset()))
      return InvalidArgument(where + ": bytes [" + std::to_string(f.offset()) + ", " +
                             std::to_string(f.offset() + *n) + ") outside the " +
                             std::to_string(size) + "-byte payload");
    const auto& traits = GetEncodingTraits(*EncodingFromName(f.encoding()));
    Tensor x;
    if (traits.block_elems == 1 && !traits.has_scale && traits.dtype != DType::kUndefined) {
      Shape shape;
      for (const auto& d : f.shape()) shape.push_back(d.dim_value());
      x = Tensor::Empty(traits.dtype, shape);
    } else {
      x = Tensor::Empty(DType::kUInt8, {*n});
    }
    if (*n > 0) std::memcpy(x.raw_mutable_data(), bytes + f.offset(), static_cast<size_t>(*n));
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace vt
