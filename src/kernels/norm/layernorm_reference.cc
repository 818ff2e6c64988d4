// The scalar reference twin of the row normalization kernels (layernorm_ukernel.h).
#include <cmath>

#include "kernels/norm/layernorm_ukernel.h"

namespace vt::kernels {

template <typename T>
void LayerNormReferenceT(const LayerNormRowT<T>& r, T* mean, T* inv_std) {
  T total = 0;
  for (size_t i = 0; i < r.n; ++i) {
    T s = r.x[i];
    if (r.a != nullptr) s += r.a[i];
    if (r.b != nullptr) s += r.b[i];
    if (r.sum != nullptr) r.sum[i] = s;
    r.y[i] = s;
    total += r.rms ? s * s : s;
  }
  const T count = static_cast<T>(r.n);
  T m = 0, var = 0;
  if (r.rms) {
    var = total / count;
  } else {
    m = total / count;
    for (size_t i = 0; i < r.n; ++i) var += (r.y[i] - m) * (r.y[i] - m);
    var /= count;
  }
  const T inv = static_cast<T>(1) / std::sqrt(var + static_cast<T>(r.epsilon));
  for (size_t i = 0; i < r.n; ++i) {
    const T g = r.gamma != nullptr ? r.gamma[i] : static_cast<T>(1);
    const T b = r.beta != nullptr ? r.beta[i] : static_cast<T>(0);
    r.y[i] = (r.y[i] - m) * (inv * g) + b;
  }
  *mean = m;
  *inv_std = inv;
}

template void LayerNormReferenceT<float>(const LayerNormRowT<float>&, float*, float*);
template void LayerNormReferenceT<double>(const LayerNormRowT<double>&, double*, double*);

void LayerNormReference(const LayerNormRow& row, float* mean, float* inv_std) {
  LayerNormRowT<float> r;
  r.n = row.n;
  r.x = row.x;
  r.a = row.a;
  r.b = row.b;
  r.gamma = row.gamma;
  r.beta = row.beta;
  r.y = row.y;
  r.sum = row.sum;
  r.epsilon = row.epsilon;
  r.rms = row.rms;
  LayerNormReferenceT(r, mean, inv_std);
}

}  // namespace vt::kernels
