// Building blocks of the recurrent cells (RNN, GRU, LSTM): a small GEMM in "NT" form and the
// ONNX RNN activation functions (Operators.md, RNN "activations").
//
// Hot float paths are written so the compiler vectorises them (no calls in the loops) and
// each has a portable scalar twin, `*_ref`, that the unit tests compare against. They do not
// allocate and know nothing of tensors: pointers, leading dimensions and counts in.
#pragma once

#include <cstdint>
#include <string>

#include "vtensor/base/status.h"

namespace vt::ops::rnn {

// The float GEMM, logistic and tanh of one ISA level: the AVX2 + FMA clones (whose fused
// multiply-adds round differently) or the portable ones; a recurrent node takes its session's
// (--arch) when it is prepared.
//   gemm_nt: C[m*ldc + n] (+)= sum_k A[m*lda + k] * B[n*ldb + k] for m < M, n < N: A times B
//     transposed, which is how ONNX stores W [gates*hidden, input] and R [gates*hidden,
//     hidden]; `accumulate` adds to C instead of overwriting it.
//   sigmoid, tanh: in place, vectorisable, about 2e-7 relative error (tanh keeps its relative
//     accuracy near 0 through a Taylor branch); SigmoidRef and TanhRef below are their libm
//     reference twins.
struct F32Rows {
  const char* name;  // "avx2_fma" or "portable"
  void (*gemm_nt)(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                  int64_t ldb, float* C, int64_t ldc, bool accumulate);
  void (*sigmoid)(float* x, int64_t n);
  void (*tanh)(float* x, int64_t n);
};
// The AVX2 + FMA rows when `avx2_fma` is allowed and the CPU has both, else the portable rows.
const F32Rows& F32RowsFor(bool avx2_fma);

// The rows' float exp approximation for one value, and libm's logistic and tanh (references).
float ExpF32Approx(float x);
float SigmoidRef(float x);
float TanhRef(float x);

// One activation of the ONNX RNN family with its alpha/beta.
struct Activation {
  enum class Kind { kSigmoid, kTanh, kRelu, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh,
                    kHardSigmoid, kElu, kSoftsign, kSoftplus };
  Kind kind = Kind::kSigmoid;
  float alpha = 0, beta = 0;
};

// Parses an activation name (case-insensitive, as ONNX exporters vary) and takes its alpha/beta
// from `alphas`/`betas` at *next_alpha/*next_beta when the function uses them (advancing the
// cursors), else the function's default. Errors: InvalidArgument for an unknown name.
Expected<Activation> MakeActivation(const std::string& name, const float* alphas, size_t n_alphas,
                                    size_t* next_alpha, const float* betas, size_t n_betas,
                                    size_t* next_beta);

// Applies `a` in place to x[0..n) (logistic and tanh: the rows' for float).
void Apply(const F32Rows& rows, const Activation& a, float* x, int64_t n);
void Apply(const F32Rows& rows, const Activation& a, double* x, int64_t n);

// The rows' gemm_nt for float; the double GEMM has one row.
void GemmNT(const F32Rows& rows, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
            const float* B, int64_t ldb, float* C, int64_t ldc, bool accumulate);
void GemmNT(const F32Rows& rows, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
            const double* B, int64_t ldb, double* C, int64_t ldc, bool accumulate);

}  // namespace vt::ops::rnn
