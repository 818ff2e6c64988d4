#include "ops/rnn/rnn_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

// The float GEMM and activations are compiled twice, for AVX2+FMA and for the baseline ISA;
// the CPU is checked once and every call goes to the matching copy.
#if defined(__x86_64__) && defined(__GNUC__)
#define VT_RNN_X86_DISPATCH 1
#define VT_RNN_AVX2 __attribute__((target("avx2,fma")))
#else
#define VT_RNN_X86_DISPATCH 0
#define VT_RNN_AVX2
#endif

// The 32-byte vector helpers below are always inlined; their ABI never crosses a call.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace vt::ops::rnn {

namespace {

// Rows of B handled together so that every load of A's row feeds four accumulators.
constexpr int64_t kRowBlock = 4;

template <typename T>
[[gnu::always_inline]] inline void GemmNTGeneric(int64_t M, int64_t N, int64_t K, const T* A,
                                                 int64_t lda, const T* B, int64_t ldb, T* C,
                                                 int64_t ldc, bool accumulate) {
  for (int64_t m = 0; m < M; ++m) {
    const T* a = A + m * lda;
    T* c = C + m * ldc;
    int64_t n = 0;
    for (; n + kRowBlock <= N; n += kRowBlock) {
      const T* b0 = B + n * ldb;
      const T* b1 = b0 + ldb;
      const T* b2 = b1 + ldb;
      const T* b3 = b2 + ldb;
      T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
      for (int64_t k = 0; k < K; ++k) {
        s0 += a[k] * b0[k];
        s1 += a[k] * b1[k];
        s2 += a[k] * b2[k];
        s3 += a[k] * b3[k];
      }
      if (accumulate) {
        c[n] += s0;
        c[n + 1] += s1;
        c[n + 2] += s2;
        c[n + 3] += s3;
      } else {
        c[n] = s0;
        c[n + 1] = s1;
        c[n + 2] = s2;
        c[n + 3] = s3;
      }
    }
    for (; n < N; ++n) {
      const T* b = B + n * ldb;
      T s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t k = 0; k < K; ++k) s += a[k] * b[k];
      c[n] = accumulate ? c[n] + s : s;
    }
  }
}

// Eight floats per operation; GCC lowers the generic vector to two SSE registers in the
// default clone and to one AVX register in the Haswell clone.
typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));

[[gnu::always_inline]] inline F8 Splat(float v) { return F8{} + v; }

// exp(x) = 2^n * exp(r), r = x - n ln2 in [-ln2/2, ln2/2], exp(r) by its degree-7 Taylor
// polynomial (truncation error below 6e-9 relative). Inputs are clamped so that 2^n stays a
// normal float; rounding to n uses the 1.5*2^23 trick.
[[gnu::always_inline]] inline F8 ExpV(const F8& x0) {
  F8 x = x0;
  const F8 lo = Splat(-87.0f), hi = Splat(88.0f);
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  const F8 round = Splat(12582912.0f);  // 1.5 * 2^23
  F8 n = (x * 1.44269504088896341f + round) - round;
  // ln2 split so that n * kLn2Hi is exact.
  F8 r = x - n * 0.693359375f + n * 2.12194440e-4f;
  F8 p = Splat(1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  I8 bits = (__builtin_convertvector(n, I8) + 127) << 23;
  return p * __builtin_bit_cast(F8, bits);
}

[[gnu::always_inline]] inline F8 SigmoidV(const F8& x) { return 1.0f / (1.0f + ExpV(-x)); }

[[gnu::always_inline]] inline F8 TanhV(const F8& x) {
  const F8 zero = Splat(0.0f);
  const F8 ax = x < zero ? -x : x;
  const F8 nine = Splat(9.0f);
  // 1 - 2/(e^{2|x|}+1) cancels near 0, so small |x| uses the Taylor series of tanh up to x^9
  // (next term below 1e-8 relative at |x| = 0.25).
  const F8 e = ExpV(2.0f * (ax > nine ? nine : ax));
  const F8 big = 1.0f - 2.0f / (e + 1.0f);
  const F8 x2 = ax * ax;
  F8 p = Splat(62.0f / 2835.0f);
  p = p * x2 - 17.0f / 315.0f;
  p = p * x2 + 2.0f / 15.0f;
  p = p * x2 - 1.0f / 3.0f;
  p = p * x2 + 1.0f;
  const F8 small = ax * p;
  const F8 t = ax < Splat(0.25f) ? small : big;
  return x < zero ? -t : t;
}

// Applies FN to x[0..n) eight at a time; the tail goes through a padded vector. (A macro, not
// a lambda: a lambda would be compiled once for the default ISA and called from both clones.)
#define VT_RNN_MAP8(x, n, FN)                                        \
  do {                                                               \
    int64_t i_ = 0;                                                  \
    for (; i_ + 8 <= (n); i_ += 8) {                                 \
      F8 v_;                                                         \
      std::memcpy(&v_, (x) + i_, sizeof v_);                         \
      v_ = FN(v_);                                                   \
      std::memcpy((x) + i_, &v_, sizeof v_);                         \
    }                                                                \
    if (i_ < (n)) {                                                  \
      F8 v_ = Splat(0.0f);                                           \
      std::memcpy(&v_, (x) + i_, static_cast<size_t>((n) - i_) * 4); \
      v_ = FN(v_);                                                   \
      std::memcpy((x) + i_, &v_, static_cast<size_t>((n) - i_) * 4); \
    }                                                                \
  } while (0)

bool UseAvx2() {
#if VT_RNN_X86_DISPATCH
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2;
#else
  return false;
#endif
}

#if VT_RNN_X86_DISPATCH
// Four rows of B per pass with one 8-wide FMA accumulator each; the four dot products are
// reduced together with horizontal adds instead of four separate lane reductions.
VT_RNN_AVX2 void GemmNTF32Avx2(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                               const float* B, int64_t ldb, float* C, int64_t ldc, bool acc) {
  const int64_t k8 = K & ~int64_t{7};
  for (int64_t m = 0; m < M; ++m) {
    const float* a = A + m * lda;
    float* c = C + m * ldc;
    int64_t n = 0;
    for (; n + 4 <= N; n += 4) {
      const float* b0 = B + n * ldb;
      const float* b1 = b0 + ldb;
      const float* b2 = b1 + ldb;
      const float* b3 = b2 + ldb;
      __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
      for (int64_t k = 0; k < k8; k += 8) {
        const __m256 av = _mm256_loadu_ps(a + k);
        s0 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b0 + k), s0);
        s1 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b1 + k), s1);
        s2 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b2 + k), s2);
        s3 = _mm256_fmadd_ps(av, _mm256_loadu_ps(b3 + k), s3);
      }
      const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(s0, s1), _mm256_hadd_ps(s2, s3));
      __m128 r = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
      if (k8 < K) {
        float t[4] = {0, 0, 0, 0};
        for (int64_t k = k8; k < K; ++k) {
          t[0] += a[k] * b0[k];
          t[1] += a[k] * b1[k];
          t[2] += a[k] * b2[k];
          t[3] += a[k] * b3[k];
        }
        r = _mm_add_ps(r, _mm_loadu_ps(t));
      }
      if (acc) r = _mm_add_ps(r, _mm_loadu_ps(c + n));
      _mm_storeu_ps(c + n, r);
    }
    if (n < N) GemmNTGeneric(1, N - n, K, a, lda, B + n * ldb, ldb, c + n, ldc, acc);
  }
}
#endif
void GemmNTF32Base(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
                   int64_t ldb, float* C, int64_t ldc, bool acc) {
  GemmNTGeneric(M, N, K, A, lda, B, ldb, C, ldc, acc);
}
VT_RNN_AVX2 void SigmoidF32Avx2(float* x, int64_t n) { VT_RNN_MAP8(x, n, SigmoidV); }
void SigmoidF32Base(float* x, int64_t n) { VT_RNN_MAP8(x, n, SigmoidV); }
VT_RNN_AVX2 void TanhF32Avx2(float* x, int64_t n) { VT_RNN_MAP8(x, n, TanhV); }
void TanhF32Base(float* x, int64_t n) { VT_RNN_MAP8(x, n, TanhV); }

}  // namespace

const F32Rows& F32RowsFor(bool avx2_fma) {
  static const F32Rows kBase{"portable", GemmNTF32Base, SigmoidF32Base, TanhF32Base};
#if VT_RNN_X86_DISPATCH
  static const F32Rows kAvx2{"avx2_fma", GemmNTF32Avx2, SigmoidF32Avx2, TanhF32Avx2};
  if (avx2_fma && UseAvx2()) return kAvx2;
#else
  (void)avx2_fma;
#endif
  return kBase;
}

void GemmNT(const F32Rows& rows, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
            const float* B, int64_t ldb, float* C, int64_t ldc, bool accumulate) {
  rows.gemm_nt(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void GemmNT(const F32Rows&, int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
            const double* B, int64_t ldb, double* C, int64_t ldc, bool accumulate) {
  GemmNTGeneric(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

float ExpF32Approx(float x) { return ExpV(Splat(x))[0]; }

float SigmoidRef(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))); }
float TanhRef(float x) { return std::tanh(x); }

Expected<Activation> MakeActivation(const std::string& name, const float* alphas, size_t n_alphas,
                                    size_t* next_alpha, const float* betas, size_t n_betas,
                                    size_t* next_beta) {
  std::string n = name;
  for (char& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  using K = Activation::Kind;
  struct Info {
    const char* name;
    K kind;
    bool uses_alpha, uses_beta;
    float def_alpha, def_beta;
  };
  // Defaults follow the ONNX function definitions of the same names.
  static const Info kTable[] = {
      {"sigmoid", K::kSigmoid, false, false, 0, 0},
      {"tanh", K::kTanh, false, false, 0, 0},
      {"relu", K::kRelu, false, false, 0, 0},
      {"affine", K::kAffine, true, true, 1.0f, 0.0f},
      {"leakyrelu", K::kLeakyRelu, true, false, 0.01f, 0},
      {"thresholdedrelu", K::kThresholdedRelu, true, false, 1.0f, 0},
      {"scaledtanh", K::kScaledTanh, true, true, 1.0f, 1.0f},
      {"hardsigmoid", K::kHardSigmoid, true, true, 0.2f, 0.5f},
      {"elu", K::kElu, true, false, 1.0f, 0},
      {"softsign", K::kSoftsign, false, false, 0, 0},
      {"softplus", K::kSoftplus, false, false, 0, 0},
  };
  for (const Info& info : kTable) {
    if (n != info.name) continue;
    Activation a;
    a.kind = info.kind;
    a.alpha = info.def_alpha;
    a.beta = info.def_beta;
    if (info.uses_alpha && *next_alpha < n_alphas) a.alpha = alphas[(*next_alpha)++];
    if (info.uses_beta && *next_beta < n_betas) a.beta = betas[(*next_beta)++];
    return a;
  }
  return InvalidArgument("unknown activation function '" + name + "'");
}

namespace {

template <typename T>
void ApplyGeneric(const Activation& a, T* x, int64_t n) {
  using K = Activation::Kind;
  const T al = static_cast<T>(a.alpha), be = static_cast<T>(a.beta);
  switch (a.kind) {
    case K::kSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = T(1) / (T(1) + std::exp(-x[i]));
      break;
    case K::kTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
    case K::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = std::max(x[i], T(0));
      break;
    case K::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = al * x[i] + be;
      break;
    case K::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : al * x[i];
      break;
    case K::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > al ? x[i] : T(0);
      break;
    case K::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = al * std::tanh(be * x[i]);
      break;
    case K::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::min(T(1), std::max(T(0), al * x[i] + be));
      break;
    case K::kElu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0 ? x[i] : al * (std::exp(x[i]) - T(1));
      break;
    case K::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (T(1) + std::fabs(x[i]));
      break;
    case K::kSoftplus:
      // Above 30 the log1p term is below the precision of x itself (and exp would overflow).
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > T(30) ? x[i] : std::log1p(std::exp(x[i]));
      break;
  }
}

}  // namespace

void Apply(const F32Rows& rows, const Activation& a, float* x, int64_t n) {
  if (a.kind == Activation::Kind::kSigmoid) return rows.sigmoid(x, n);
  if (a.kind == Activation::Kind::kTanh) return rows.tanh(x, n);
  ApplyGeneric(a, x, n);
}

void Apply(const F32Rows&, const Activation& a, double* x, int64_t n) { ApplyGeneric(a, x, n); }

}  // namespace vt::ops::rnn
