// com.microsoft FusedMatMul-1 (and its older name TransposeMatMul-1) (docs/contrib-ops.md):
//   Y = alpha * matmul(op(A), op(B))      numpy matmul semantics, batch dims broadcast
// where op(X) first applies transBatchX (X [d0, d1, .., d(r-2), d(r-1)] is read as
// [d1, .., d(r-2), d0, d(r-1)]: the first dim becomes the matrix rows) and then transX (the
// last two dims swapped). 1-D operands are promoted as in MatMul ([K] -> [1, K] for A, [K, 1]
// for B, the promoted axis removed from Y) and take no transpose. Both transposes are strides:
// every batch matrix is a strided view handed to the f32 GEMM (kernels/gemm/f32_gemm.h), nothing
// is copied. A constant 2-D B is prepacked once, as Gemm's B.
//
// Attributes alpha (float, default 1), transA, transB, transBatchA, transBatchB (int, default
// 0). Types float32, float16, bfloat16, float64 (computed in f32, as MatMul). Errors (node
// named): inner dimensions that differ, batch dims that do not broadcast, transBatch with
// operands whose ranks differ or are below 3 (ONNX Runtime's rule), differing or non-float
// element types.
#include <memory>
#include <vector>

#include "kernels/gemm/f32_gemm.h"
#include "ops/common/constant_operand.h"
#include "ops/common/f32_compute.h"
#include "ops/common/op_util.h"
#include "ops/common/row_kernels.h"
#include "ops/contrib/contrib_inputs.h"
#include "vtensor/forms/weight_provider.h"

namespace vt::ops {
namespace {

using kernels::F32GemmA;
using kernels::F32GemmB;

// op(X) as batches of strided matrices over X's contiguous elements.
struct MatView {
  Shape batch;                   // batch dims of op(X)
  std::vector<int64_t> bstride;  // their element strides
  int64_t rows = 0, cols = 0;    // of each op(X) matrix
  int64_t rs = 0, cs = 0;        // element strides along rows and columns
};

MatView MakeView(const Shape& s, bool trans, bool trans_batch, bool is_b) {
  MatView v;
  const size_t r = s.size();
  if (r == 1) {  // [K]: A -> [1, K], B -> [K, 1]; no transpose
    v.rows = is_b ? s[0] : 1, v.cols = is_b ? 1 : s[0];
    v.rs = is_b ? 1 : s[0], v.cs = 1;
    return v;
  }
  std::vector<int64_t> st(r, 1);
  for (size_t i = r - 1; i-- > 0;) st[i] = st[i + 1] * s[i + 1];
  std::vector<size_t> order;
  if (trans_batch) {
    for (size_t i = 1; i + 1 < r; ++i) order.push_back(i);
    order.push_back(0);
  } else {
    for (size_t i = 0; i + 1 < r; ++i) order.push_back(i);
  }
  order.push_back(r - 1);
  for (size_t i = 0; i + 2 < r; ++i) {
    v.batch.push_back(s[order[i]]);
    v.bstride.push_back(st[order[i]]);
  }
  v.rows = s[order[r - 2]], v.cols = s[order[r - 1]];
  v.rs = st[order[r - 2]], v.cs = st[order[r - 1]];
  if (trans) std::swap(v.rows, v.cols), std::swap(v.rs, v.cs);
  return v;
}

// Element offset of each output batch matrix in X (numpy broadcast, aligned on the right).
std::vector<int64_t> BatchOffsets(const MatView& v, const Shape& out_batch) {
  const int64_t count = NumElements(out_batch);
  std::vector<int64_t> off(static_cast<size_t>(count), 0);
  const size_t lead = out_batch.size() - v.batch.size();
  for (int64_t o = 0; o < count; ++o) {
    int64_t rem = o, acc = 0;
    for (size_t d = out_batch.size(); d-- > 0;) {
      const int64_t idx = rem % out_batch[d];
      rem /= out_batch[d];
      if (d >= lead && v.batch[d - lead] != 1) acc += idx * v.bstride[d - lead];
    }
    off[static_cast<size_t>(o)] = acc;
  }
  return off;
}

class FusedMatMulKernel final : public OpKernel {
 public:
  explicit FusedMatMulKernel(const KernelInit& init) : gemm_rows_(init) {
    const Node& node = init.node;
    alpha_ = node.GetFloat("alpha", 1.0f);
    trans_a_ = node.GetInt("transA", 0) != 0;
    trans_b_ = node.GetInt("transB", 0) != 0;
    trans_batch_a_ = node.GetInt("transBatchA", 0) != 0;
    trans_batch_b_ = node.GetInt("transBatchB", 0) != 0;
    const Tensor* b = node.inputs.size() > 1 ? FindConstantOperand(init, node.inputs[1]) : nullptr;
    if (b == nullptr || b->dtype() != DType::kFloat32 || b->rank() != 2) return;
    // A 2-D B is Gemm's B ([K, N], or [N, K] with transB): the same cacheable panel form.
    WeightUseInfo use{trans_b_ ? WeightUse::kGemmBTrans : WeightUse::kGemmB};
    use.lossless_only = true;  // the f32 GEMM is FusedMatMul's only path
    auto pw = init.weights().Prepare(node, node.inputs[1], *b, use);
    if (!pw.ok() || !pw->has_value() || (*pw)->form.kind != WeightFormKind::kF32GemmBPanels) return;
    const PreparedWeight& p = **pw;
    const size_t K = static_cast<size_t>(trans_b_ ? b->dim(1) : b->dim(0));
    const size_t N = static_cast<size_t>(trans_b_ ? b->dim(0) : b->dim(1));
    panels_ = kernels::BorrowF32Panels(static_cast<size_t>(p.form.panel), K, N,
                                       reinterpret_cast<const float*>(p.bytes.data), p.bytes.keep_alive);
    isa_ = p.form.isa;
    b_const_ = *b;
    has_panels_ = true;
  }

  Status Compute(KernelContext& ctx) const override {
    VT_ASSIGN_OR_RETURN(Tensor A, RequiredInput(ctx, 0, "A"));
    VT_ASSIGN_OR_RETURN(Tensor B, RequiredInput(ctx, 1, "B"));
    VT_RETURN_IF_ERROR(ExpectFloat(ctx, A, 0, "A"));
    VT_RETURN_IF_ERROR(ExpectSameDType(ctx, B, A.dtype(), 1, "B"));
    if (A.rank() == 0 || B.rank() == 0) return ctx.Error("A and B must not be scalars");
    if ((trans_batch_a_ || trans_batch_b_) && (A.rank() != B.rank() || A.rank() < 3))
      return ctx.Error("transBatchA / transBatchB need A and B of the same rank >= 3, got A " +
                       ShapeToString(A.shape()) + " and B " + ShapeToString(B.shape()));
    const MatView va = MakeView(A.shape(), trans_a_, trans_batch_a_, false);
    const MatView vb = MakeView(B.shape(), trans_b_, trans_batch_b_, true);
    const std::string shapes = "A " + ShapeToString(A.shape()) + ", B " + ShapeToString(B.shape()) +
                               " (transA=" + std::to_string(trans_a_) + ", transB=" + std::to_string(trans_b_) +
                               ", transBatchA=" + std::to_string(trans_batch_a_) +
                               ", transBatchB=" + std::to_string(trans_batch_b_) + ")";
    if (va.cols != vb.rows) return ctx.Error("inner dimensions differ: " + shapes);
    auto batch = BroadcastShapes(va.batch, vb.batch);
    if (!batch.ok()) return ctx.Error("batch dimensions do not broadcast: " + shapes);
    Shape out = *batch;
    if (A.rank() > 1) out.push_back(va.rows);
    if (B.rank() > 1) out.push_back(vb.cols);
    Tensor Y = ctx.AllocOutput(0, A.dtype(), out);
    if (Y.numel() == 0) return Status::Ok();
    Run(ctx, va, vb, *batch, AsF32(A), B, Y);
    return Status::Ok();
  }

 private:
  void Run(KernelContext& ctx, const MatView& va, const MatView& vb, const Shape& batch,
           const Tensor& a, const Tensor& B, Tensor& Y) const {
    const bool prepacked = has_panels_ && IsSameConstant(B, b_const_);
    const Tensor b = prepacked ? Tensor() : AsF32(B);
    Tensor yf = Y.dtype() == DType::kFloat32 ? Y : Tensor::Empty(DType::kFloat32, Y.shape());
    const size_t M = static_cast<size_t>(va.rows), N = static_cast<size_t>(vb.cols),
                 K = static_cast<size_t>(va.cols);
    kernels::F32GemmEpilogue ep;
    ep.alpha = alpha_;
    auto op_a = [&](int64_t off) {
      const float* p = a.data<float>() + off;
      return va.cs == 1 ? F32GemmA{F32GemmA::Kind::kMk, p, static_cast<size_t>(va.rs)}
                        : F32GemmA{F32GemmA::Kind::kKm, p, static_cast<size_t>(va.cs)};
    };
    auto op_b = [&](int64_t off) {
      if (prepacked) return F32GemmB{F32GemmB::Kind::kPanels, nullptr, 0, &panels_};
      const float* p = b.data<float>() + off;
      return vb.cs == 1 ? F32GemmB{F32GemmB::Kind::kKn, p, static_cast<size_t>(vb.rs)}
                        : F32GemmB{F32GemmB::Kind::kNk, p, static_cast<size_t>(vb.cs)};
    };
    auto kernel = [&](size_t m) -> const kernels::F32GemmKernel& {
      if (!prepacked) return gemm_rows_.ForB(m, N);
      const auto* k = kernels::FindF32GemmKernel(
          F32GemmRowNameForPanels(isa_, static_cast<int64_t>(m), static_cast<int64_t>(N)));
      return k != nullptr ? *k : kernels::F32GemmKernelForM(m);
    };
    float* py = yf.mutable_data<float>();
    // Row-major A against one B matrix: the batches stack along M into one GEMM.
    const bool stack = NumElements(vb.batch) == 1 && va.cs == 1 && va.rs == va.cols &&
                       !trans_batch_a_ && va.batch == batch;
    if (stack) {
      const size_t rows = static_cast<size_t>(NumElements(batch)) * M;
      kernels::F32Gemm(kernel(rows), rows, N, K, op_a(0), op_b(0), py, N, ep, ctx.threads());
    } else {
      const std::vector<int64_t> oa = BatchOffsets(va, batch), ob = BatchOffsets(vb, batch);
      for (size_t i = 0; i < oa.size(); ++i)
        kernels::F32Gemm(kernel(M), M, N, K, op_a(oa[i]), op_b(ob[i]), py + i * M * N, N, ep,
                         ctx.threads());
    }
    if (Y.dtype() != DType::kFloat32) StoreF32As(yf, Y);
  }

  float alpha_ = 1.0f;
  bool trans_a_ = false, trans_b_ = false, trans_batch_a_ = false, trans_batch_b_ = false;
  Tensor b_const_;
  bool has_panels_ = false;
  IsaLevel isa_ = IsaLevel::kBaseline;
  kernels::F32Panels panels_;
  UnpackedGemmRows gemm_rows_;  // GEMMs against a B that is not prepacked
};

Expected<std::unique_ptr<OpKernel>> MakeFusedMatMul(const KernelInit& init) {
  return std::unique_ptr<OpKernel>(new FusedMatMulKernel(init));
}

VT_REGISTER_OP("com.microsoft", "FusedMatMul", 1, kMaxOpset, KernelFactory(MakeFusedMatMul));
VT_REGISTER_OP("com.microsoft", "TransposeMatMul", 1, kMaxOpset, KernelFactory(MakeFusedMatMul));

}  // namespace
}  // namespace vt::ops
