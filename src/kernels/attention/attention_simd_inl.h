// The blocked attention algorithm shared by the AVX-512 and AVX2 rows (attention_ukernel.h,
// docs/attention.md), written once over a vector-traits type T that each ISA file defines in
// its own anonymous namespace and compiles with its own flags. Everything here is a template
// over T, so each ISA file gets its own internal instantiations.
//
// T provides: V (vector), kLanes, Zero, Set1, Add, Mul, Fmadd, Max, Select(mask, a, b) with a
// mask type Mask, RangeMask(lo, hi) (lanes lo <= lane < hi, any ints), Load/LoadN/LoadMasked
// for float and (f16 bits) uint16_t rows, Store/StoreN, ReduceMax, ReduceAdd,
// ReduceKeys(acc[kLanes]) (lane k = sum of acc[k]'s lanes), Exp (0 below -87.3, so
// exp(-inf) = 0), Tanh, and the tile limits kMaxQVectors, kPvMaxRows, PvVectors(rows).
//
// The namespace is anonymous on purpose: an inline function shared by two ISA files could be
// emitted with AVX-512 instructions and then picked by the linker for the AVX2 row too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/attention/attention_ukernel.h"
#include "kernels/cpu/dispatch_mr.h"

namespace vt::kernels {
namespace {
namespace attention_simd {

inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Where one tile of the call stands: rows [r0, r0 + mr) of the flattened heads x rows, the
// key block starting at j0 (score tile column 0), each row's visible keys [ra, rb) inside the
// block (ra == rb: none) and their union [a, b).
struct Tile {
  size_t r0 = 0, mr = 0, j0 = 0, a = 0, b = 0;
  size_t ra[kAttentionMaxMr], rb[kAttentionMaxMr];
};

inline const float* QRow(const AttentionCall& c, size_t r) {
  return c.q + static_cast<ptrdiff_t>(r / c.rows) * c.q_head_stride +
         static_cast<ptrdiff_t>(r % c.rows) * c.q_row_stride;
}
inline float* OutRow(const AttentionCall& c, size_t r) {
  return c.out + static_cast<ptrdiff_t>(r / c.rows) * c.out_head_stride +
         static_cast<ptrdiff_t>(r % c.rows) * c.out_row_stride;
}

// Scores of one row against one group of up to kLanes keys starting at key jg, of which keys
// [ka, kb) (group-relative) are computed; the others are left 0 and never read. ND = number
// of d vectors held in registers; with kTail the last one holds head_size % kLanes elements.
template <class T, class E, size_t ND, bool kTail>
typename T::V ScoreGroup(const AttentionCall& c, const typename T::V* qv, size_t jg, size_t ka,
                         size_t kb) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t tail = c.head_size - (ND - 1) * L;  // elements of the last d vector
  const E* k0 = static_cast<const E*>(c.k) + static_cast<ptrdiff_t>(jg) * c.k_row_stride;
  V acc[L];
  auto one_key = [&](size_t kk) {
    const E* kr = k0 + static_cast<ptrdiff_t>(kk) * c.k_row_stride;
    // Two partial sums halve the dependent FMA chain.
    V s0 = T::Zero(), s1 = T::Zero();
    for (size_t v = 0; v + 1 < ND; v += 2) {
      s0 = T::Fmadd(qv[v], T::Load(kr + v * L), s0);
      if (v + 2 < ND) s1 = T::Fmadd(qv[v + 1], T::Load(kr + (v + 1) * L), s1);
    }
    const V last = kTail ? T::LoadN(kr + (ND - 1) * L, tail) : T::Load(kr + (ND - 1) * L);
    if constexpr (ND % 2 == 1)
      s0 = T::Fmadd(qv[ND - 1], last, s0);
    else
      s1 = T::Fmadd(qv[ND - 1], last, s1);
    acc[kk] = T::Add(s0, s1);
  };
  if (ka == 0 && kb == L) {
    for (size_t kk = 0; kk < L; ++kk) one_key(kk);
  } else {
    for (size_t kk = 0; kk < L; ++kk) acc[kk] = T::Zero();
    for (size_t kk = ka; kk < kb; ++kk) one_key(kk);
  }
  return T::ReduceKeys(acc);
}

// The same for head sizes past ND registers: q read from memory.
template <class T, class E>
typename T::V ScoreGroupLong(const AttentionCall& c, const float* q, size_t jg, size_t ka,
                             size_t kb) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t D = c.head_size, full = D / L * L;
  const E* k0 = static_cast<const E*>(c.k) + static_cast<ptrdiff_t>(jg) * c.k_row_stride;
  V acc[L];
  for (size_t kk = 0; kk < L; ++kk) acc[kk] = T::Zero();
  for (size_t kk = ka; kk < kb; ++kk) {
    const E* kr = k0 + static_cast<ptrdiff_t>(kk) * c.k_row_stride;
    V s0 = T::Zero(), s1 = T::Zero();
    size_t d = 0;
    for (; d + 2 * L <= full; d += 2 * L) {
      s0 = T::Fmadd(T::Load(q + d), T::Load(kr + d), s0);
      s1 = T::Fmadd(T::Load(q + d + L), T::Load(kr + d + L), s1);
    }
    if (d < full) s0 = T::Fmadd(T::Load(q + d), T::Load(kr + d), s0), d += L;
    if (d < D) s1 = T::Fmadd(T::LoadN(q + d, D - d), T::LoadN(kr + d, D - d), s1);
    acc[kk] = T::Add(s0, s1);
  }
  return T::ReduceKeys(acc);
}

// Decode path: raw dot products q.k of every row of the tile over its visible keys, into the
// score tile (row rr at tile + rr * pitch, column j - j0). Rows outside, key groups inside:
// the q vectors stay in registers (keys outside measured 7% slower).
template <class T, class E, size_t ND>
void ScoresTile(const AttentionCall& c, const Tile& t, float* tile, size_t pitch) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  for (size_t rr = 0; rr < t.mr; ++rr) {
    if (t.ra[rr] >= t.rb[rr]) continue;
    const float* q = QRow(c, t.r0 + rr);
    V qv[ND > 0 ? ND : 1];
    if constexpr (ND > 0) {
      for (size_t v = 0; v + 1 < ND; ++v) qv[v] = T::Load(q + v * L);
      qv[ND - 1] = T::LoadN(q + (ND - 1) * L, c.head_size - (ND - 1) * L);
    }
    for (size_t g = (t.ra[rr] - t.j0) / L * L; t.j0 + g < t.rb[rr]; g += L) {
      const size_t jg = t.j0 + g;
      const size_t ka = t.ra[rr] > jg ? t.ra[rr] - jg : 0;
      const size_t kb = std::min(L, t.rb[rr] - jg);
      V s;
      if constexpr (ND > 0) {
        if (c.head_size % L != 0)
          s = ScoreGroup<T, E, ND, true>(c, qv, jg, ka, kb);
        else
          s = ScoreGroup<T, E, ND, false>(c, qv, jg, ka, kb);
      } else
        s = ScoreGroupLong<T, E>(c, q, jg, ka, kb);
      T::Store(tile + rr * pitch + g, s);
    }
  }
}

// Prefill path: the block's keys transposed once into Kt (element (d, jj) at kt[d * KB + jj],
// f32, zero past the block), so score tiles of many query rows are plain outer-product sums
// with broadcast q elements and no reductions.
template <class T, class E, size_t KB>
void PackKt(const AttentionCall& c, size_t j0, size_t n, float* kt) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t D = c.head_size;
  for (size_t g = 0; g < n; g += L) {
    const size_t keys = std::min(L, n - g);
    const E* k0 = static_cast<const E*>(c.k) + static_cast<ptrdiff_t>(j0 + g) * c.k_row_stride;
    for (size_t d0 = 0; d0 < D; d0 += L) {
      const size_t w = std::min(L, D - d0);
      V r[L];
      for (size_t kk = 0; kk < L; ++kk) {
        const E* src = k0 + static_cast<ptrdiff_t>(kk) * c.k_row_stride + d0;
        r[kk] = kk >= keys ? T::Zero() : w == L ? T::Load(src) : T::LoadN(src, w);
      }
      T::Transpose(r);
      for (size_t x = 0; x < w; ++x) T::Store(kt + (d0 + x) * KB + g, r[x]);
    }
  }
}

// Score rows [rg0, rg0 + R) of the tile for key vectors [v0, v0 + NV) (tile columns
// v0 * kLanes ...) from Kt.
template <class T, size_t KB, size_t R, size_t NV>
void ScoresPackedChunk(const AttentionCall& c, const Tile& t, size_t rg0, size_t v0,
                       const float* kt, float* tile, size_t pitch) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const float* q[R];
  for (size_t rr = 0; rr < R; ++rr) q[rr] = QRow(c, t.r0 + rg0 + rr);
  V acc[R][NV];
  for (size_t rr = 0; rr < R; ++rr)
    for (size_t v = 0; v < NV; ++v) acc[rr][v] = T::Zero();
  const float* kd = kt + v0 * L;
  for (size_t d = 0; d < c.head_size; ++d, kd += KB) {
    V kv[NV];
    for (size_t v = 0; v < NV; ++v) kv[v] = T::Load(kd + v * L);
    for (size_t rr = 0; rr < R; ++rr) {
      const V qb = T::Set1(q[rr][d]);
      for (size_t v = 0; v < NV; ++v) acc[rr][v] = T::Fmadd(qb, kv[v], acc[rr][v]);
    }
  }
  for (size_t rr = 0; rr < R; ++rr)
    for (size_t v = 0; v < NV; ++v) T::Store(tile + (rg0 + rr) * pitch + (v0 + v) * L, acc[rr][v]);
}

template <class T, size_t KB, size_t R>
void ScoresPackedRows(const AttentionCall& c, const Tile& t, size_t rg0, const float* kt,
                      float* tile, size_t pitch) {
  constexpr size_t L = T::kLanes, NV = T::kScoreVectors;
  size_t v = (t.a - t.j0) / L;
  const size_t vend = (t.b - t.j0 + L - 1) / L;
  for (; v + NV <= vend; v += NV) ScoresPackedChunk<T, KB, R, NV>(c, t, rg0, v, kt, tile, pitch);
  if (v < vend)
    DispatchMr<NV>(vend - v, [&](auto N) {
      ScoresPackedChunk<T, KB, R, decltype(N)::value>(c, t, rg0, v, kt, tile, pitch);
    });
}

template <class T, size_t KB>
void ScoresPacked(const AttentionCall& c, const Tile& t, const float* kt, float* tile,
                  size_t pitch) {
  for (size_t rg0 = 0; rg0 < t.mr; rg0 += T::kScoreRows)
    DispatchMr<T::kScoreRows>(t.mr - rg0, [&](auto R) {
      ScoresPackedRows<T, KB, decltype(R)::value>(c, t, rg0, kt, tile, pitch);
    });
}

// Additive term `b` of row r for the L keys from j (lanes outside `m` not read).
template <class T>
typename T::V LoadBias(const AttentionCall& c, const AttentionBias& b, size_t r, size_t j,
                       typename T::Mask m) {
  const float* p = b.data + static_cast<ptrdiff_t>(r / c.rows) * b.head_stride +
                   static_cast<ptrdiff_t>(r % c.rows) * b.row_stride +
                   static_cast<ptrdiff_t>(j) * b.key_stride;
  if (b.key_stride == 1) return T::LoadMasked(p, m);
  if (b.key_stride == 0) return T::Set1(*p);
  alignas(64) float tmp[T::kLanes];
  for (size_t l = 0; l < T::kLanes; ++l)
    tmp[l] = T::LaneOn(m, l) ? p[static_cast<ptrdiff_t>(l) * b.key_stride] : 0.0f;
  return T::Load(tmp);
}

// Turns row rr's raw dot products over the tile's key union into probabilities relative to the
// row's new running max (scale, softcap, bias and mask terms, visibility; the online softmax
// update). Sets corr[rr], the factor the row's output accumulator must be multiplied by before
// adding P * V.
template <class T>
void SoftmaxRow(const AttentionCall& c, const Tile& t, size_t rr, float* prow, float* m_run,
                float* l_run, float* corr) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  const size_t first = (t.a - t.j0) / L * L, end = t.b - t.j0;
  const int64_t lo = static_cast<int64_t>(t.ra[rr]) - static_cast<int64_t>(t.j0);
  const int64_t hi = static_cast<int64_t>(t.rb[rr]) - static_cast<int64_t>(t.j0);
  const V scale = T::Set1(c.scale), ninf = T::Set1(kNegInf);
  const bool cap = c.softcap > 0.0f;
  const V capv = T::Set1(c.softcap), inv_cap = T::Set1(1.0f / c.softcap);
  const size_t r = t.r0 + rr;
  if (lo >= hi) {  // no visible key in this block: no contribution
    for (size_t g = first; g < end; g += L) T::Store(prow + g, T::Zero());
    corr[rr] = 1.0f;
    return;
  }
  V vmax = ninf;
  for (size_t g = first; g < end; g += L) {
    const auto m = T::RangeMask(lo - static_cast<int64_t>(g), hi - static_cast<int64_t>(g));
    V x = T::Mul(T::Load(prow + g), scale);
    if (cap) x = T::Mul(capv, T::Tanh(T::Mul(x, inv_cap)));
    if (c.bias.data != nullptr) x = T::Add(x, LoadBias<T>(c, c.bias, r, t.j0 + g, m));
    if (c.mask.data != nullptr) x = T::Add(x, LoadBias<T>(c, c.mask, r, t.j0 + g, m));
    x = T::Select(m, x, ninf);
    T::Store(prow + g, x);
    vmax = T::Max(vmax, x);
  }
  const float mn = std::max(m_run[r], T::ReduceMax(vmax));
  if (mn == kNegInf) {  // nothing finite seen yet: no contribution
    for (size_t g = first; g < end; g += L) T::Store(prow + g, T::Zero());
    corr[rr] = 1.0f;
    return;
  }
  const V mv = T::Set1(mn);
  V sum = T::Zero();
  for (size_t g = first; g < end; g += L) {
    const V p = T::Exp(T::Sub(T::Load(prow + g), mv));
    T::Store(prow + g, p);
    sum = T::Add(sum, p);
  }
  corr[rr] = std::exp(m_run[r] - mn);
  l_run[r] = l_run[r] * corr[rr] + T::ReduceAdd(sum);
  m_run[r] = mn;
}

// Output columns [e0, e0 + NV * kLanes) of rows [r0 + rg0, + R): out = out * corr + P * V over
// keys [a, b); with kTail the last vector holds only `last` columns. Fixed trip counts keep the
// R x NV accumulators in registers.
template <class T, class E, size_t R, size_t NV, bool kTail>
void PvChunk(const AttentionCall& c, const Tile& t, float* const* o, const float* const* p,
             const float* corr, size_t e0, size_t last) {
  using V = typename T::V;
  constexpr size_t L = T::kLanes;
  V acc[R][NV];
  for (size_t rr = 0; rr < R; ++rr) {
    const V cr = T::Set1(corr[rr]);
    for (size_t v = 0; v < NV; ++v) {
      const float* src = o[rr] + e0 + v * L;
      acc[rr][v] = T::Mul(kTail && v + 1 == NV ? T::LoadN(src, last) : T::Load(src), cr);
    }
  }
  const E* vp = static_cast<const E*>(c.v) + static_cast<ptrdiff_t>(t.a) * c.v_row_stride + e0;
  for (size_t j = t.a - t.j0; j < t.b - t.j0; ++j, vp += c.v_row_stride) {
    V x[NV];
    for (size_t v = 0; v < NV; ++v)
      x[v] = kTail && v + 1 == NV ? T::LoadN(vp + v * L, last) : T::Load(vp + v * L);
    for (size_t rr = 0; rr < R; ++rr) {
      const V pj = T::Set1(p[rr][j]);
      for (size_t v = 0; v < NV; ++v) acc[rr][v] = T::Fmadd(pj, x[v], acc[rr][v]);
    }
  }
  for (size_t rr = 0; rr < R; ++rr)
    for (size_t v = 0; v < NV; ++v) {
      float* dst = o[rr] + e0 + v * L;
      if (kTail && v + 1 == NV)
        T::StoreN(dst, acc[rr][v], last);
      else
        T::Store(dst, acc[rr][v]);
    }
}

// Rows [r0 + rg0, + R) over all output columns: full chunks of NV vectors, then the rest.
template <class T, class E, size_t R, size_t NV>
void PvTile(const AttentionCall& c, const Tile& t, size_t rg0, const float* tile, size_t pitch,
            const float* corr) {
  constexpr size_t L = T::kLanes;
  const size_t Dv = c.v_head_size;
  float* o[R];
  const float* p[R];
  for (size_t rr = 0; rr < R; ++rr) {
    o[rr] = OutRow(c, t.r0 + rg0 + rr);
    p[rr] = tile + (rg0 + rr) * pitch;
  }
  size_t e0 = 0;
  for (; e0 + NV * L <= Dv; e0 += NV * L)
    PvChunk<T, E, R, NV, false>(c, t, o, p, corr + rg0, e0, L);
  if (e0 == Dv) return;
  const size_t n = Dv - e0, nv = (n + L - 1) / L, last = n - (nv - 1) * L;
  DispatchMr<NV>(nv, [&](auto NVR) {
    if (last == L)
      PvChunk<T, E, R, decltype(NVR)::value, false>(c, t, o, p, corr + rg0, e0, L);
    else
      PvChunk<T, E, R, decltype(NVR)::value, true>(c, t, o, p, corr + rg0, e0, last);
  });
}

template <class T, class E>
void PvRows(const AttentionCall& c, const Tile& t, const float* tile, size_t pitch,
            const float* corr) {
  for (size_t rg0 = 0; rg0 < t.mr; rg0 += T::kPvMaxRows) {
    DispatchMr<T::kPvMaxRows>(t.mr - rg0, [&](auto R) {
        constexpr size_t kR = decltype(R)::value;
      PvTile<T, E, kR, T::PvVectors(kR)>(c, t, rg0, tile, pitch, corr);
    });
  }
}

// out = out * f / l for each row, or 0 for rows that saw no finite score.
template <class T>
void FinishRows(const AttentionCall& c, const float* m_run, const float* l_run) {
  constexpr size_t L = T::kLanes;
  for (size_t r = 0; r < c.heads * c.rows; ++r) {
    float w = 0.0f;
    if (m_run[r] != kNegInf) {
      float f = 1.0f, l = l_run[r];
      if (c.sink != nullptr) {
        const float s = c.sink[r / c.rows], m2 = std::max(m_run[r], s);
        f = std::exp(m_run[r] - m2);
        l = l * f + std::exp(s - m2);
      }
      w = f / l;
    }
    float* o = OutRow(c, r);
    const typename T::V wv = T::Set1(w);
    for (size_t e = 0; e < c.v_head_size; e += L) {
      const size_t n = std::min(L, c.v_head_size - e);
      T::StoreN(o + e, T::Mul(T::LoadN(o + e, n), wv), n);
    }
  }
}

template <class T, class E, size_t MR, size_t KB, size_t ND>
void Run(const AttentionCall& c, float* scratch) {
  static_assert(MR <= kAttentionMaxMr && KB <= kAttentionMaxKeyBlock && KB % T::kLanes == 0);
  constexpr size_t L = T::kLanes, pitch = KB + L;
  const size_t M = c.heads * c.rows;
  float* m_run = scratch;
  float* l_run = m_run + M;
  float* corr = l_run + M;
  float* tile = corr + MR;
  float* kt = tile + MR * pitch;  // head_size x KB when packing
  const bool packed = M >= T::kPackMinRows;
  size_t glo = c.kv_end, ghi = 0;
  for (size_t i = 0; i < c.rows; ++i) {
    size_t lo, hi;
    AttentionVisibleKeys(c, i, &lo, &hi);
    if (lo < hi) glo = std::min(glo, lo), ghi = std::max(ghi, hi);
  }
  for (size_t r = 0; r < M; ++r) {
    m_run[r] = kNegInf;
    l_run[r] = 0.0f;
    float* o = OutRow(c, r);
    for (size_t e = 0; e < c.v_head_size; e += L)
      T::StoreN(o + e, T::Zero(), std::min(L, c.v_head_size - e));
  }
  for (size_t j0 = glo; j0 < ghi; j0 += KB) {
    const size_t jend = std::min(j0 + KB, ghi);
    if (packed) PackKt<T, E, KB>(c, j0, jend - j0, kt);
    for (size_t r0 = 0; r0 < M; r0 += MR) {
      Tile t;
      t.r0 = r0, t.mr = std::min(MR, M - r0), t.j0 = j0, t.a = jend, t.b = j0;
      for (size_t rr = 0; rr < t.mr; ++rr) {
        size_t lo, hi;
        AttentionVisibleKeys(c, (r0 + rr) % c.rows, &lo, &hi);
        t.ra[rr] = std::max(lo, j0), t.rb[rr] = std::min(hi, jend);
        if (t.ra[rr] < t.rb[rr])
          t.a = std::min(t.a, t.ra[rr]), t.b = std::max(t.b, t.rb[rr]);
        else
          t.ra[rr] = t.rb[rr] = j0;
      }
      if (t.a >= t.b) continue;
      if (packed)
        ScoresPacked<T, KB>(c, t, kt, tile, pitch);
      else
        ScoresTile<T, E, ND>(c, t, tile, pitch);
      for (size_t rr = 0; rr < t.mr; ++rr)
        SoftmaxRow<T>(c, t, rr, tile + rr * pitch, m_run, l_run, corr);
      PvRows<T, E>(c, t, tile, pitch, corr);
    }
  }
  FinishRows<T>(c, m_run, l_run);
}

// The row entry point: K / V element type and the number of q registers chosen at run time.
template <class T, size_t MR, size_t KB>
void Attention(const AttentionCall& c, float* scratch) {
  if (c.heads * c.rows == 0 || c.v_head_size == 0) return;
  const size_t nd = (c.head_size + T::kLanes - 1) / T::kLanes;
  auto go = [&]<class E>(E*) {
    if (nd > T::kMaxQVectors) return Run<T, E, MR, KB, 0>(c, scratch);
    DispatchMr<T::kMaxQVectors>(nd == 0 ? 1 : nd, [&](auto ND) {
      Run<T, E, MR, KB, decltype(ND)::value>(c, scratch);
    });
  };
  if (c.kv_type == AttentionKv::kF16)
    go(static_cast<uint16_t*>(nullptr));
  else
    go(static_cast<float*>(nullptr));
}

}  // namespace attention_simd
}  // namespace
}  // namespace vt::kernels
