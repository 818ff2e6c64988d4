#include "vtensor/format/planar_block_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "decoder_builder.h"
#include "vtensor/layout/dtype.h"

namespace vt {

namespace {

struct Planes {
  int64_t blocks = 0;  // per row
  int64_t q_offset = 0, q_bytes = 0;
  int64_t s_offset = 0, s_bytes = 0;
  int64_t z_offset = 0, z_bytes = 0;
  int64_t total = 0;
};

int64_t Align64(int64_t x) { return (x + 63) / 64 * 64; }

Expected<Planes> PlanesOf(const PlanarBlockQuantSpec& s) {
  auto bad = [](const std::string& m) { return InvalidArgument("planar block quant: " + m); };
  if (s.n < 1 || s.k < 1 || s.n > (int64_t{1} << 24) || s.k > (int64_t{1} << 24))
    return bad("n and k must be in [1, 2^24], got n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
  if (s.block_size < 1 || s.block_size > (int64_t{1} << 24))
    return bad("block_size " + std::to_string(s.block_size) + " must be in [1, 2^24]");
  if (s.scale_encoding != Encoding::kF32 && s.scale_encoding != Encoding::kF16)
    return bad(std::string("scale_encoding must be f32 or f16, got ") +
               GetEncodingTraits(s.scale_encoding).name);
  Planes p;
  p.blocks = (s.k + s.block_size - 1) / s.block_size;
  p.q_bytes = (s.n * s.k + 1) / 2;
  p.s_offset = Align64(p.q_bytes);
  p.s_bytes = s.n * p.blocks * GetEncodingTraits(s.scale_encoding).block_bytes;
  p.total = p.s_offset + p.s_bytes;
  if (s.zero_point) {
    p.z_offset = Align64(p.total);
    p.z_bytes = (s.n * p.blocks + 1) / 2;
    p.total = p.z_offset + p.z_bytes;
  }
  return p;
}

void AddField(vtensor::StructTypeProto& t, const char* name, const char* enc,
              const std::vector<int64_t>& shape, int64_t offset) {
  auto* f = t.add_fields();
  f->set_name(name);
  f->set_encoding(enc);
  for (int64_t d : shape) f->add_shape()->set_dim_value(d);
  f->set_offset(offset);
  f->set_alignment(64);
}

std::string BuildDecoder(const PlanarBlockQuantSpec& s, const Planes& p, const std::string& name) {
  std::vector<std::string> inputs = {"quantized", "scales"};
  if (s.zero_point) inputs.push_back("zero_points");
  decoder::FunctionBuilder f(name, inputs);
  const int64_t padded_k = p.blocks * s.block_size;
  // Quantized plane: nibbles -> [N, K] -> padded to whole blocks -> [N, blocks, B].
  std::string q = f.Nibbles(f.ByteIndex("quantized", "q_idx"), !s.zero_point, true, "q_flat");
  if (p.q_bytes * 2 != s.n * s.k) q = f.Slice(q, {0}, {s.n * s.k}, {0}, "q_trim");
  q = f.Reshape(q, {s.n, s.k}, "q_nk");
  if (padded_k != s.k) {
    f.Op("Pad", {q, f.ConstI64("q_pads", {0, 0, 0, padded_k - s.k})}, "q_pad");
    q = "q_pad";
  }
  q = f.Reshape(q, {s.n, p.blocks, s.block_size}, "q_blocks");
  if (s.zero_point) {
    std::string z = f.Nibbles(f.ByteIndex("zero_points", "z_idx"), false, true, "z_flat");
    if (p.z_bytes * 2 != s.n * p.blocks) z = f.Slice(z, {0}, {s.n * p.blocks}, {0}, "z_trim");
    f.Op("Sub", {q, f.Reshape(z, {s.n, p.blocks, 1}, "z_blocks")}, "q_centered");
    q = "q_centered";
  }
  std::string sc = "scales";
  if (s.scale_encoding != Encoding::kF32) {
    decoder::FunctionBuilder::AttrInt(f.Op("Cast", {sc}, "scales_f32"), "to", onnx::TensorProto::FLOAT);
    sc = "scales_f32";
  }
  f.Op("Mul", {q, f.Reshape(sc, {s.n, p.blocks, 1}, "s_blocks")}, "x_blocks");
  const bool trim = padded_k != s.k;
  std::string x = f.Reshape("x_blocks", {s.n, padded_k}, trim || s.logical_kn ? "x_padded" : "value");
  if (trim) x = f.Slice(x, {0}, {s.k}, {1}, s.logical_kn ? "x_nk" : "value");
  if (s.logical_kn) decoder::FunctionBuilder::AttrInts(f.Op("Transpose", {x}, "value"), "perm", {1, 0});
  return f.Serialize();
}

// Scale rounded through scale_encoding.
float RoundScale(float v, Encoding e) { return e == Encoding::kF16 ? HalfToFloat(FloatToHalf(v)) : v; }

int RoundClamp(float v, int lo, int hi) {
  float r = std::nearbyint(v);
  return static_cast<int>(std::min<float>(std::max<float>(r, static_cast<float>(lo)), static_cast<float>(hi)));
}

void PutNibble(uint8_t* base, int64_t i, int v) {
  base[i / 2] = static_cast<uint8_t>(base[i / 2] | ((v & 15) << ((i & 1) * 4)));
}
int GetNibble(const uint8_t* base, int64_t i, bool is_signed) {
  int v = (base[i / 2] >> ((i & 1) * 4)) & 15;
  return is_signed && v >= 8 ? v - 16 : v;
}

}  // namespace

Expected<vtensor::StructTypeProto> PlanarBlockQuantType(const PlanarBlockQuantSpec& s,
                                                        const std::string& name,
                                                        int64_t format_version) {
  VT_ASSIGN_OR_RETURN(Planes p, PlanesOf(s));
  if (name.empty()) return InvalidArgument("planar block quant: empty type name");
  vtensor::StructTypeProto t;
  t.set_name(name);
  t.set_format_version(format_version);
  AddField(t, "quantized", s.zero_point ? "u4" : "i4", {s.n, s.k}, 0);
  AddField(t, "scales", GetEncodingTraits(s.scale_encoding).name, {s.n, p.blocks}, p.s_offset);
  if (s.zero_point) AddField(t, "zero_points", "u4", {s.n, p.blocks}, p.z_offset);
  t.set_byte_size(p.total);
  t.set_doc_string("planar int4 blocks: DequantizeLinear(quantized, scales" +
                   std::string(s.zero_point ? ", zero_points" : "") + ", axis=1, block_size=" +
                   std::to_string(s.block_size) + ")" + (s.logical_kn ? ", transposed to [K, N]" : ""));
  t.set_decoder(BuildDecoder(s, p, "decode_" + name));
  return t;
}

Expected<std::vector<uint8_t>> PackPlanarBlockQuant(const float* logical, const PlanarBlockQuantSpec& s) {
  VT_ASSIGN_OR_RETURN(Planes p, PlanesOf(s));
  std::vector<uint8_t> out(static_cast<size_t>(p.total), 0);
  uint8_t* q = out.data();
  uint8_t* z = out.data() + p.z_offset;
  auto at = [&](int64_t n, int64_t k) { return logical[s.logical_kn ? k * s.n + n : n * s.k + k]; };
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t b = 0; b < p.blocks; ++b) {
      const int64_t k0 = b * s.block_size, k1 = std::min(s.k, k0 + s.block_size);
      float lo = 0, hi = 0;
      for (int64_t k = k0; k < k1; ++k) {
        const float v = at(n, k);
        if (!std::isfinite(v))
          return InvalidArgument("planar block quant: non-finite value at logical index " +
                                 (s.logical_kn ? "[" + std::to_string(k) + ", " + std::to_string(n) + "]"
                                               : "[" + std::to_string(n) + ", " + std::to_string(k) + "]"));
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const float raw = s.zero_point ? (hi - lo) / 15.0f : std::max(hi, -lo) / 7.0f;
      const float scale = RoundScale(raw, s.scale_encoding);
      if (!std::isfinite(scale))
        return InvalidArgument("planar block quant: row " + std::to_string(n) + " block " +
                               std::to_string(b) + ": scale not finite in " +
                               GetEncodingTraits(s.scale_encoding).name);
      const int64_t sb = n * p.blocks + b;
      if (s.scale_encoding == Encoding::kF16) {
        const uint16_t h = FloatToHalf(scale);
        std::memcpy(out.data() + p.s_offset + sb * 2, &h, 2);
      } else {
        std::memcpy(out.data() + p.s_offset + sb * 4, &scale, 4);
      }
      const int zp = s.zero_point && scale != 0 ? RoundClamp(-lo / scale, 0, 15) : 0;
      if (s.zero_point) PutNibble(z, sb, zp);
      if (scale == 0) continue;  // all zeros: q = zp (0 for i4; zp is 0 here too)
      for (int64_t k = k0; k < k1; ++k)
        PutNibble(q, n * s.k + k, s.zero_point ? RoundClamp(at(n, k) / scale + zp, 0, 15)
                                               : RoundClamp(at(n, k) / scale, -8, 7));
    }
  }
  return out;
}

Expected<std::vector<float>> UnpackPlanarBlockQuant(const uint8_t* bytes, size_t size,
                                                    const PlanarBlockQuantSpec& s) {
  VT_ASSIGN_OR_RETURN(Planes p, PlanesOf(s));
  if (size < static_cast<size_t>(p.total))
    return InvalidArgument("planar block quant: payload has " + std::to_string(size) +
                           " bytes, the type needs " + std::to_string(p.total));
  std::vector<float> out(static_cast<size_t>(s.n * s.k));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k) {
      const int64_t sb = n * p.blocks + k / s.block_size;
      float scale;
      if (s.scale_encoding == Encoding::kF16) {
        uint16_t h;
        std::memcpy(&h, bytes + p.s_offset + sb * 2, 2);
        scale = HalfToFloat(h);
      } else {
        std::memcpy(&scale, bytes + p.s_offset + sb * 4, 4);
      }
      const int zp = s.zero_point ? GetNibble(bytes + p.z_offset, sb, false) : 0;
      const int qv = GetNibble(bytes, n * s.k + k, !s.zero_point);
      out[static_cast<size_t>(s.logical_kn ? k * s.n + n : n * s.k + k)] =
          static_cast<float>(qv - zp) * scale;
    }
  return out;
}

}  // namespace vt
