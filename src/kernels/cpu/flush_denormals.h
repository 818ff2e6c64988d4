// Scoped flush-to-zero / denormals-are-zero for the calling thread's SSE/AVX arithmetic.
//
// x86 cores take a microcode assist (on the order of 100 cycles) for every FMA whose operand or
// result is subnormal. Real models ship such weights (PaddleOCR rec has SE-block convolutions
// with ~20% subnormal weights), which made a 57k-MAC convolution take 0.6 ms. Values below
// 1.2e-38 cannot affect an f32 inference result at any meaningful tolerance, so the compute
// kernels run with FTZ|DAZ set and restore the caller's MXCSR afterwards; each OpenMP worker
// must open its own scope (MXCSR is per thread).
#pragma once

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace vt::kernels {

class ScopedFlushDenormals {
 public:
#if defined(__SSE__) || defined(__x86_64__)
  ScopedFlushDenormals() : saved_(_mm_getcsr()) {
    constexpr unsigned kFtz = 0x8000, kDaz = 0x0040;
    if ((saved_ & (kFtz | kDaz)) != (kFtz | kDaz)) _mm_setcsr(saved_ | kFtz | kDaz);
  }
  ~ScopedFlushDenormals() {
    if (_mm_getcsr() != saved_) _mm_setcsr(saved_);
  }

 private:
  unsigned saved_;
#endif
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;
};

}  // namespace vt::kernels
