// Gemm (ONNX Operators.md "Gemm", opsets 1-13): Y[M, N] = alpha * A' * B' + beta * C with
// A' = transA ? A^T : A ([M, K]), B' = transB ? B^T : B ([K, N]) and C unidirectionally
// broadcast to [M, N] (optional since opset 11). float32/float16/bfloat16 compute in f32 on the
// blocked GEMM (f16/bf16 converted); float64 (which keeps its double precision) and integer
// types use a plain loop.
//
// A constant B is prepacked into NR panels at session creation (from either storage order),
// unless the GEMM's rows M are few and known from static shapes: then the resolver's form is
// the source itself, read in place by a small-M kernel in either storage order
// (kernels/gemm/f32_gemv.h; docs/weight-forms.md, "Source layout, read in place").
// A C that is a row vector, a column vector or a scalar becomes the GEMM's bias epilogue; a
// full [M, N] C is copied into Y first and accumulated onto.
#include <memory>

#include "kernels/gemm/f32_gemm.h"
#include "kernels/gemm/f32_gemv.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;
using kernels::F32Panels;

template <typename T>
void PlainGemm(int64_t M, int64_t N, int64_t K, const T* a, bool ta, const T* b, bool tb, T alpha,
             T beta, const Tensor* c, T* y) {
  std::vector<int64_t> cs;
  if (c != nullptr) cs = BroadcastStrides(c->shape(), Shape{M, N});
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      T acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (ta ? a[k * M + m] : a[m * K + k]) * (tb ? b[n * K + k] : b[k * N + n]);
      T v = static_cast<T>(alpha * acc);
      if (c != nullptr) v += static_cast<T>(beta * c->data<T>()[m * cs[0] + n * cs[1]]);
      y[m * N + n] = v;
    }
}

class GemmKernel final : public OpKernel {
 public:
  explicit GemmKernel(const KernelInit& init) : gemm_rows_(init) {
    const Node& node = init.node;
    trans_a_ = node.GetInt("transA", 0) != 0;
    trans_b_ = node.GetInt("transB", 0) != 0;
    alpha_ = node.GetFloat("alpha", 1.0f);
    beta_ = node.GetFloat("beta", 1.0f);
    const Tensor* b = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    if (b == nullptr || b->dtype() != DType::kFloat32 || b->rank() != 2) return;
    b_const_ = *b;
    const size_t r = static_cast<size_t>(b->dim(0)), c = static_cast<size_t>(b->dim(1));
    WeightUseInfo use{trans_b_ ? WeightUse::kGemmBTrans : WeightUse::kGemmB};
    use.rows = StaticGemmRows(init.graph, node);
    auto pw = init.weights().Prepare(node, node.inputs[1], *b, use);
    if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32SourceInPlace) {
      // B stays where it is (Compute reads the constant); a CPU without the row reads it in
      // place through the blocked GEMM instead.
      const kernels::F32GemvKernel* row = kernels::FindF32GemvKernel((*pw)->form.kernel);
      if (row != nullptr && row->supported()) gemv_ = row;
    } else if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32GemmBPanels) {
      const PreparedWeight& p = **pw;
      const size_t K = trans_b_ ? c : r, N = trans_b_ ? r : c;
      b_panels_ = kernels::BorrowF32Panels(static_cast<size_t>(p.form.panel), K, N,
                                           reinterpret_cast<const float*>(p.bytes.data),
                                           p.bytes.keep_alive);
      isa_ = p.form.isa;
      has_panels_ = true;
    } else if (pw.ok() && pw->has_value() &&
               (*pw)->form.kind == WeightFormKind::kS8GemmBPerChannel &&
               (*pw)->form.field("scales") != nullptr) {
      // Compact profile: int8 panels + per-channel scales, dequantized block by block.
      const PreparedWeight& p = **pw;
      s8_.q = reinterpret_cast<const int8_t*>(p.bytes.data);
      s8_.scales = reinterpret_cast<const float*>(p.bytes.data + p.form.field("scales")->offset);
      s8_.k = trans_b_ ? c : r;
      s8_.panel = static_cast<size_t>(p.form.panel);
      s8_bytes_ = p.bytes;
      isa_ = p.form.isa;
      has_panels_ = true;
    }
  }

  // Int8 column panels (NR = panel, K rows each) with one f32 scale per column.
  struct S8Panels {
    const int8_t* q = nullptr;
    const float* scales = nullptr;
    size_t k = 0;
    size_t panel = 0;
  };
  // F32GemmPackBlockFn: rows [k0, k0+kc) x columns [n0, n0+nc) of B = q * scale as f32 panels.
  static void DequantizeS8Block(const void* ctx, size_t k0, size_t kc, size_t n0, size_t nc,
                                size_t nr, float* dst) {
    const auto& w = *static_cast<const S8Panels*>(ctx);
    for (size_t j = 0; j * nr < nc; ++j) {
      const size_t p = n0 / nr + j;
      const int8_t* src = w.q + p * w.k * nr + k0 * nr;
      const float* sc = w.scales + p * nr;
      float* d = dst + j * kc * nr;
      for (size_t kk = 0; kk < kc; ++kk)
        for (size_t x = 0; x < nr; ++x)
          d[kk * nr + x] = static_cast<float>(src[kk * nr + x]) * sc[x];
    }
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor A, ctx.RequireTensor(0));
    VT_ASSIGN_OR_RETURN(Tensor B, ctx.RequireTensor(1));
    const DType dt = A.dtype();
    if (B.dtype() != dt)
      return ctx.Error(std::string("A is ") + DTypeName(dt) + " but B is " + DTypeName(B.dtype()));
    if (A.rank() != 2 || B.rank() != 2)
      return ctx.Error("A " + ShapeToString(A.shape()) + " and B " + ShapeToString(B.shape()) +
                       " must be matrices");
    const int64_t M = trans_a_ ? A.dim(1) : A.dim(0), K = trans_a_ ? A.dim(0) : A.dim(1);
    const int64_t Kb = trans_b_ ? B.dim(1) : B.dim(0), N = trans_b_ ? B.dim(0) : B.dim(1);
    if (K != Kb)
      return ctx.Error("inner dimensions differ: A " + ShapeToString(A.shape()) + ", B " +
                       ShapeToString(B.shape()) + " (transA=" + std::to_string(trans_a_) +
                       ", transB=" + std::to_string(trans_b_) + ")");
    Tensor C;
    if (ctx.has_input(2) && ctx.input_value(2)->is_tensor()) {
      C = ctx.input(2);
      if (C.dtype() != dt) return ctx.Error("C dtype differs from A");
      auto bs = BroadcastShapes(C.shape(), Shape{M, N});
      if (C.rank() > 2 || !bs.ok() || *bs != Shape{M, N})
        return ctx.Error("C " + ShapeToString(C.shape()) + " does not broadcast to [" +
                         std::to_string(M) + "," + std::to_string(N) + "]");
    }
    Tensor Y = ctx.AllocOutput(0, dt, {M, N});
    if (Y.numel() == 0) return Status::Ok();

    if (!IsF32Computable(dt) || dt == DType::kFloat64) {
      Tensor a = A.Contiguous(), b = B.Contiguous(), c = C.defined() ? C.Contiguous() : C;
      Status st = DispatchElem<kSetFloatInt>(dt, [&](auto tag) -> Status {
        using T = decltype(tag);
        PlainGemm<T>(M, N, K, a.data<T>(), trans_a_, b.data<T>(), trans_b_, static_cast<T>(alpha_),
                   static_cast<T>(beta_), c.defined() ? &c : nullptr, Y.mutable_data<T>());
        return Status::Ok();
      });
      if (!st.ok()) return ctx.Annotate(std::move(st));
      return Status::Ok();
    }

    const Tensor a = AsF32(A);
    const bool prepacked = has_panels_ && IsSameConstant(B, b_const_);
    const Tensor b = prepacked ? Tensor() : AsF32(B);
    Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, {M, N});
    float* py = yf.mutable_data<float>();

    kernels::F32GemmEpilogue ep;
    ep.alpha = alpha_;
    std::vector<float> bias;  // beta * C as a row or column vector
    if (C.defined() && beta_ != 0.0f) {
      const Tensor c = AsF32(C);
      const float* pc = c.data<float>();
      const Shape cs = C.rank() == 2 ? C.shape() : C.rank() == 1 ? Shape{1, C.dim(0)} : Shape{1, 1};
      if (cs[0] == M && cs[1] == N && M > 1) {
        for (int64_t i = 0; i < M * N; ++i) py[i] = beta_ * pc[i];
        ep.accumulate = true;
      } else if (cs[0] == 1) {  // row vector or scalar
        bias.resize(static_cast<size_t>(N));
        for (int64_t n = 0; n < N; ++n) bias[static_cast<size_t>(n)] = beta_ * pc[cs[1] == 1 ? 0 : n];
        ep.bias_n = bias.data();
      } else {  // column vector [M, 1]
        bias.resize(static_cast<size_t>(M));
        for (int64_t m = 0; m < M; ++m) bias[static_cast<size_t>(m)] = beta_ * pc[m];
        ep.bias_m = bias.data();
      }
    }
    if (gemv_ != nullptr && !prepacked && IsSameConstant(B, b_const_) &&
        static_cast<size_t>(M) <= gemv_->max_m) {
      // The constant read in place by the small-M row; A^T is copied to rows (M x K floats).
      std::vector<float> at;
      const float* pa = a.data<float>();
      if (trans_a_) {
        at.resize(static_cast<size_t>(M * K));
        for (int64_t k = 0; k < K; ++k)
          for (int64_t m = 0; m < M; ++m) at[static_cast<size_t>(m * K + k)] = pa[k * M + m];
        pa = at.data();
      }
      kernels::F32Gemv(*gemv_, static_cast<size_t>(M), static_cast<size_t>(N),
                       static_cast<size_t>(K), pa, static_cast<size_t>(K), b.data<float>(),
                       static_cast<size_t>(B.dim(1)), py, static_cast<size_t>(N), ep, ctx.threads());
      if (dt != DType::kFloat32) StoreF32As(yf, Y);
      return Status::Ok();
    }
    const F32GemmA opa{trans_a_ ? F32GemmA::Kind::kKm : F32GemmA::Kind::kMk, a.data<float>(),
                       static_cast<size_t>(A.dim(1))};
    F32GemmB opb;
    if (prepacked && s8_.q != nullptr) {
      opb = {F32GemmB::Kind::kCallback, nullptr, 0, nullptr, &GemmKernel::DequantizeS8Block, &s8_};
    } else if (prepacked) {
      opb = {F32GemmB::Kind::kPanels, nullptr, 0, &b_panels_};
    } else {
      opb = {trans_b_ ? F32GemmB::Kind::kNk : F32GemmB::Kind::kKn, b.data<float>(),
             static_cast<size_t>(B.dim(1))};
    }
    // Any kernel of the panels' ISA and NR reads the prepacked f32 panels (the tile height is
    // free), and so does a split-B row reading two of them per tile; the int8 blocks are
    // dequantized into panels of the M row's NR.
    const kernels::F32GemmKernel* row = nullptr;
    if (prepacked)
      row = kernels::FindF32GemmKernel(s8_.q != nullptr ? F32GemmRowNameForM(isa_, M)
                                                        : F32GemmRowNameForPanels(isa_, M, N));
    const kernels::F32GemmKernel& k =
        row != nullptr ? *row
        : prepacked    ? gemm_rows_.ForM(static_cast<size_t>(M))
                       : gemm_rows_.ForB(static_cast<size_t>(M), static_cast<size_t>(N));
    kernels::F32Gemm(k,
                     static_cast<size_t>(M),
                     static_cast<size_t>(N), static_cast<size_t>(K), opa, opb, py,
                     static_cast<size_t>(N), ep, ctx.threads());
    if (dt != DType::kFloat32) StoreF32As(yf, Y);
    return Status::Ok();
  }

 private:
  IsaLevel isa_ = IsaLevel::kBaseline;  // ISA the panels were packed for
  UnpackedGemmRows gemm_rows_;          // GEMMs against a B that is not prepacked
  const kernels::F32GemvKernel* gemv_ = nullptr;  // B read in place (few rows)
  S8Panels s8_;                          // compact profile: int8 weights (else q == null)
  PackedWeight s8_bytes_;                // keeps s8_'s bytes alive
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.0f, beta_ = 1.0f;
  Tensor b_const_;
  bool has_panels_ = false;
  F32Panels b_panels_;
};

Expected<std::unique_ptr<OpKernel>> MakeGemm(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new GemmKernel(init));
}

VT_REGISTER_OP("", "Gemm", 1, kMaxOpset, KernelFactory(MakeGemm));

}  // namespace
}  // namespace vt::ops
