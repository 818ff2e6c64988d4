// com.microsoft MatMulNBits (ONNX Runtime contrib operator, since version 1):
//
//   Y[..., N] = A[..., K] * dequant(B)^T + bias,
//   dequant(B)(n, k) = (u(n, k) - zp(n, g(k))) * scale(n, g(k)),   g(k) = g_idx[k] or k / bs
//
// Inputs: A (float or float16), B uint8 [N, kb, bs * bits / 8] (kb = ceil(K / bs); codes packed
// low bits first along K), scales [N, kb] or [N * kb] (A's type), zero_points (optional: uint8
// with ceil(kb * bits / 8) packed bytes per row, or A's type with kb per row; absent means
// 2^(bits-1)), g_idx (optional, deprecated: int32 [K]), bias (optional [N]). Attributes K, N,
// block_size (a power of two >= 16) required; bits 2, 4 or 8 (default 4); accuracy_level
// (default 0): with 4 and bits 4 the activations are quantized to int8 with one scale per weight
// block, as ONNX Runtime does at level 4 (kernels/nbits NBitsQuantizeXQ8; the fast path runs the
// VNNI row or its bit-identical portable twin, the general path multiplies the dequantized
// activations d * q in f32), on every CPU alike; every other level keeps f32 activations.
//
// Fast path (bits 4, block_size a multiple of 32, constant weights, g_idx absent or the plain
// k / bs): the three planes are prepacked into 16-row panels through the weight provider (so
// `vtensor compile` caches them and a hit uses them in place; forms/weight_form.h) and run
// on the MatMulNBits kernel family (kernels/nbits). Anything else dequantizes B to f32 [N, K]
// (once, at session creation, when the weights are constant) and runs the f32 GEMM.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "kernels/gemm/f32_gemm.h"
#include "kernels/nbits/nbits_gemm.h"
#include "kernels/nbits/nbits_pack.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "vtensor/base/aligned_alloc.h"
#include "vtensor/forms/weight_provider.h"
#include "vtensor/graph/node_status.h"

namespace vt::ops {
namespace {

struct NBitsAttrs {
  int64_t K = 0, N = 0, bits = 4, bs = 0, accuracy_level = 0;
  int64_t kb() const { return (K + bs - 1) / bs; }
  int64_t blob() const { return bs * bits / 8; }
  int64_t zp_bytes_per_row() const { return (kb() * bits + 7) / 8; }
};

Expected<NBitsAttrs> ReadAttrs(const Node& node) {
  NBitsAttrs a;
  a.K = node.GetInt("K", -1);
  a.N = node.GetInt("N", -1);
  a.bits = node.GetInt("bits", 4);
  a.bs = node.GetInt("block_size", -1);
  a.accuracy_level = node.GetInt("accuracy_level", 0);
  auto bad = [&](const std::string& m) { return AnnotateNode(InvalidArgument(m), node); };
  if (a.K < 1) return bad("attribute K must be given and >= 1");
  if (a.N < 1) return bad("attribute N must be given and >= 1");
  if (a.bits != 2 && a.bits != 4 && a.bits != 8)
    return bad("attribute bits = " + std::to_string(a.bits) + " (supported: 2, 4, 8)");
  if (a.bs < 16 || (a.bs & (a.bs - 1)) != 0)
    return bad("attribute block_size = " + std::to_string(a.bs) +
               " must be given and be a power of two >= 16");
  return a;
}

// Checks the operand shapes against the attributes; the message names the input.
Status CheckOperands(const NBitsAttrs& a, const Tensor& b, const Tensor& scales,
                     const Tensor* zp, const Tensor* g_idx, const Tensor* bias) {
  if (b.dtype() != DType::kUInt8 || b.shape() != Shape{a.N, a.kb(), a.blob()})
    return InvalidArgument("input B is " + std::string(DTypeName(b.dtype())) +
                           ShapeToString(b.shape()) + ", expected uint8[" + std::to_string(a.N) +
                           "," + std::to_string(a.kb()) + "," + std::to_string(a.blob()) + "]");
  if (scales.dtype() != DType::kFloat32 && scales.dtype() != DType::kFloat16)
    return InvalidArgument(std::string("input scales is ") + DTypeName(scales.dtype()) +
                           ", expected float or float16");
  if (scales.numel() != a.N * a.kb())
    return InvalidArgument("input scales " + ShapeToString(scales.shape()) + " must hold N * kb = " +
                           std::to_string(a.N * a.kb()) + " values");
  if (zp != nullptr) {
    if (zp->dtype() == DType::kUInt8) {
      if (zp->numel() != a.N * a.zp_bytes_per_row())
        return InvalidArgument("input zero_points " + ShapeToString(zp->shape()) +
                               " must hold N * ceil(kb * bits / 8) = " +
                               std::to_string(a.N * a.zp_bytes_per_row()) + " bytes");
    } else if (zp->dtype() == scales.dtype()) {
      if (zp->numel() != a.N * a.kb())
        return InvalidArgument("input zero_points " + ShapeToString(zp->shape()) +
                               " must hold N * kb = " + std::to_string(a.N * a.kb()) + " values");
    } else {
      return InvalidArgument(std::string("input zero_points is ") + DTypeName(zp->dtype()) +
                             ", expected uint8 or the scales' type");
    }
  }
  if (g_idx != nullptr && (g_idx->dtype() != DType::kInt32 || g_idx->numel() != a.K))
    return InvalidArgument("input g_idx must be int32[" + std::to_string(a.K) + "]");
  if (bias != nullptr && bias->numel() != a.N)
    return InvalidArgument("input bias " + ShapeToString(bias->shape()) + " must hold N = " +
                           std::to_string(a.N) + " values");
  return Status::Ok();
}

// True when g_idx is absent or equals k / bs everywhere (the layout the fast path assumes).
bool TrivialGIdx(const NBitsAttrs& a, const Tensor* g_idx) {
  if (g_idx == nullptr) return true;
  const Tensor g = g_idx->Contiguous();
  const int32_t* p = g.data<int32_t>();
  for (int64_t k = 0; k < a.K; ++k)
    if (p[k] != k / a.bs) return false;
  return true;
}

// dequant(B) as f32 [N, K] (the general path and ONNX Runtime's definition).
Expected<std::vector<float>> Dequantize(const NBitsAttrs& a, const Tensor& b, const Tensor& scales,
                                        const Tensor* zp, const Tensor* g_idx) {
  const Tensor bc = b.Contiguous();
  const Tensor sc = AsF32(scales);
  const Tensor zc = zp != nullptr ? (zp->dtype() == DType::kUInt8 ? zp->Contiguous() : AsF32(*zp))
                                  : Tensor();
  const Tensor gc = g_idx != nullptr ? g_idx->Contiguous() : Tensor();
  const uint8_t* codes = bc.data<uint8_t>();
  const float* s = sc.data<float>();
  const int64_t kb = a.kb(), blob = a.blob(), mask = (1 << a.bits) - 1;
  const float zp_default = static_cast<float>(1 << (a.bits - 1));
  std::vector<float> w(static_cast<size_t>(a.N * a.K));
  for (int64_t n = 0; n < a.N; ++n)
    for (int64_t k = 0; k < a.K; ++k) {
      int64_t g = k / a.bs;
      if (g_idx != nullptr) {
        g = gc.data<int32_t>()[k];
        if (g < 0 || g >= kb)
          return InvalidArgument("input g_idx[" + std::to_string(k) + "] = " + std::to_string(g) +
                                 " is outside [0, " + std::to_string(kb) + ")");
      }
      const int64_t bit = (k % a.bs) * a.bits;
      const uint8_t byte = codes[(n * kb + k / a.bs) * blob + bit / 8];
      const float u = static_cast<float>((byte >> (bit % 8)) & mask);
      float z = zp_default;
      if (zp != nullptr) {
        if (zp->dtype() == DType::kUInt8) {
          const int64_t zbit = g * a.bits;
          z = static_cast<float>((zc.data<uint8_t>()[n * a.zp_bytes_per_row() + zbit / 8] >>
                                  (zbit % 8)) & mask);
        } else {
          z = zc.data<float>()[n * kb + g];
        }
      }
      w[static_cast<size_t>(n * a.K + k)] = (u - z) * s[n * kb + g];
    }
  return w;
}

// accuracy_level 4 on the general path: rows of `k` activations replaced by d * q, with one
// d = amax / 127 per block of `bs` and q = nearbyint(x * 127 / amax) (NBitsQuantizeXQ8's
// definition; the last block may be short).
void QuantizeDequantizeRows(const float* x, size_t m, size_t k, size_t bs, float* out) {
  for (size_t i = 0; i < m; ++i)
    for (size_t b0 = 0; b0 < k; b0 += bs) {
      const size_t n = std::min(bs, k - b0);
      const float* src = x + i * k + b0;
      float amax = 0.0f;
      for (size_t j = 0; j < n; ++j) amax = std::max(amax, std::fabs(src[j]));
      const float d = amax / 127.0f, inv = amax != 0.0f ? 127.0f / amax : 0.0f;
      for (size_t j = 0; j < n; ++j)
        out[i * k + b0 + j] = d * std::clamp(std::nearbyint(src[j] * inv), -127.0f, 127.0f);
    }
}

class MatMulNBitsKernel final : public OpKernel {
 public:
  MatMulNBitsKernel(const KernelInit& init, const NBitsAttrs& a) : a_(a), gemm_rows_(init) {
    const Node& node = init.node;
    auto input = [&](size_t i) -> const Tensor* {
      return node.inputs.size() > i && !node.inputs[i].empty()
                 ? FindConstantOperand(init, node.inputs[i])
                 : nullptr;
    };
    auto present = [&](size_t i) { return node.inputs.size() > i && !node.inputs[i].empty(); };
    const Tensor* b = input(1);
    const Tensor* scales = input(2);
    const Tensor* zp = input(3);
    const Tensor* g_idx = input(4);
    if (b == nullptr || scales == nullptr || (present(3) && zp == nullptr) ||
        (present(4) && g_idx == nullptr))
      return;  // weights computed at run time: general path per call
    if (!CheckOperands(a, *b, *scales, zp, g_idx, nullptr).ok()) return;  // reported at Compute
    b_const_ = *b;
    scales_const_ = *scales;
    if (zp != nullptr) zp_const_ = *zp;
    if (g_idx != nullptr) g_const_ = *g_idx;
    constants_ = true;
    if (a.bits == 4 && a.bs % 32 == 0 && TrivialGIdx(a, g_idx)) {
      PrepareFast(init, *b, *scales, zp);
      return;
    }
    auto w = Dequantize(a, *b, *scales, zp, g_idx);
    if (w.ok()) dequantized_ = std::move(*w);
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor A, ctx.RequireTensor(0));
    VT_ASSIGN_OR_RETURN(Tensor B, ctx.RequireTensor(1));
    VT_ASSIGN_OR_RETURN(Tensor S, ctx.RequireTensor(2));
    const DType dt = A.dtype();
    if (!IsF32Computable(dt) || dt == DType::kFloat64)
      return ctx.Error(std::string("input A is ") + DTypeName(dt) + ", expected float or float16");
    if (A.rank() < 1 || A.shape().back() != a_.K)
      return ctx.Error("input A " + ShapeToString(A.shape()) + " must end in K = " +
                       std::to_string(a_.K));
    std::optional<Tensor> Z, G, Bias;
    if (ctx.has_input(3)) { VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(3)); Z = t; }
    if (ctx.has_input(4)) { VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(4)); G = t; }
    if (ctx.has_input(5)) { VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(5)); Bias = t; }
    if (Status st = CheckOperands(a_, B, S, Z ? &*Z : nullptr, G ? &*G : nullptr,
                                  Bias ? &*Bias : nullptr);
        !st.ok())
      return ctx.Annotate(std::move(st));
    Shape out = A.shape();
    out.back() = a_.N;
    Tensor Y = ctx.AllocOutput(0, dt, out);
    if (Y.numel() == 0) return Status::Ok();
    const size_t M = static_cast<size_t>(A.numel() / a_.K), N = static_cast<size_t>(a_.N),
                 K = static_cast<size_t>(a_.K);
    const Tensor a = AsF32(A);
    const Tensor bias = Bias ? AsF32(*Bias) : Tensor();
    const float* pbias = Bias ? bias.data<float>() : nullptr;
    Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, out);
    const bool same = constants_ && IsSameConstant(B, b_const_) &&
                      IsSameConstant(S, scales_const_) &&
                      (Z ? zp_const_ && IsSameConstant(*Z, *zp_const_) : !zp_const_) &&
                      (G ? g_const_ && IsSameConstant(*G, *g_const_) : !g_const_);
    if (same && panel_.codes != nullptr) {
      kernels::NBitsGemm(*kernel_, M, N, K, static_cast<size_t>(a_.bs), a.data<float>(), K,
                         panel_, pbias, yf.mutable_data<float>(), N, ctx.threads());
    } else {
      std::vector<float> local;
      const std::vector<float>* w = &dequantized_;
      if (!same || dequantized_.empty()) {
        auto d = Dequantize(a_, B, S, Z ? &*Z : nullptr, G ? &*G : nullptr);
        if (!d.ok()) return ctx.Annotate(d.take_status());
        local = std::move(*d);
        w = &local;
      }
      // Level 4 (bits 4): the activations as the q8 rows see them, d * q per weight block.
      Tensor aq = a;
      if (a_.accuracy_level == 4 && a_.bits == 4) {
        aq = Tensor::Empty(DType::kFloat32, a.shape());
        QuantizeDequantizeRows(a.data<float>(), M, K, static_cast<size_t>(a_.bs),
                               aq.mutable_data<float>());
      }
      kernels::F32GemmEpilogue ep;
      ep.bias_n = pbias;
      kernels::F32Gemm(gemm_rows_.ForB(M, N), M, N, K,
                       kernels::F32GemmA{kernels::F32GemmA::Kind::kMk, aq.data<float>(), K},
                       kernels::F32GemmB{kernels::F32GemmB::Kind::kNk, w->data(), K},
                       yf.mutable_data<float>(), N, ep, ctx.threads());
    }
    if (dt != DType::kFloat32) StoreF32As(yf, Y);
    return Status::Ok();
  }

 private:
  // One plane through the weight provider (cacheable), or packed here when no form applies
  // (float16 scales are widened to f32 first and are not cached).
  const uint8_t* PreparePlane(const KernelInit& init, size_t input, const Tensor& t, WeightUse use,
                              int64_t cols, int64_t unit) {
    WeightUseInfo info{use};
    info.nbits_rows = a_.N;
    info.nbits_cols = cols;
    info.nbits_unit = unit;
    info.nbits_q8 = a_.accuracy_level == 4;
    if (t.dtype() == DType::kUInt8 || t.dtype() == DType::kFloat32) {
      auto pw = init.weights().Prepare(init.node, init.node.inputs[input], t, info);
      if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kNBitsPanels) {
        planes_.push_back((*pw)->bytes);
        return planes_.back().data;
      }
    }
    const Tensor src = t.dtype() == DType::kUInt8 ? t.Contiguous() : AsF32(t);
    const size_t unit_bytes = static_cast<size_t>(unit) * DTypeSize(src.dtype());
    const size_t bytes = kernels::NBitsPanelBytes(static_cast<size_t>(a_.N),
                                                  static_cast<size_t>(cols), unit_bytes);
    void* mem = AllocateAlignedBytes(bytes);
    kernels::PackNBitsRowsToPanels(static_cast<size_t>(a_.N), static_cast<size_t>(cols),
                                   unit_bytes, static_cast<const uint8_t*>(src.raw_data()),
                                   static_cast<uint8_t*>(mem));
    PackedWeight p;
    p.data = static_cast<const uint8_t*>(mem);
    p.size = bytes;
    p.keep_alive = std::shared_ptr<const void>(mem, AlignedDeleter{});
    planes_.push_back(p);
    return p.data;
  }

  void PrepareFast(const KernelInit& init, const Tensor& b, const Tensor& scales,
                   const Tensor* zp) {
    panel_.codes = PreparePlane(init, 1, b, WeightUse::kNBitsCodes, a_.kb(), a_.blob());
    panel_.scales = reinterpret_cast<const float*>(
        PreparePlane(init, 2, scales, WeightUse::kNBitsScales, a_.kb(), 1));
    if (zp != nullptr && zp->dtype() == DType::kUInt8) {
      panel_.zp_kind = kernels::NBitsZeroPoints::kU4;
      panel_.zp_u4 = PreparePlane(init, 3, *zp, WeightUse::kNBitsZeroPoints, a_.zp_bytes_per_row(), 1);
    } else if (zp != nullptr) {
      panel_.zp_kind = kernels::NBitsZeroPoints::kF32;
      panel_.zp_f32 = reinterpret_cast<const float*>(
          PreparePlane(init, 3, *zp, WeightUse::kNBitsZeroPoints, a_.kb(), 1));
    }
    // The session's ISA level (--arch) caps the row, as for the other weight forms. Level 4
    // quantizes the activations on every ISA (the VNNI row, else its bit-identical portable
    // twin), so that the result does not depend on the CPU or --arch.
    const IsaLevel isa = init.weights().isa();
    kernel_ = &kernels::NBitsGemmKernelForIsa(
        isa == IsaLevel::kAvx512 ? "avx512" : isa == IsaLevel::kAvx2 ? "avx2" : "portable",
        a_.accuracy_level == 4);
  }

  NBitsAttrs a_;
  UnpackedGemmRows gemm_rows_;  // the general path's f32 GEMM
  bool constants_ = false;  // B, scales (and zero_points, g_idx when given) are constants
  Tensor b_const_, scales_const_;
  std::optional<Tensor> zp_const_, g_const_;
  std::vector<PackedWeight> planes_;
  kernels::NBitsPanel panel_;
  const kernels::NBitsGemmKernel* kernel_ = nullptr;
  std::vector<float> dequantized_;  // general path with constant weights: dequant(B) [N, K]
};

Expected<std::unique_ptr<OpKernel>> MakeMatMulNBits(const KernelInit& init) {
  VT_ASSIGN_OR_RETURN(NBitsAttrs a, ReadAttrs(init.node));
  return std::unique_ptr<OpKernel>(new MatMulNBitsKernel(init, a));
}

VT_REGISTER_OP("com.microsoft", "MatMulNBits", 1, kMaxOpset, KernelFactory(MakeMatMulNBits));

}  // namespace
}  // namespace vt::ops
