#include "ops/nn/conv_f64.h"

#include <vector>

namespace vt::ops {

void DirectConvF64(const SpatialGeometry& geo, int64_t N, int64_t C, int64_t M, int64_t group,
                   const double* x, const double* w, const double* b, double* y) {
  const size_t r = geo.rank();
  const int64_t in_sz = NumElements(Shape(geo.in.begin(), geo.in.end()));
  const int64_t out_sz = geo.out_numel(), kvol = geo.kernel_numel();
  const int64_t Cg = C / group, Mg = M / group;
  std::vector<int64_t> o(r), k(r);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / Mg;
      double* ym = y + (n * M + m) * out_sz;
      for (int64_t op = 0; op < out_sz; ++op) {
        for (size_t d = r, rem = static_cast<size_t>(op); d-- > 0;) {
          o[d] = static_cast<int64_t>(rem % static_cast<size_t>(geo.out[d]));
          rem /= static_cast<size_t>(geo.out[d]);
        }
        double acc = b != nullptr ? b[m] : 0.0;
        for (int64_t kp = 0; kp < kvol; ++kp) {
          int64_t pos = 0;
          bool inside = true;
          for (size_t d = r, rem = static_cast<size_t>(kp); d-- > 0;) {
            k[d] = static_cast<int64_t>(rem % static_cast<size_t>(geo.kernel[d]));
            rem /= static_cast<size_t>(geo.kernel[d]);
          }
          for (size_t d = 0; d < r; ++d) {
            const int64_t i = o[d] * geo.stride[d] - geo.pad_begin[d] + k[d] * geo.dilation[d];
            if (i < 0 || i >= geo.in[d]) inside = false;
            pos = pos * geo.in[d] + i;
          }
          if (!inside) continue;
          for (int64_t c = 0; c < Cg; ++c)
            acc += x[(n * C + g * Cg + c) * in_sz + pos] * w[(m * Cg + c) * kvol + kp];
        }
        ym[op] = acc;
      }
    }
}

void DirectConvTransposeF64(const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& dil,
                            const std::vector<int64_t>& pad_begin, const std::vector<int64_t>& out,
                            int64_t N, int64_t C, int64_t M, int64_t group, const double* x,
                            const double* w, const double* b, double* y) {
  const size_t r = in.size();
  int64_t in_sz = 1, out_sz = 1, kvol = 1;
  for (size_t d = 0; d < r; ++d) {
    in_sz *= in[d];
    out_sz *= out[d];
    kvol *= kernel[d];
  }
  const int64_t Cg = C / group, Mg = M / group;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t o = 0; o < out_sz; ++o) y[(n * M + m) * out_sz + o] = b != nullptr ? b[m] : 0.0;
  std::vector<int64_t> ip(r), kp(r);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c) {
      const int64_t g = c / Cg;
      const double* xc = x + (n * C + c) * in_sz;
      for (int64_t i = 0; i < in_sz; ++i) {
        for (size_t d = r, rem = static_cast<size_t>(i); d-- > 0;) {
          ip[d] = static_cast<int64_t>(rem % static_cast<size_t>(in[d]));
          rem /= static_cast<size_t>(in[d]);
        }
        for (int64_t k = 0; k < kvol; ++k) {
          for (size_t d = r, rem = static_cast<size_t>(k); d-- > 0;) {
            kp[d] = static_cast<int64_t>(rem % static_cast<size_t>(kernel[d]));
            rem /= static_cast<size_t>(kernel[d]);
          }
          int64_t pos = 0;
          bool inside = true;
          for (size_t d = 0; d < r; ++d) {
            const int64_t p = ip[d] * stride[d] - pad_begin[d] + kp[d] * dil[d];
            if (p < 0 || p >= out[d]) inside = false;
            pos = pos * out[d] + p;
          }
          if (!inside) continue;
          for (int64_t mi = 0; mi < Mg; ++mi)
            y[(n * M + g * Mg + mi) * out_sz + pos] += xc[i] * w[(c * Mg + mi) * kvol + k];
        }
      }
    }
}

}  // namespace vt::ops
