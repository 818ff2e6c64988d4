#include "kernels/q4/q4_pack.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "vtensor/layout/dtype.h"
#include "vtensor/layout/encoding.h"

namespace vt::kernels {
namespace {

constexpr size_t kQ4_0Bytes = sizeof(BlockQ4_0);
constexpr size_t kQ4_KBytes = sizeof(BlockQ4_K);

// Round half to even and clamp to [0, 15]: the rounding of the encoding's own quantizer.
int Level(float v) {
  if (std::isnan(v)) return 0;
  const float r = std::nearbyint(v);
  return r < 0.0f ? 0 : r > 15.0f ? 15 : static_cast<int>(r);
}

// Quantizes `x` against the f16 scale `h` (as Q4_0Encode does against its own scale) and
// returns the block's sum of squared errors; `out` receives the block.
double QuantizeWithScale(const float* x, uint16_t h, BlockQ4_0* out) {
  const float d = HalfToFloat(h);
  const float inv = d != 0 ? 1.0f / d : 0.0f;
  out->d = h;
  double err = 0;
  for (int j = 0; j < kQ4_0Elems / 2; ++j) {
    const int lo = Level(x[j] * inv + 8.0f);
    const int hi = Level(x[j + kQ4_0Elems / 2] * inv + 8.0f);
    out->qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    const double e0 = double(d) * (lo - 8) - double(x[j]);
    const double e1 = double(d) * (hi - 8) - double(x[j + kQ4_0Elems / 2]);
    err += e0 * e0 + e1 * e1;
  }
  return err;
}

// The search of Q4ScaleSearch::kMinError; `best` holds the kAmax block on entry.
void MinErrorSearch(const float* x, BlockQ4_0* best) {
  float mx = 0;
  for (int i = 0; i < kQ4_0Elems; ++i)
    if (std::fabs(x[i]) > std::fabs(mx)) mx = x[i];
  if (mx == 0 || !std::isfinite(mx)) return;
  double best_err = Q4_0BlockSquaredError(x, reinterpret_cast<const uint8_t*>(best));
  BlockQ4_0 cand;
  auto consider = [&](float d) {
    const uint16_t h = FloatToHalf(d);
    const float dq = HalfToFloat(h);
    if (dq == 0 || !std::isfinite(dq)) return;
    const double e = QuantizeWithScale(x, h, &cand);
    if (e < best_err) {
      best_err = e;
      *best = cand;
    }
  };
  // The extreme value maps to level -8 (the amax rule, shrunk or stretched) or to +7.
  for (const float target : {-8.0f, 7.0f})
    for (int i = -8; i <= 8; ++i) consider(mx / target * (1.0f + static_cast<float>(i) / 32.0f));
  // Least-squares scale for the winning levels: d = sum x*(q-8) / sum (q-8)^2.
  double num = 0, den = 0;
  for (int j = 0; j < kQ4_0Elems / 2; ++j) {
    const int lo = (best->qs[j] & 15) - 8, hi = (best->qs[j] >> 4) - 8;
    num += double(x[j]) * lo + double(x[j + kQ4_0Elems / 2]) * hi;
    den += double(lo) * lo + double(hi) * hi;
  }
  if (den > 0) consider(static_cast<float>(num / den));
}

// Calls `block(n, kb, dst)` for every block of the packed form, in byte order. Panels are
// split over threads; each block is written by exactly one call.
template <typename BlockFn>
void ForEachPanelBlock(size_t n, size_t k, size_t rows, size_t block_elems, size_t block_bytes,
                       uint8_t* dst, int threads, BlockFn block) {
  assert(rows >= 1);
  const size_t kb_count = (k + block_elems - 1) / block_elems;
  const size_t panels = (n + rows - 1) / rows;
  const size_t panel_bytes = kb_count * rows * block_bytes;
  const long long np = static_cast<long long>(panels);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && panels > 1)
  for (long long p = 0; p < np; ++p) {
    uint8_t* out = dst + static_cast<size_t>(p) * panel_bytes;
    for (size_t kb = 0; kb < kb_count; ++kb)
      for (size_t r = 0; r < rows; ++r, out += block_bytes) block(static_cast<size_t>(p) * rows + r, kb, out);
  }
}

// Gathers the logical values W(row, kb*E .. kb*E+E) (zero past n or k) into `buf`.
template <size_t E>
void GatherBlock(size_t n, size_t k, const float* w, size_t ldw, bool kn, size_t row, size_t kb,
                 float* buf) {
  const size_t k0 = kb * E;
  const size_t len = row < n && k0 < k ? std::min(E, k - k0) : 0;
  for (size_t j = 0; j < len; ++j) buf[j] = kn ? w[(k0 + j) * ldw + row] : w[row * ldw + k0 + j];
  std::fill(buf + len, buf + E, 0.0f);
}

void PackQ4_0(size_t n, size_t k, const float* w, size_t ldw, bool kn, size_t rows,
              Q4ScaleSearch search, uint8_t* dst, int threads) {
  ForEachPanelBlock(n, k, rows, kQ4_0Elems, kQ4_0Bytes, dst, threads,
                    [&](size_t row, size_t kb, uint8_t* out) {
                      float buf[kQ4_0Elems];
                      GatherBlock<kQ4_0Elems>(n, k, w, ldw, kn, row, kb, buf);
                      QuantizeQ4_0Block(buf, search, out);
                    });
}

void PackQ4_K(size_t n, size_t k, const float* w, size_t ldw, bool kn, size_t rows, uint8_t* dst,
              int threads) {
  const auto& traits = GetEncodingTraits(Encoding::kQ4_K);
  ForEachPanelBlock(n, k, rows, kQ4_KElems, kQ4_KBytes, dst, threads,
                    [&](size_t row, size_t kb, uint8_t* out) {
                      float buf[kQ4_KElems];
                      GatherBlock<kQ4_KElems>(n, k, w, ldw, kn, row, kb, buf);
                      traits.from_float(buf, out, kQ4_KElems);
                    });
}

}  // namespace

size_t Q4_0PackedBytes(size_t n, size_t k, size_t rows) {
  return (n + rows - 1) / rows * rows * ((k + kQ4_0Elems - 1) / kQ4_0Elems) * kQ4_0Bytes;
}

size_t Q4_KPackedBytes(size_t n, size_t k, size_t rows) {
  return (n + rows - 1) / rows * rows * ((k + kQ4_KElems - 1) / kQ4_KElems) * kQ4_KBytes;
}

void QuantizeQ4_0Block(const float* x, Q4ScaleSearch search, uint8_t* dst) {
  // The encoding's own quantizer is the kAmax policy and the search's first candidate.
  BlockQ4_0 b;
  GetEncodingTraits(Encoding::kQ4_0).from_float(x, &b, kQ4_0Elems);
  if (search == Q4ScaleSearch::kMinError) MinErrorSearch(x, &b);
  std::memcpy(dst, &b, sizeof b);
}

double Q4_0BlockSquaredError(const float* x, const uint8_t* block) {
  BlockQ4_0 b;
  std::memcpy(&b, block, sizeof b);
  const double d = HalfToFloat(b.d);
  double err = 0;
  for (int j = 0; j < kQ4_0Elems / 2; ++j) {
    const double e0 = d * ((b.qs[j] & 15) - 8) - double(x[j]);
    const double e1 = d * ((b.qs[j] >> 4) - 8) - double(x[j + kQ4_0Elems / 2]);
    err += e0 * e0 + e1 * e1;
  }
  return err;
}

void PackF32NkToQ4_0Panels(size_t n, size_t k, const float* w, size_t ldw, size_t rows,
                           Q4ScaleSearch search, uint8_t* dst, int threads) {
  assert(ldw >= k);
  PackQ4_0(n, k, w, ldw, /*kn=*/false, rows, search, dst, threads);
}

void PackF32KnToQ4_0Panels(size_t k, size_t n, const float* w, size_t ldw, size_t rows,
                           Q4ScaleSearch search, uint8_t* dst, int threads) {
  assert(ldw >= n);
  PackQ4_0(n, k, w, ldw, /*kn=*/true, rows, search, dst, threads);
}

void PackF32NkToQ4_KPanels(size_t n, size_t k, const float* w, size_t ldw, size_t rows,
                           uint8_t* dst, int threads) {
  assert(ldw >= k);
  PackQ4_K(n, k, w, ldw, /*kn=*/false, rows, dst, threads);
}

void PackF32KnToQ4_KPanels(size_t k, size_t n, const float* w, size_t ldw, size_t rows,
                           uint8_t* dst, int threads) {
  assert(ldw >= n);
  PackQ4_K(n, k, w, ldw, /*kn=*/true, rows, dst, threads);
}

}  // namespace vt::kernels
