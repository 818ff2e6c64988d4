// MatMul (ONNX Operators.md "MatMul", opsets 1, 9, 13): numpy matmul semantics — 1-D operands
// are promoted ([K] -> [1, K] for A, [K] -> [K, 1] for B) and the promoted axis removed from
// the result; leading (batch) axes broadcast. float32/float16/bfloat16 compute in f32 on the
// blocked GEMM (f16/bf16 converted); float64 (which keeps its double precision) and integer
// types use a plain loop.
//
// A constant B (initializer or Constant node) is prepacked into NR panels once per batch
// matrix at session creation, unless it is 2-D and the GEMM's rows M are few and known from
// static shapes: then the resolver's form is the source itself, read in place by a small-M
// kernel (kernels/gemm/f32_gemv.h; docs/weight-forms.md, "Source layout, read in place"),
// with the same bits. When B has no batch axes the batch of A is folded into M, so
// [batch, M, K] x [K, N] is a single GEMM.
#include <memory>
#include <optional>

#include "kernels/gemm/f32_gemm.h"
#include "kernels/gemm/f32_gemv.h"
#include "kernels/q4/q4_gemm.h"
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

struct MatMulShapes {
  Shape a, b;        // after 1-D promotion, rank >= 2
  Shape batch;       // broadcast batch shape
  Shape out;         // final output shape (promoted axes removed)
  int64_t M, K, N;
};

Expected<MatMulShapes> InferShapes(const KernelContext& ctx, const Shape& sa, const Shape& sb) {
  if (sa.empty() || sb.empty()) return ctx.Error("MatMul operands must not be scalars");
  MatMulShapes s;
  s.a = sa.size() == 1 ? Shape{1, sa[0]} : sa;
  s.b = sb.size() == 1 ? Shape{sb[0], 1} : sb;
  s.M = s.a[s.a.size() - 2];
  s.K = s.a.back();
  s.N = s.b.back();
  if (s.b[s.b.size() - 2] != s.K)
    return ctx.Error("inner dimensions differ: A " + ShapeToString(sa) + ", B " +
                     ShapeToString(sb));
  Shape ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  auto batch = BroadcastShapes(ab, bb);
  if (!batch.ok())
    return ctx.Error("batch dimensions of A " + ShapeToString(sa) + " and B " +
                     ShapeToString(sb) + " do not broadcast");
  s.batch = *batch;
  s.out = s.batch;
  if (sa.size() != 1) s.out.push_back(s.M);
  if (sb.size() != 1) s.out.push_back(s.N);
  return s;
}

// Offsets (in matrices) of A and B for each output batch index.
void BatchOffsets(const MatMulShapes& s, std::vector<int64_t>* ia, std::vector<int64_t>* ib) {
  Shape ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
  const int64_t nb = NumElements(s.batch);
  ia->resize(static_cast<size_t>(nb));
  ib->resize(static_cast<size_t>(nb));
  if (s.batch.empty()) {
    (*ia)[0] = (*ib)[0] = 0;
    return;
  }
  auto as = BroadcastStrides(ab, s.batch), bs = BroadcastStrides(bb, s.batch);
  ForEachBroadcast2(s.batch, as, bs, [&](int64_t o, int64_t x, int64_t y) {
    (*ia)[static_cast<size_t>(o)] = x;
    (*ib)[static_cast<size_t>(o)] = y;
  });
}

template <typename T>
void PlainMatMul(const MatMulShapes& s, const T* a, const T* b, T* y) {
  std::vector<int64_t> ia, ib;
  BatchOffsets(s, &ia, &ib);
  const int64_t M = s.M, K = s.K, N = s.N;
  for (size_t bi = 0; bi < ia.size(); ++bi) {
    const T* pa = a + ia[bi] * M * K;
    const T* pb = b + ib[bi] * K * N;
    T* py = y + static_cast<int64_t>(bi) * M * N;
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) py[m * N + n] = 0;
      for (int64_t k = 0; k < K; ++k) {
        const T av = pa[m * K + k];
        for (int64_t n = 0; n < N; ++n) py[m * N + n] += static_cast<T>(av * pb[k * N + n]);
      }
    }
  }
}

class MatMulKernel final : public OpKernel {
 public:
  explicit MatMulKernel(const KernelInit& init) : gemm_rows_(init) {
    const Node& node = init.node;
    const Tensor* b = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    if (b == nullptr || b->dtype() != DType::kFloat32 || b->rank() < 1) return;
    b_const_ = *b;
    const Shape& sb = b->shape();
    const size_t K = static_cast<size_t>(sb.size() == 1 ? sb[0] : sb[sb.size() - 2]);
    const size_t N = static_cast<size_t>(sb.size() == 1 ? 1 : sb.back());
    if (b->rank() == 2) {
      // The one path for cacheable weights: the resolver's form, a compiled entry or a pack.
      WeightUseInfo use{WeightUse::kMatMulB};
      use.rows = StaticGemmRows(init.graph, node);
      auto pw = init.weights().Prepare(node, node.inputs[1], *b, use);
      if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32SourceInPlace) {
        // B stays where it is (Compute reads the constant); a CPU without the row reads it in
        // place through the blocked GEMM instead.
        const kernels::F32GemvKernel* row = kernels::FindF32GemvKernel((*pw)->form.kernel);
        if (row != nullptr && row->supported()) gemv_ = row;
        return;
      }
      if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kQ4_0GemmB) {
        // Compact profile: int4 blocks read by the q4_0 decode GEMM.
        q4_kernel_ = kernels::FindQ4_0GemmKernel((*pw)->form.kernel);
        if (q4_kernel_ != nullptr) {
          q4_ = (*pw)->bytes;
          return;
        }
      }
      if (pw.ok() && pw->has_value() && (*pw)->form.kind == WeightFormKind::kF32GemmBPanels) {
        const PreparedWeight& p = **pw;
        b_panels_.push_back(kernels::BorrowF32Panels(
            static_cast<size_t>(p.form.panel), K, N,
            reinterpret_cast<const float*>(p.bytes.data), p.bytes.keep_alive));
        isa_ = p.form.isa;
        return;
      }
    }
    // Batched B: one panel set per matrix, packed here (not cached), for the session's level.
    const kernels::F32GemmKernel& gemm = F32GemmRowFor(init);
    if (&gemm != &kernels::DefaultF32GemmKernel()) isa_ = init.weights().isa();
    const Tensor bc = b->Contiguous();
    const int64_t mats = K * N == 0 ? 0 : b->numel() / static_cast<int64_t>(K * N);
    for (int64_t i = 0; i < mats; ++i)
      b_panels_.push_back(kernels::MakeF32PanelsFromKn(
          gemm.nr, K, N, bc.data<float>() + static_cast<size_t>(i) * K * N, N));
  }

  // The microkernel for a GEMM of `m` rows and `n` columns against the prepacked panels: one
  // reading the panels' ISA and NR (or two panels per tile, a split-B row).
  const kernels::F32GemmKernel& KernelForPanels(size_t m, size_t n) const {
    if (!isa_) return kernels::F32GemmKernelForPanels(m, n);
    const kernels::F32GemmKernel* k = kernels::FindF32GemmKernel(
        F32GemmRowNameForPanels(*isa_, static_cast<int64_t>(m), static_cast<int64_t>(n)));
    return k != nullptr ? *k : kernels::F32GemmKernelForM(m);
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor A, ctx.RequireTensor(0));
    VT_ASSIGN_OR_RETURN(Tensor B, ctx.RequireTensor(1));
    const DType dt = A.dtype();
    if (B.dtype() != dt)
      return ctx.Error(std::string("A is ") + DTypeName(dt) + " but B is " + DTypeName(B.dtype()));
    VT_ASSIGN_OR_RETURN(MatMulShapes s, InferShapes(ctx, A.shape(), B.shape()));
    Tensor Y = ctx.AllocOutput(0, dt, s.out);
    if (Y.numel() == 0) return Status::Ok();

    if (!IsF32Computable(dt) || dt == DType::kFloat64) {
      Tensor a = A.Contiguous(), b = B.Contiguous();
      Status st = DispatchElem<kSetFloatInt>(dt, [&](auto tag) -> Status {
        using T = decltype(tag);
        PlainMatMul<T>(s, a.data<T>(), b.data<T>(), Y.mutable_data<T>());
        return Status::Ok();
      });
      if (!st.ok()) return ctx.Annotate(std::move(st));
      return Status::Ok();
    }

    const Tensor a = AsF32(A);
    if (q4_kernel_ != nullptr && IsSameConstant(B, b_const_) && B.rank() == 2) {
      Tensor yq = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, s.out);
      const size_t rows = static_cast<size_t>(NumElements(s.batch) * s.M);
      kernels::Q4_0Gemm(*q4_kernel_, rows, static_cast<size_t>(s.N), static_cast<size_t>(s.K),
                        a.data<float>(), static_cast<size_t>(s.K), q4_.data, nullptr,
                        yq.mutable_data<float>(), static_cast<size_t>(s.N), ctx.threads());
      if (dt != DType::kFloat32) StoreF32As(yq, Y);
      return Status::Ok();
    }
    const bool prepacked = !b_panels_.empty() && IsSameConstant(B, b_const_);
    const Tensor b = prepacked ? Tensor() : AsF32(B);
    Tensor yf = dt == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, s.out);
    const float* pa = a.data<float>();
    float* py = yf.mutable_data<float>();
    const size_t M = static_cast<size_t>(s.M), K = static_cast<size_t>(s.K),
                 N = static_cast<size_t>(s.N);
    const int threads = ctx.threads();
    if (gemv_ != nullptr && B.rank() == 2 && IsSameConstant(B, b_const_)) {
      // The constant read in place; more rows than static shapes promised take the blocked
      // GEMM below, which reads it in place too.
      const size_t rows = static_cast<size_t>(NumElements(s.batch)) * M;
      if (rows <= gemv_->max_m) {
        kernels::F32Gemv(*gemv_, rows, N, K, pa, K, b.data<float>(), N, py, N, {}, threads);
        if (dt != DType::kFloat32) StoreF32As(yf, Y);
        return Status::Ok();
      }
    }
    // Any kernel of the default's NR reads the prepacked panels; the tile height is free.
    auto b_operand = [&](int64_t bi) {
      if (prepacked) return F32GemmB{F32GemmB::Kind::kPanels, nullptr, 0, &b_panels_[bi]};
      return F32GemmB{F32GemmB::Kind::kKn, b.data<float>() + bi * s.K * s.N, N};
    };
    const kernels::F32GemmEpilogue ep;
    const bool b_single = NumElements(Shape(s.b.begin(), s.b.end() - 2)) == 1;
    if (b_single) {
      // Every batch of A meets the same B: one GEMM with the batches stacked along M.
      const size_t rows = static_cast<size_t>(NumElements(s.batch)) * M;
      kernels::F32Gemm(prepacked ? KernelForPanels(rows, N) : gemm_rows_.ForB(rows, N), rows, N, K,
                       F32GemmA{F32GemmA::Kind::kMk, pa, K}, b_operand(0), py, N, ep, threads);
    } else {
      std::vector<int64_t> ia, ib;
      BatchOffsets(s, &ia, &ib);
      for (size_t bi = 0; bi < ia.size(); ++bi)
        kernels::F32Gemm(prepacked ? KernelForPanels(M, N) : gemm_rows_.ForB(M, N), M, N, K,
                         F32GemmA{F32GemmA::Kind::kMk, pa + ia[bi] * s.M * s.K, K},
                         b_operand(ib[bi]), py + bi * M * N, N, ep, threads);
    }
    if (dt != DType::kFloat32) StoreF32As(yf, Y);
    return Status::Ok();
  }

 private:
  // ISA of the panels (a resolver form's, or the session's level below the default row's);
  // else host dispatch.
  std::optional<IsaLevel> isa_;
  UnpackedGemmRows gemm_rows_;  // GEMMs against a B that is not prepacked
  const kernels::Q4GemmKernel* q4_kernel_ = nullptr;  // compact profile: int4 weights
  const kernels::F32GemvKernel* gemv_ = nullptr;      // 2-D B read in place (few rows)
  PackedWeight q4_;
  Tensor b_const_;
  std::vector<F32Panels> b_panels_;  // one per batch matrix of the constant B
};

Expected<std::unique_ptr<OpKernel>> MakeMatMul(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new MatMulKernel(init));
}

VT_REGISTER_OP("", "MatMul", 1, kMaxOpset, KernelFactory(MakeMatMul));

}  // namespace
}  // namespace vt::ops
