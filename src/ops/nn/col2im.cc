// Col2Im (ONNX Operators.md "Col2Im", opset 18): the inverse of im2col. Input
// [N, C * prod(block_shape), L] holds one column per block position (positions enumerated
// lexicographically over the k spatial axes); image_shape and block_shape are int64 [k].
// Attributes dilations [k], pads [2k] (begins then ends), strides [k]. Output
// [N, C, *image_shape]: every column element is added at its position in the padded image
// (overlapping blocks sum) and the padding is cut off.
//
// Sums are taken in the element type: float32 and float64 natively, float16/bfloat16 in
// float32 rounded once at the end, integers wrap (two's complement, so signed and unsigned
// share one unsigned adder), bool is a logical or, complex adds each component. Strings have
// no sum; the operator text calls T "numeric", so they are refused.
#include <cstring>
#include <string>

#include "ops/common/shape_util.h"

namespace vt::ops {
namespace {

struct Col2ImGeometry {
  int64_t n = 0, c = 0, k = 0;  // batch, channels, spatial axes
  std::vector<int64_t> image, block, dil, pad_begin, stride, blocks;  // blocks: per axis
  int64_t block_size = 1, num_blocks = 1, image_size = 1;
};

// Adds column element `src` of input row (c, kernel offset) into the image. `comps` scalars
// per element (2 for complex).
template <typename T, typename Add>
void Col2ImCore(const Col2ImGeometry& g, const T* in, T* out, int comps, Add add) {
  const size_t k = static_cast<size_t>(g.k);
  std::vector<int64_t> kp(k), bp(k);
  for (int64_t nc = 0; nc < g.n * g.c; ++nc) {
    T* img = out + nc * g.image_size * comps;
    for (int64_t kr = 0; kr < g.block_size; ++kr) {
      for (size_t d = k, rem = static_cast<size_t>(kr); d-- > 0;) {
        kp[d] = static_cast<int64_t>(rem) % g.block[d];
        rem /= static_cast<size_t>(g.block[d]);
      }
      const T* col = in + (nc * g.block_size + kr) * g.num_blocks * comps;
      for (int64_t l = 0; l < g.num_blocks; ++l) {
        int64_t rem = l, pos = 0, scale = 1;
        bool inside = true;
        for (size_t d = k; d-- > 0;) {
          bp[d] = rem % g.blocks[d];
          rem /= g.blocks[d];
          const int64_t p = bp[d] * g.stride[d] - g.pad_begin[d] + kp[d] * g.dil[d];
          if (p < 0 || p >= g.image[d]) inside = false;
          pos += p * scale;
          scale *= g.image[d];
        }
        if (!inside) continue;
        for (int q = 0; q < comps; ++q) add(img[pos * comps + q], col[l * comps + q]);
      }
    }
  }
}

Expected<Col2ImGeometry> Col2ImPlan(KernelContext& ctx, const Tensor& x) {
  Col2ImGeometry g;
  VT_ASSIGN_OR_RETURN(g.image, ReadIntList(ctx, 1, "image_shape"));
  VT_ASSIGN_OR_RETURN(g.block, ReadIntList(ctx, 2, "block_shape"));
  g.k = static_cast<int64_t>(g.image.size());
  const size_t k = g.image.size();
  if (ctx.input(1).dtype() != DType::kInt64 || ctx.input(2).dtype() != DType::kInt64)
    return ctx.Error("inputs 'image_shape' (1) and 'block_shape' (2) must be int64");
  if (k < 1 || g.block.size() != k)
    return ctx.Error("input 'image_shape' (1) has " + std::to_string(k) +
                     " values and input 'block_shape' (2) has " +
                     std::to_string(g.block.size()) + "; they must match and be non-empty");
  if (x.rank() != 3)
    return ctx.Error("input 'input' (0) must be [N, C * prod(block_shape), L], got " +
                     ShapeToString(x.shape()));
  const Node& node = ctx.node();
  auto per_axis = [&](const char* name, size_t count, int64_t dflt,
                      int64_t min) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v = node.GetInts(name);
    if (v.empty()) v.assign(count, dflt);
    if (v.size() != count)
      return ctx.Error(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                       " values, expected " + std::to_string(count));
    for (int64_t e : v)
      if (e < min)
        return ctx.Error(std::string("attribute '") + name + "' value " + std::to_string(e) +
                         " is below " + std::to_string(min));
    return v;
  };
  VT_ASSIGN_OR_RETURN(g.dil, per_axis("dilations", k, 1, 1));
  VT_ASSIGN_OR_RETURN(g.stride, per_axis("strides", k, 1, 1));
  VT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, per_axis("pads", 2 * k, 0, 0));
  g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(k));
  g.blocks.resize(k);
  for (size_t d = 0; d < k; ++d) {
    if (g.image[d] < 0 || g.block[d] < 1)
      return ctx.Error("axis " + std::to_string(d) + ": image_shape " +
                       std::to_string(g.image[d]) + " and block_shape " +
                       std::to_string(g.block[d]) + " must be >= 0 and >= 1");
    const int64_t span = g.dil[d] * (g.block[d] - 1) + 1;
    const int64_t padded = g.image[d] + pads[d] + pads[d + k];
    g.blocks[d] = padded >= span ? (padded - span) / g.stride[d] + 1 : 0;
    g.block_size *= g.block[d];
    g.num_blocks *= g.blocks[d];
    g.image_size *= g.image[d];
  }
  g.n = x.dim(0);
  if (x.dim(1) % g.block_size != 0)
    return ctx.Error("input 'input' (0) dim 1 = " + std::to_string(x.dim(1)) +
                     " is not a multiple of prod(block_shape) = " + std::to_string(g.block_size));
  g.c = x.dim(1) / g.block_size;
  if (x.dim(2) != g.num_blocks)
    return ctx.Error("input 'input' (0) has L = " + std::to_string(x.dim(2)) +
                     " columns; image_shape, block_shape, dilations, pads and strides give " +
                     std::to_string(g.num_blocks) + " block positions");
  return g;
}

Status Col2ImCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  VT_ASSIGN_OR_RETURN(Col2ImGeometry g, Col2ImPlan(ctx, x0));
  const DType dt = x0.dtype();
  if (dt == DType::kString)
    return ctx.Unsupported("input 'input' (0) is a string tensor; Col2Im sums overlapping "
                           "blocks, which the operator defines for numeric types only");
  Shape out_shape{g.n, g.c};
  out_shape.insert(out_shape.end(), g.image.begin(), g.image.end());
  const bool low_float = dt == DType::kFloat16 || dt == DType::kBFloat16;
  const Tensor x = low_float ? CastTensor(x0, DType::kFloat32) : x0.Contiguous();
  Tensor acc = Tensor::Zeros(low_float ? DType::kFloat32 : dt, out_shape);
  auto plus = [](auto& o, auto v) { o = static_cast<std::remove_reference_t<decltype(o)>>(o + v); };
  switch (x.dtype()) {
    case DType::kFloat32: Col2ImCore(g, x.data<float>(), acc.mutable_data<float>(), 1, plus); break;
    case DType::kFloat64: Col2ImCore(g, x.data<double>(), acc.mutable_data<double>(), 1, plus); break;
    case DType::kComplex64:
      Col2ImCore(g, static_cast<const float*>(x.raw_data()),
                 static_cast<float*>(acc.raw_mutable_data()), 2, plus);
      break;
    case DType::kComplex128:
      Col2ImCore(g, static_cast<const double*>(x.raw_data()),
                 static_cast<double*>(acc.raw_mutable_data()), 2, plus);
      break;
    case DType::kBool:
      Col2ImCore(g, static_cast<const uint8_t*>(x.raw_data()),
                 static_cast<uint8_t*>(acc.raw_mutable_data()), 1,
                 [](uint8_t& o, uint8_t v) { o = static_cast<uint8_t>(o | (v != 0)); });
      break;
    default: {
      Status st = DispatchBySize(dt, [&](auto u) -> Status {
        using U = decltype(u);
        if constexpr (std::is_integral_v<U>) {
          Col2ImCore(g, static_cast<const U*>(x.raw_data()), static_cast<U*>(acc.raw_mutable_data()),
                     1, plus);
          return Status::Ok();
        }
        return ctx.Unsupported(std::string("element type ") + DTypeName(dt));
      });
      VT_RETURN_IF_ERROR(st);
    }
  }
  if (low_float) acc = CastTensor(acc, dt);
  ctx.SetOutput(0, Value(acc));
  return Status::Ok();
}

VT_REGISTER_OP("", "Col2Im", 18, kMaxOpset, Col2ImCompute);

}  // namespace
}  // namespace vt::ops
