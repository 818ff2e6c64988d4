#include "decoder_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vtensor/format/struct_decoder.h"

namespace vt::decoder {

FunctionBuilder::FunctionBuilder(const std::string& name, const std::vector<std::string>& inputs) {
  f_.set_name(name);
  f_.set_domain(kDecoderDomain);
  for (const auto& in : inputs) f_.add_input(in);
  f_.add_output("value");
  auto* os = f_.add_opset_import();
  os->set_domain("");
  os->set_version(kDecoderOpset);
}

std::string FunctionBuilder::ConstI64(const std::string& out, const std::vector<int64_t>& v) {
  auto* n = Op("Constant", {}, out);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
  return out;
}

std::string FunctionBuilder::ConstF32(const std::string& out, const std::vector<float>& v,
                                      const std::vector<int64_t>& dims) {
  auto* n = Op("Constant", {}, out);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
  return out;
}

onnx::NodeProto* FunctionBuilder::Op(const char* op, const std::vector<std::string>& in,
                                     const std::string& out) {
  auto* n = f_.add_node();
  n->set_op_type(op);
  for (const auto& s : in) n->add_input(s);
  n->add_output(out);
  return n;
}

void FunctionBuilder::AttrInt(onnx::NodeProto* n, const char* name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void FunctionBuilder::AttrInts(onnx::NodeProto* n, const char* name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

std::string FunctionBuilder::Slice(const std::string& x, const std::vector<int64_t>& starts,
                                   const std::vector<int64_t>& ends,
                                   const std::vector<int64_t>& axes, const std::string& out) {
  Op("Slice", {x, ConstI64(out + "_starts", starts), ConstI64(out + "_ends", ends),
               ConstI64(out + "_axes", axes)},
     out);
  return out;
}

std::string FunctionBuilder::Reshape(const std::string& x, const std::vector<int64_t>& shape,
                                     const std::string& out) {
  Op("Reshape", {x, ConstI64(out + "_shape", shape)}, out);
  return out;
}

std::string FunctionBuilder::ByteIndex(const std::string& bytes, const std::string& out) {
  AttrInt(Op("Cast", {bytes}, out), "to", onnx::TensorProto::INT32);
  return out;
}

std::string FunctionBuilder::Lookup(const std::string& idx, const std::vector<float>& table,
                                    const std::string& out) {
  Op("Gather", {ConstF32(out + "_table", table, {static_cast<int64_t>(table.size())}), idx}, out);
  return out;
}

std::string FunctionBuilder::HalfFromBytes(const std::string& lo, const std::string& hi,
                                           const std::string& out) {
  // hi = s eeeee mm, lo = mmmmmmmm. value = (base[hi] + lo) * scale[hi], where base holds the
  // two high mantissa bits and the implicit 1 (1024) of normal numbers, and scale the sign and
  // 2^(max(e,1) - 25). Every product is an integer < 2048 times a power of two >= 2^-24, hence
  // exact in float32. e == 31 scales by infinity; a non-zero mantissa there is NaN.
  std::vector<float> base(256), scale(256), nan_probe(256);
  for (int h = 0; h < 256; ++h) {
    const int sign = h >> 7, e = (h >> 2) & 31, mh = h & 3;
    base[h] = static_cast<float>(mh * 256 + (e > 0 ? 1024 : 0));
    const float mag = e == 31 ? std::numeric_limits<float>::infinity()
                              : std::ldexp(1.0f, std::max(e, 1) - 25);
    scale[h] = sign ? -mag : mag;
    nan_probe[h] = e == 31 ? static_cast<float>(mh * 256) : -1024.0f;  // > 0 only for NaN
  }
  const std::string lof = out + "_lo";
  AttrInt(Op("Cast", {lo}, lof), "to", onnx::TensorProto::FLOAT);
  Op("Add", {Lookup(hi, base, out + "_base"), lof}, out + "_mant");
  Op("Mul", {out + "_mant", Lookup(hi, scale, out + "_scale")}, out + "_num");
  Op("Add", {Lookup(hi, nan_probe, out + "_probe"), lof}, out + "_nanm");
  Op("Greater", {out + "_nanm", ConstF32(out + "_zero", {0.0f}, {})}, out + "_isnan");
  Op("Where", {out + "_isnan",
               ConstF32(out + "_nan", {std::numeric_limits<float>::quiet_NaN()}, {}),
               out + "_num"},
     out);
  return out;
}

std::string FunctionBuilder::Nibbles(const std::string& idx, bool is_signed, bool interleave,
                                     const std::string& out) {
  std::vector<float> lo(256), hi(256);
  for (int b = 0; b < 256; ++b) {
    int l = b & 15, h = b >> 4;
    if (is_signed) {
      l = l >= 8 ? l - 16 : l;
      h = h >= 8 ? h - 16 : h;
    }
    lo[b] = static_cast<float>(l);
    hi[b] = static_cast<float>(h);
  }
  std::string l = Lookup(idx, lo, out + "_l"), h = Lookup(idx, hi, out + "_h");
  if (!interleave) {
    AttrInt(Op("Concat", {l, h}, out), "axis", -1);
    return out;
  }
  const std::string axes = ConstI64(out + "_axes", {-1});
  Op("Unsqueeze", {l, axes}, out + "_l1");
  Op("Unsqueeze", {h, axes}, out + "_h1");
  AttrInt(Op("Concat", {out + "_l1", out + "_h1"}, out + "_pairs"), "axis", -1);
  return Reshape(out + "_pairs", {-1}, out);
}

}  // namespace vt::decoder
