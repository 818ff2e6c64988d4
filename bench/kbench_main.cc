// vtensor-kbench: our CPU kernels next to oneDNN on the same shapes, in one
// run, single-threaded, with the ratio of each pair and each weight-streaming kernel's
// effective bandwidth against a sequential-read floor measured over the same bytes.
//
// Rows (Google Benchmark names, <family>/<shape>/<impl>):
//   sgemm/1024^3, sgemm/2048^3     plain row-major A, B, C: F32Gemm (B passed as the
//                                  runtime's MatMul passes a non-constant B; the driver
//                                  packs its rows per call) vs dnnl_sgemm; /paired alternates one call of each per
//                                  iteration and reports the median per-pair ratio, which
//                                  the summary judges (robust to the machine's drift).
//   sgemm_prepacked/1024^3, /2048^3  the bar ("oneDNN sgemm with prepacked weights"):
//                                  B packed once as the runtime packs constant weights;
//                                  F32Gemm on the panels vs a oneDNN matmul primitive whose
//                                  weights were reordered once; /paired as above.
//   f32_decode/M=1|8/K=N=4096      prepacked weights: F32Gemm on panels (the runtime's
//                                  constant-weight path) vs a oneDNN matmul primitive whose
//                                  weights (format_tag::any) were reordered once.
//   int8/M=128/K=N=4096            u8 x s8 -> s32: Int8Gemm on VNNI panels vs oneDNN matmul
//                                  (u8 src, s8 weights reordered once, s32 dst); /paired as
//                                  for sgemm.
//   conv3x3/C=96/M=24/160x160, conv3x3/C=64/M=64/56x56  3x3 convolution, stride 1, pad 1,
//                                  bias, one image: our Winograd F(4x4, 3x3) driver (filter
//                                  panels made once) vs a oneDNN convolution_forward primitive
//                                  (weights reordered once, plain nchw src and dst); outputs
//                                  compared once before timing; /paired as for sgemm.
//   int4/M=1/K=N=4096              Q4_0Gemm with the default q4_0 kernel (on AVX-512 VNNI
//                                  the int8-activation row; q4_0 weights packed for it); no
//                                  oneDNN counterpart, judged against the read floor.
//   nbits4/M=1/K=N=4096            MatMulNBits (4-bit, block 32, uint8 zero points) on the
//                                  kernels/nbits panels (f32 activations); judged against the
//                                  read floor of its three planes (informational);
//   nbits4_q8/M=1/K=N=4096         the same with int8 activations (accuracy_level 4, VNNI).
//   nbits4_q8/M=2|16|32|128/K=N=4096 prefill shapes: /ours is the driver as the runtime calls
//                                  it (the tile pair from kNBitsTileMinRows rows on), /rows
//                                  the same q8 row without its tile pair (the MR-row
//                                  microkernel per 8 rows); compare their GFLOP/s.
//   f32_in_place/<kn|nk>/M=1|2|4|8/K=N=4096/paired  small-M GEMM reading the weight in its
//                                  source layout (kernels/gemm/f32_gemv.h: [K, N] as MatMul
//                                  stores it, [N, K] as Gemm transB = 1 does) against F32Gemm
//                                  on the panels the runtime packs, alternating one call of
//                                  each per iteration; ratio = packed time / in-place time
//                                  (median per pair; > 1: in place is faster). No oneDNN.
//   read/<bytes>                   STREAM-like sequential read (sum) of the same buffers.
// Decode rows rotate over enough weight copies to exceed the last-level cache
// (--kbench_cold_mib, default 2 x L3), so every call streams its weights from DRAM, as a
// decoder stepping through layers does. The summary uses CPU time (robust on a shared
// machine; everything is single-threaded).
//
// usage: vtensor-kbench [--kbench_cold_mib=N] [--kbench_quick] [Google Benchmark flags]
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dnnl.hpp"
#include "kernels/conv/f32_winograd.h"
#include "kernels/cpu/read_floor.h"
#include "kernels/gemm/f32_gemm.h"
#include "kernels/gemm/f32_gemv.h"
#include "kernels/int8/int8_gemm.h"
#include "kernels/nbits/nbits_gemm.h"
#include "kernels/nbits/nbits_pack.h"
#include "kernels/q4/q4_gemm.h"
#include "vtensor/base/aligned_alloc.h"

namespace {

namespace vk = vt::kernels;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

size_t g_cold_bytes = 0;  // total bytes of rotated weight copies per decode row
bool g_quick = false;

// 64-byte aligned storage (a cache line), as the runtime's tensors are: both libraries get the
// same buffers, and no row of A, B or C starts mid-line because of malloc's 16-byte alignment.
using vt::AlignedVector;

template <typename T>
AlignedVector<T> RandomVector(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 g(seed);
  AlignedVector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto& x : v) x = d(g);
  } else {
    std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(),
                                         std::numeric_limits<T>::max());
    for (auto& x : v) x = static_cast<T>(d(g));
  }
  return v;
}

// Number of copies of `bytes` so that the copies together exceed the cold-set size.
size_t Copies(size_t bytes) { return std::max<size_t>(1, (g_cold_bytes + bytes - 1) / bytes); }

void SetRates(benchmark::State& st, double flops, double bytes) {
  st.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  st.counters["bytes"] = bytes;
}

// ---- sgemm: plain row-major operands -------------------------------------------------------

// Row-major A, B, C of n x n; B not a constant, passed as the runtime's MatMul passes it (rows in
// place; the driver packs them per call at this size), and oneDNN's sgemm packs it per call.
struct PlainSgemm {
  size_t n;
  AlignedVector<float> a, b, c;
  // What the runtime picks for a MatMul whose B is not a constant (packed per call).
  const vk::F32GemmKernel& kr;
  explicit PlainSgemm(size_t n_)
      : n(n_), a(RandomVector<float>(n * n, 1)), b(RandomVector<float>(n * n, 2)), c(n * n),
        kr(vk::F32GemmKernelForUnpackedB(n, n)) {}
  void Ours() {
    vk::F32GemmA A{vk::F32GemmA::Kind::kMk, a.data(), n, nullptr};
    vk::F32GemmB B{vk::F32GemmB::Kind::kKn, b.data(), n};
    vk::F32Gemm(kr, n, n, n, A, B, c.data(), n, {}, 1);
    benchmark::DoNotOptimize(c.data());
  }
  bool OneDnn() {
    const auto d = static_cast<dnnl_dim_t>(n);
    const bool ok = dnnl_sgemm('N', 'N', d, d, d, 1.0f, a.data(), d, b.data(), d, 0.0f,
                               c.data(), d) == dnnl_success;
    benchmark::DoNotOptimize(c.data());
    return ok;
  }
  std::string OneDnnName() const { return "dnnl_sgemm"; }
};

// Process CPU time in seconds (every thread of the process: a library helper thread counts).
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Value at quantile q (0..1) of `v` (sorted in place); 0 when empty.
double Quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

constexpr int kPairWarmup = 2;  // pairs run before the timed ones (first-touch, page faults)

// Paired measurement: every iteration is one call of ours and one call of oneDNN (each the
// matching separate row's call, on the same operands), each timed by its own process-CPU clock;
// the order alternates from one iteration to the next, so neither side always runs on the
// caches the other left. The ratio of a pair (oneDNN time / our time) is taken while the VM's
// speed is about the same for both calls, so slow phases of the machine (another vCPU's load,
// frequency changes) cancel out instead of landing on one row. Counters: ratio (median over the
// pairs), ratio_q25 / ratio_q75, pairs (how many were timed; kPairWarmup more ran untimed
// first), ours_ms / onednn_ms (median times per call). `onednn` returns false on failure.
template <typename Ours, typename OneDnn>
void RunPaired(benchmark::State& st, Ours&& ours_call, OneDnn&& onednn_call) {
  bool failed = false;
  auto ours = [&] {
    const double t0 = ProcessCpuSeconds();
    ours_call();
    return ProcessCpuSeconds() - t0;
  };
  auto onednn = [&] {
    const double t0 = ProcessCpuSeconds();
    if (!onednn_call()) failed = true;
    return ProcessCpuSeconds() - t0;
  };
  for (int i = 0; i < kPairWarmup; ++i) {
    ours();
    onednn();
  }
  std::vector<double> ratio, t_ours, t_dnnl;
  size_t iter = 0;
  for (auto _ : st) {
    double to = 0, td = 0;
    if (iter++ % 2 == 0) {
      to = ours();
      td = onednn();
    } else {
      td = onednn();
      to = ours();
    }
    if (failed) {
      st.SkipWithError("oneDNN call failed");
      break;
    }
    ratio.push_back(td / to);
    t_ours.push_back(to);
    t_dnnl.push_back(td);
  }
  st.counters["ratio"] = Quantile(ratio, 0.5);
  st.counters["ratio_q25"] = Quantile(ratio, 0.25);
  st.counters["ratio_q75"] = Quantile(ratio, 0.75);
  st.counters["pairs"] = static_cast<double>(ratio.size());
  st.counters["ours_ms"] = Quantile(t_ours, 0.5) * 1e3;
  st.counters["onednn_ms"] = Quantile(t_dnnl, 0.5) * 1e3;
}

// ---- f32 decode: prepacked weights, streamed from DRAM ----------------------------------------

constexpr size_t kDecodeK = 4096, kDecodeN = 4096;

void DecodeOurs(benchmark::State& st, size_t m) {
  const size_t K = kDecodeK, N = kDecodeN;
  const vk::F32GemmKernel& kr = vk::F32GemmKernelForM(m);
  // The runtime packs constant weights once with the default kernel's NR.
  const auto w = RandomVector<float>(K * N, 3);
  std::vector<vk::F32Panels> copies;
  for (size_t i = 0; i < Copies(K * N * 4); ++i)
    copies.push_back(vk::MakeF32PanelsFromKn(kr.nr, K, N, w.data(), N));
  const auto x = RandomVector<float>(m * K, 4);
  std::vector<float> y(m * N);
  vk::F32GemmA A{vk::F32GemmA::Kind::kMk, x.data(), K, nullptr};
  size_t i = 0;
  for (auto _ : st) {
    vk::F32GemmB B{vk::F32GemmB::Kind::kPanels, nullptr, 0, &copies[i]};
    vk::F32Gemm(kr, m, N, K, A, B, y.data(), N, {}, 1);
    benchmark::DoNotOptimize(y.data());
    i = (i + 1) % copies.size();
  }
  st.SetLabel(std::string(kr.name) + " x" + std::to_string(copies.size()) + " copies");
  SetRates(st, 2.0 * m * N * K, 4.0 * K * N);
}

// A oneDNN matmul whose weights are given as `any` and reordered once from plain [K, N].
struct OneDnnMatmul {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul prim;

  OneDnnMatmul(size_t m, size_t k, size_t n, dt src, dt wei, dt dst) {
    const dnnl::memory::dim M = m, K = k, N = n;
    dnnl::memory::desc a_md({M, K}, src, tag::ab), b_md({K, N}, wei, tag::any),
        c_md({M, N}, dst, tag::ab);
    pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng);
    prim = dnnl::matmul(pd);
  }
  dnnl::memory PackWeights(const void* plain, size_t k, size_t n, dt wei) {
    dnnl::memory user({{static_cast<dnnl::memory::dim>(k), static_cast<dnnl::memory::dim>(n)},
                       wei, tag::ab},
                      eng, const_cast<void*>(plain));
    dnnl::memory packed(pd.weights_desc(), eng);
    dnnl::reorder(user, packed).execute(strm, user, packed);
    strm.wait();
    return packed;
  }
  void Run(dnnl::memory& a, dnnl::memory& w, dnnl::memory& c) {
    prim.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, c}});
    strm.wait();
  }
  std::string Impl() const { return pd.impl_info_str(); }
};

void DecodeOneDnn(benchmark::State& st, size_t m) {
  const size_t K = kDecodeK, N = kDecodeN;
  OneDnnMatmul mm(m, K, N, dt::f32, dt::f32, dt::f32);
  const auto w = RandomVector<float>(K * N, 3);
  std::vector<dnnl::memory> copies;
  for (size_t i = 0; i < Copies(K * N * 4); ++i) copies.push_back(mm.PackWeights(w.data(), K, N, dt::f32));
  auto x = RandomVector<float>(m * K, 4);
  std::vector<float> y(m * N);
  dnnl::memory a(mm.pd.src_desc(), mm.eng, x.data()), c(mm.pd.dst_desc(), mm.eng, y.data());
  size_t i = 0;
  for (auto _ : st) {
    mm.Run(a, copies[i], c);
    benchmark::DoNotOptimize(y.data());
    i = (i + 1) % copies.size();
  }
  st.SetLabel(mm.Impl() + " x" + std::to_string(copies.size()) + " copies");
  SetRates(st, 2.0 * m * N * K, 4.0 * K * N);
}

// ---- sgemm with prepacked weights (the bar: "oneDNN sgemm with prepacked weights") ------
// B is a constant packed once, as the runtime packs MatMul / Gemm weights at load: ours on the
// panels of the default kernel's NR with the row the runtime picks for M = n; oneDNN's matmul
// primitive with weights (format_tag::any) reordered once. A and C plain row-major.

struct PrepackedSgemm {
  size_t n;
  AlignedVector<float> a, b, c;
  const vk::F32GemmKernel& kr;
  vk::F32Panels panels;
  OneDnnMatmul mm;
  dnnl::memory packed, am, cm;
  explicit PrepackedSgemm(size_t n_)
      : n(n_), a(RandomVector<float>(n * n, 1)), b(RandomVector<float>(n * n, 2)), c(n * n),
        kr(vk::F32GemmKernelForPanels(n, n)),
        panels(vk::MakeF32PanelsFromKn(vk::DefaultF32GemmKernel().nr, n, n, b.data(), n)),
        mm(n, n, n, dt::f32, dt::f32, dt::f32),
        packed(mm.PackWeights(b.data(), n, n, dt::f32)),
        am(mm.pd.src_desc(), mm.eng, a.data()),
        cm(mm.pd.dst_desc(), mm.eng, c.data()) {}
  void Ours() {
    vk::F32GemmA A{vk::F32GemmA::Kind::kMk, a.data(), n, nullptr};
    vk::F32GemmB B{vk::F32GemmB::Kind::kPanels, nullptr, 0, &panels};
    vk::F32Gemm(kr, n, n, n, A, B, c.data(), n, {}, 1);
    benchmark::DoNotOptimize(c.data());
  }
  bool OneDnn() {
    mm.Run(am, packed, cm);
    benchmark::DoNotOptimize(c.data());
    return true;
  }
  std::string OneDnnName() const { return mm.Impl(); }
};

// The three rows of an sgemm family: Setup is PlainSgemm or PrepackedSgemm (n x n operands,
// Ours() / OneDnn() one call each, OneDnn() false on failure).
template <typename Setup>
void SgemmOurs(benchmark::State& st, size_t n) {
  Setup g(n);
  for (auto _ : st) g.Ours();
  st.SetLabel(g.kr.name);
  SetRates(st, 2.0 * n * n * n, 0);
}

template <typename Setup>
void SgemmOneDnn(benchmark::State& st, size_t n) {
  Setup g(n);
  for (auto _ : st)
    if (!g.OneDnn()) {
      st.SkipWithError("oneDNN call failed");
      break;
    }
  st.SetLabel(g.OneDnnName());
  SetRates(st, 2.0 * n * n * n, 0);
}

// The /ours and /onednn calls, alternating.
template <typename Setup>
void SgemmPaired(benchmark::State& st, size_t n) {
  Setup g(n);
  RunPaired(st, [&] { g.Ours(); }, [&] { return g.OneDnn(); });
  st.SetLabel(std::string(g.kr.name) + " | " + g.OneDnnName() + ", alternating order");
}

// ---- int8: u8 x s8 -> s32, prepacked weights ---------------------------------------------------

// u8 activations [m, kn] against s8 weights [kn, kn] packed once by each side: ours in the VNNI
// panels of the default int8 kernel, oneDNN's matmul primitive with weights reordered once.
struct Int8Setup {
  size_t m, kn;
  const vk::Int8GemmKernel& kr;
  AlignedVector<int8_t> w;
  vk::Int8Panels panels;
  AlignedVector<uint8_t> x;
  std::vector<int32_t> y;
  OneDnnMatmul mm;
  dnnl::memory packed, am, cm;
  Int8Setup(size_t m_, size_t kn_)
      : m(m_), kn(kn_), kr(vk::DefaultInt8GemmKernel()), w(RandomVector<int8_t>(kn * kn, 5)),
        panels(vk::MakeInt8PanelsFromKn(kr.nr, kn, kn, w.data(), kn)),
        x(RandomVector<uint8_t>(m * kn, 6)), y(m * kn),
        mm(m, kn, kn, dt::u8, dt::s8, dt::s32),
        packed(mm.PackWeights(w.data(), kn, kn, dt::s8)),
        am(mm.pd.src_desc(), mm.eng, x.data()),
        cm(mm.pd.dst_desc(), mm.eng, y.data()) {}
  void Ours() {
    vk::Int8GemmA A{vk::Int8GemmA::Kind::kU8Mk, x.data(), kn, 0};
    vk::Int8Gemm(kr, m, kn, kn, A, panels, y.data(), kn, 1);
    benchmark::DoNotOptimize(y.data());
  }
  bool OneDnn() {
    mm.Run(am, packed, cm);
    benchmark::DoNotOptimize(y.data());
    return true;
  }
};

void Int8Ours(benchmark::State& st, size_t m, size_t kn) {
  Int8Setup g(m, kn);
  for (auto _ : st) g.Ours();
  st.SetLabel(g.kr.name);
  SetRates(st, 2.0 * m * kn * kn, double(kn) * kn);
}

void Int8OneDnn(benchmark::State& st, size_t m, size_t kn) {
  Int8Setup g(m, kn);
  for (auto _ : st) g.OneDnn();
  st.SetLabel(g.mm.Impl());
  SetRates(st, 2.0 * m * kn * kn, double(kn) * kn);
}

void Int8Paired(benchmark::State& st, size_t m, size_t kn) {
  Int8Setup g(m, kn);
  RunPaired(st, [&] { g.Ours(); }, [&] { return g.OneDnn(); });
  st.SetLabel(std::string(g.kr.name) + " | " + g.mm.Impl() + ", alternating order");
}

// ---- conv3x3: dense 3x3 convolution, stride 1, pad 1, one image -----------------------------
// Ours: the Winograd F(4x4, 3x3) driver as the runtime calls it (filter transformed into the
// GEMM row's A panels once, bias added by the output transform). oneDNN: a convolution_forward
// primitive on plain nchw src and dst (as the runtime's tensors are), weights (format_tag::any)
// reordered once, bias.

struct ConvShape {
  size_t C, M, H, W;  // input channels, output channels, input (= output) height and width
};

// PP-OCRv4 det's largest convolutions (96 -> 24 channels at 160x160), and a ResNet-like one.
const std::pair<const char*, ConvShape> kConvShapes[] = {
    {"conv3x3/C=96/M=24/160x160", {96, 24, 160, 160}},
    {"conv3x3/C=64/M=64/56x56", {64, 64, 56, 56}},
};

dnnl::convolution_forward::primitive_desc Conv3x3Desc(const ConvShape& s, const dnnl::engine& eng) {
  using dims = dnnl::memory::dims;
  const auto C = static_cast<dnnl::memory::dim>(s.C), M = static_cast<dnnl::memory::dim>(s.M),
             H = static_cast<dnnl::memory::dim>(s.H), W = static_cast<dnnl::memory::dim>(s.W);
  const dnnl::memory::desc src({1, C, H, W}, dt::f32, tag::nchw),
      wei({M, C, 3, 3}, dt::f32, tag::any), bias({M}, dt::f32, tag::x),
      dst({1, M, H, W}, dt::f32, tag::nchw);
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_auto, src, wei, bias, dst,
                                          dims{1, 1}, dims{1, 1}, dims{1, 1});
  return dnnl::convolution_forward::primitive_desc(d, eng);
}

struct Conv3x3Setup {
  ConvShape s;
  AlignedVector<float> x, w, bias, y, yd;  // y: our output, yd: oneDNN's
  const vk::F32GemmKernel& gemm;
  std::vector<vk::F32Panels> u;
  vk::F32WinogradConv conv;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory src, wei, bia, dst;
  explicit Conv3x3Setup(const ConvShape& s_)
      : s(s_), x(RandomVector<float>(s.C * s.H * s.W, 11)),
        w(RandomVector<float>(s.M * s.C * 9, 12)), bias(RandomVector<float>(s.M, 13)),
        y(s.M * s.H * s.W), yd(s.M * s.H * s.W), gemm(vk::F32GemmKernelForM(s.M)),
        u(vk::MakeF32WinogradFilterPanels(gemm.mr, w.data(), s.M, s.C)),
        pd(Conv3x3Desc(s, eng)), prim(pd), src(pd.src_desc(), eng, x.data()),
        wei(pd.weights_desc(), eng), bia(pd.bias_desc(), eng, bias.data()),
        dst(pd.dst_desc(), eng, yd.data()) {
    const auto i = [](size_t v) { return static_cast<int64_t>(v); };
    conv.geo = {i(s.C), i(s.H), i(s.W), 1, 1, i(s.H), i(s.W)};
    conv.M = i(s.M);
    conv.x = x.data();
    conv.y = y.data();
    conv.u = u.data();
    conv.gemm = &gemm;
    conv.epilogue.bias = bias.data();
    // Weights reordered once from plain oihw, as a runtime prepacks constant weights.
    dnnl::memory user({{i(s.M), i(s.C), 3, 3}, dt::f32, tag::oihw}, eng, w.data());
    dnnl::reorder(user, wei).execute(strm, user, wei);
    strm.wait();
  }
  void Ours() {
    vk::RunF32WinogradConv(vk::DefaultF32WinogradKernel(), conv, 1);
    benchmark::DoNotOptimize(y.data());
  }
  bool OneDnn() {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bia},
                        {DNNL_ARG_DST, dst}});
    strm.wait();
    benchmark::DoNotOptimize(yd.data());
    return true;
  }
  std::string OneDnnName() const { return pd.impl_info_str(); }
  double Flops() const { return 2.0 * s.M * s.C * 9 * s.H * s.W; }
  // One call of each; false (and the row skipped with the error) unless max |y - yd| is below
  // 1e-4 of max |yd| (Winograd's rounding: docs/accuracy.md).
  bool Agree(benchmark::State& st) {
    Ours();
    OneDnn();
    double diff = 0, ref = 0;
    for (size_t j = 0; j < y.size(); ++j) {
      diff = std::max(diff, double(std::abs(y[j] - yd[j])));
      ref = std::max(ref, double(std::abs(yd[j])));
    }
    if (diff <= 1e-4 * ref) return true;
    char msg[160];
    std::snprintf(msg, sizeof msg,
                  "conv3x3 outputs disagree: max |ours - oneDNN| = %g, max |y| = %g", diff, ref);
    st.SkipWithError(msg);
    return false;
  }
};

void Conv3x3Ours(benchmark::State& st, ConvShape s) {
  Conv3x3Setup g(s);
  if (!g.Agree(st)) return;
  for (auto _ : st) g.Ours();
  st.SetLabel(std::string(vk::DefaultF32WinogradKernel().name) + " + " + g.gemm.name);
  SetRates(st, g.Flops(), 0);
}

void Conv3x3OneDnn(benchmark::State& st, ConvShape s) {
  Conv3x3Setup g(s);
  if (!g.Agree(st)) return;
  for (auto _ : st) g.OneDnn();
  st.SetLabel(g.OneDnnName());
  SetRates(st, g.Flops(), 0);
}

void Conv3x3Paired(benchmark::State& st, ConvShape s) {
  Conv3x3Setup g(s);
  if (!g.Agree(st)) return;
  RunPaired(st, [&] { g.Ours(); }, [&] { return g.OneDnn(); });
  st.SetLabel(std::string(vk::DefaultF32WinogradKernel().name) + " + " + g.gemm.name + " | " +
              g.OneDnnName() + ", alternating order");
}

// ---- int4 decode ---------------------------------------------------------------------------

void Int4Ours(benchmark::State& st, size_t m) {
  const size_t K = kDecodeK, N = kDecodeN;
  const vk::Q4GemmKernel& kr = vk::DefaultQ4_0GemmKernel();
  const size_t bytes = vk::Q4_0PackedBytes(N, K, kr.rows);
  std::vector<uint8_t> packed(bytes);
  {
    const auto w = RandomVector<float>(N * K, 7);
    vk::PackF32NkToQ4_0Panels(N, K, w.data(), K, kr.rows, vk::Q4ScaleSearch::kAmax,
                              packed.data());
  }
  std::vector<std::vector<uint8_t>> copies(Copies(bytes), packed);
  const auto x = RandomVector<float>(m * K, 8);
  std::vector<float> y(m * N);
  size_t i = 0;
  for (auto _ : st) {
    vk::Q4_0Gemm(kr, m, N, K, x.data(), K, copies[i].data(), nullptr, y.data(), N, 1);
    benchmark::DoNotOptimize(y.data());
    i = (i + 1) % copies.size();
  }
  st.SetLabel(std::string(kr.name) + " x" + std::to_string(copies.size()) + " copies");
  SetRates(st, 2.0 * m * N * K, double(bytes));
}

// MatMulNBits (bits 4, block 32, uint8 zero points) planes in the kernel's panels, one buffer:
// codes, then scales, then zero points, each 64-byte aligned.
constexpr size_t kNBitsBlock = 32;
struct NBitsLayout {
  size_t codes = 0, scales = 0, zp = 0, total = 0;  // offsets and size
};
NBitsLayout NBitsBytes() {
  const size_t kb = kDecodeK / kNBitsBlock, kzb = (kb + 1) / 2;
  auto up = [](size_t b) { return (b + 63) / 64 * 64; };
  NBitsLayout l;
  l.scales = up(vk::NBitsPanelBytes(kDecodeN, kb, kNBitsBlock / 2));
  l.zp = l.scales + up(vk::NBitsPanelBytes(kDecodeN, kb, 4));
  l.total = l.zp + up(vk::NBitsPanelBytes(kDecodeN, kzb, 1));
  return l;
}

void NBitsOurs(benchmark::State& st, size_t m, bool q8, bool tile = true) {
  const size_t K = kDecodeK, N = kDecodeN, kb = K / kNBitsBlock, kzb = (kb + 1) / 2;
  const NBitsLayout l = NBitsBytes();
  AlignedVector<uint8_t> packed(l.total, 0);
  {
    std::mt19937 g(9);
    std::vector<uint8_t> codes(N * kb * kNBitsBlock / 2), zp(N * kzb);
    for (auto& c : codes) c = static_cast<uint8_t>(g());
    for (auto& z : zp) z = static_cast<uint8_t>(g());
    const auto scales = RandomVector<float>(N * kb, 10, 0.001f, 0.02f);
    vk::PackNBitsRowsToPanels(N, kb, kNBitsBlock / 2, codes.data(), packed.data());
    vk::PackNBitsRowsToPanels(N, kb, 4, reinterpret_cast<const uint8_t*>(scales.data()),
                              packed.data() + l.scales);
    vk::PackNBitsRowsToPanels(N, kzb, 1, zp.data(), packed.data() + l.zp);
  }
  std::vector<AlignedVector<uint8_t>> copies(Copies(l.total), packed);
  const auto x = RandomVector<float>(m * K, 8);
  std::vector<float> y(m * N);
  vk::NBitsGemmKernel kr = q8 ? vk::DefaultNBitsQ8GemmKernel() : vk::DefaultNBitsGemmKernel();
  if (!tile) kr.q8_unpack = nullptr, kr.q8_tile = nullptr;
  size_t i = 0;
  for (auto _ : st) {
    vk::NBitsPanel w;
    w.codes = copies[i].data();
    w.scales = reinterpret_cast<const float*>(copies[i].data() + l.scales);
    w.zp_kind = vk::NBitsZeroPoints::kU4;
    w.zp_u4 = copies[i].data() + l.zp;
    vk::NBitsGemm(kr, m, N, K, kNBitsBlock, x.data(), K, w, nullptr, y.data(), N, 1);
    benchmark::DoNotOptimize(y.data());
    i = (i + 1) % copies.size();
  }
  const bool tiled = kr.q8_tile != nullptr && m >= vk::kNBitsTileMinRows;
  st.SetLabel(std::string(kr.name) + (tiled ? " tile" : "") + " x" +
              std::to_string(copies.size()) + " copies");
  SetRates(st, 2.0 * m * N * K, double(l.total));
}

// ---- bandwidth floor: sequential read of rotated buffers of `bytes` each ------------------------

uint64_t Sum(const uint64_t* p, size_t n) {
  if (__builtin_cpu_supports("avx512f")) return vk::ReadFloorSumAvx512(p, n);
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += p[i];
    s1 += p[i + 1];
    s2 += p[i + 2];
    s3 += p[i + 3];
  }
  for (; i < n; ++i) s0 += p[i];
  return s0 + s1 + s2 + s3;
}

// ---- f32 small-M GEMM on the source layout vs packed panels ----------------------------------

// The first supported in-place row of `order` (the host's best ISA).
const vk::F32GemvKernel& HostGemvRow(vk::F32GemvOrder order) {
  for (const auto& k : vk::F32GemvKernels())
    if (k.order == order && k.supported()) return k;
  return vk::F32GemvKernels().back();
}

// One call of each per iteration, alternating which goes first, on rotated cold copies of the
// weight: the source bytes for the in-place row, the runtime's panels for F32Gemm.
void InPlacePaired(benchmark::State& st, size_t m, vk::F32GemvOrder order) {
  const size_t K = kDecodeK, N = kDecodeN;
  const bool kn = order == vk::F32GemvOrder::kKn;
  const vk::F32GemvKernel& row = HostGemvRow(order);
  const vk::F32GemmKernel& kr = vk::F32GemmKernelForPanels(m, N);
  const size_t nr = vk::DefaultF32GemmKernel().nr;
  const auto w = RandomVector<float>(K * N, 3);
  std::vector<AlignedVector<float>> src;
  std::vector<vk::F32Panels> panels;
  for (size_t i = 0; i < Copies(K * N * 4); ++i) {
    src.push_back(w);
    panels.push_back(kn ? vk::MakeF32PanelsFromKn(nr, K, N, w.data(), N)
                        : vk::MakeF32PanelsFromNk(nr, K, N, w.data(), K));
  }
  const auto x = RandomVector<float>(m * K, 4);
  std::vector<float> y(m * N);
  const vk::F32GemmA A{vk::F32GemmA::Kind::kMk, x.data(), K, nullptr};
  size_t ci = 0;
  auto in_place = [&] {
    const double t0 = ProcessCpuSeconds();
    vk::F32Gemv(row, m, N, K, x.data(), K, src[ci].data(), kn ? N : K, y.data(), N, {}, 1);
    benchmark::DoNotOptimize(y.data());
    return ProcessCpuSeconds() - t0;
  };
  auto packed = [&] {
    const double t0 = ProcessCpuSeconds();
    vk::F32GemmB B{vk::F32GemmB::Kind::kPanels, nullptr, 0, &panels[ci]};
    vk::F32Gemm(kr, m, N, K, A, B, y.data(), N, {}, 1);
    benchmark::DoNotOptimize(y.data());
    return ProcessCpuSeconds() - t0;
  };
  for (int i = 0; i < kPairWarmup; ++i) {
    in_place();
    packed();
  }
  std::vector<double> ratio, t_in, t_packed;
  size_t iter = 0;
  for (auto _ : st) {
    double ti = 0, tp = 0;
    if (iter++ % 2 == 0) {
      ti = in_place();
      tp = packed();
    } else {
      tp = packed();
      ti = in_place();
    }
    ci = (ci + 1) % src.size();
    ratio.push_back(tp / ti);
    t_in.push_back(ti);
    t_packed.push_back(tp);
  }
  st.counters["ratio"] = Quantile(ratio, 0.5);
  st.counters["ratio_q25"] = Quantile(ratio, 0.25);
  st.counters["ratio_q75"] = Quantile(ratio, 0.75);
  st.counters["pairs"] = static_cast<double>(ratio.size());
  st.counters["in_place_ms"] = Quantile(t_in, 0.5) * 1e3;
  st.counters["packed_ms"] = Quantile(t_packed, 0.5) * 1e3;
  st.SetLabel(std::string(row.name) + " vs " + kr.name + " x" + std::to_string(src.size()) +
              " copies");
}

void ReadFloor(benchmark::State& st, size_t bytes) {
  const size_t words = bytes / 8;
  std::vector<vt::AlignedArray<uint64_t>> copies;
  for (size_t i = 0; i < Copies(bytes); ++i) {
    copies.push_back(vt::AllocateAlignedArray<uint64_t>(words));
    for (size_t j = 0; j < words; ++j) copies.back()[j] = j * 0x9E3779B97F4A7C15ull;
  }
  size_t i = 0;
  for (auto _ : st) {
    benchmark::DoNotOptimize(Sum(copies[i].get(), words));
    i = (i + 1) % copies.size();
  }
  st.SetLabel("x" + std::to_string(copies.size()) + " copies");
  SetRates(st, 0, double(words) * 8);
}

// ---- summary ---------------------------------------------------------------------------------

struct Result {
  double cpu_s = 0;  // CPU seconds per iteration
  double gbs = 0;
  std::map<std::string, double> counters;  // the row's user counters (paired rows' ratios)
};

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, Result> results;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      Result res;
      res.cpu_s = r.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      const auto it = r.counters.find("bytes");
      if (it != r.counters.end() && res.cpu_s > 0) res.gbs = it->second.value / res.cpu_s * 1e-9;
      for (const auto& [name, counter] : r.counters) res.counters[name] = counter.value;
      results[r.run_name.function_name] = res;  // without the min_time suffix
    }
  }
};

void PrintSummary(const std::map<std::string, Result>& res) {
  auto get = [&](const std::string& name) -> const Result* {
    const auto it = res.find(name);
    return it == res.end() ? nullptr : &it->second;
  };
  std::printf("\n== vtensor-kbench summary (single thread, CPU time per call) ==\n");
  std::printf("%-26s %12s %12s %9s  %s\n", "row", "ours ms", "oneDNN ms", "ratio", "target");
  // ratio = oneDNN time / our time (> 1: we are faster); bar 0 = no target.
  struct Pair {
    const char* row;
    const char* target;
    double bar;
  };
  const Pair pairs[] = {
      {"sgemm/1024^3", "speed >= 0.95x oneDNN", 0.95},
      {"sgemm/2048^3", "", 0},
      {"sgemm_prepacked/1024^3", "speed >= 0.95x oneDNN", 0.95},
      {"sgemm_prepacked/2048^3", "", 0},
      {"f32_decode/M=1/K=N=4096", "time <= 1.05x oneDNN", 1 / 1.05},
      {"f32_decode/M=8/K=N=4096", "", 0},
      {"int8/M=128/K=N=4096", "speed >= 0.9x oneDNN", 0.9},
      {"conv3x3/C=96/M=24/160x160", "", 0},
      {"conv3x3/C=64/M=64/56x56", "", 0},
  };
  auto verdict = [](const Pair& p, double speed) {
    return p.bar > 0 ? (speed >= p.bar ? "  MET" : "  NOT MET") : "";
  };
  for (const Pair& p : pairs) {
    const Result* o = get(std::string(p.row) + "/ours");
    const Result* d = get(std::string(p.row) + "/onednn");
    // A paired row (alternating calls, median of per-pair ratios) judges the bar when present:
    // the separate rows run seconds apart and carry the VM's drift between them.
    const Result* pr = get(std::string(p.row) + "/paired");
    const bool paired = pr != nullptr && pr->counters.count("ratio") && pr->counters.at("pairs") > 0;
    if (o != nullptr && d != nullptr) {
      const double speed = d->cpu_s / o->cpu_s;
      std::printf("%-26s %12.3f %12.3f %8.3fx  %s%s\n", p.row, o->cpu_s * 1e3, d->cpu_s * 1e3,
                  speed, paired ? "(separate rows)" : p.target,
                  paired ? "" : verdict(p, speed));
    }
    if (paired) {
      const auto& k = pr->counters;
      const double speed = k.at("ratio");
      std::printf("%-26s %12.3f %12.3f %8.3fx  %s%s  (paired median of %.0f, q25 %.3f q75 %.3f)\n",
                  (std::string(p.row) + " pair").c_str(), k.at("ours_ms"), k.at("onednn_ms"),
                  speed, p.target, verdict(p, speed), k.at("pairs"), k.at("ratio_q25"),
                  k.at("ratio_q75"));
    }
  }
  std::printf("\n%-34s %12s %12s %9s  %s\n", "source layout in place (paired)", "in place ms",
              "packed ms", "ratio", "(packed / in place, median per pair)");
  for (const char* order : {"kn", "nk"})
    for (size_t m : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
      const std::string row = std::string("f32_in_place/") + order + "/M=" + std::to_string(m) +
                              "/K=N=4096/paired";
      const Result* r = get(row);
      if (r == nullptr || !r->counters.count("pairs") || r->counters.at("pairs") == 0) continue;
      const auto& k = r->counters;
      std::printf("%-34s %12.3f %12.3f %8.3fx  (q25 %.3f q75 %.3f, %.0f pairs)\n",
                  row.substr(0, row.size() - 7).c_str(), k.at("in_place_ms"), k.at("packed_ms"),
                  k.at("ratio"), k.at("ratio_q25"), k.at("ratio_q75"), k.at("pairs"));
    }
  std::printf("\n%-26s %12s %12s %9s  %s\n", "weight streaming", "ms", "GB/s", "vs read",
              "floor row");
  const std::string f32_floor = "read/" + std::to_string(kDecodeK * kDecodeN * 4);
  const std::string q4_floor =
      "read/" + std::to_string(vk::Q4_0PackedBytes(kDecodeN, kDecodeK,
                                                   vk::DefaultQ4_0GemmKernel().rows));
  const std::pair<std::string, std::string> streams[] = {
      {"f32_decode/M=1/K=N=4096/ours", f32_floor},
      {"f32_decode/M=1/K=N=4096/onednn", f32_floor},
      {"f32_decode/M=8/K=N=4096/ours", f32_floor},
      {"f32_decode/M=8/K=N=4096/onednn", f32_floor},
      {"int4/M=1/K=N=4096/ours", q4_floor},
      {"nbits4/M=1/K=N=4096/ours", "read/" + std::to_string(NBitsBytes().total)},
      {"nbits4_q8/M=1/K=N=4096/ours", "read/" + std::to_string(NBitsBytes().total)},
  };
  for (const auto& [row, floor] : streams) {
    const Result* r = get(row);
    const Result* f = get(floor);
    if (r == nullptr || f == nullptr) continue;
    const double ratio = r->gbs / f->gbs;
    const bool int4 = row.rfind("int4", 0) == 0;
    std::printf("%-32s %6.3f %12.1f %8.3fx  %s (%.1f GB/s)%s\n", row.c_str(), r->cpu_s * 1e3,
                r->gbs, ratio, floor.c_str(), f->gbs,
                int4 ? (ratio >= 0.8 ? "  target >= 0.8x: MET" : "  target >= 0.8x: NOT MET")
                     : "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Our own flags first; the rest goes to Google Benchmark.
  std::vector<char*> rest;
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 <= 0) l3 = 64l << 20;
  g_cold_bytes = 2 * static_cast<size_t>(l3);
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kbench_cold_mib=", 18) == 0) {
      g_cold_bytes = std::strtoull(argv[i] + 18, nullptr, 10) << 20;
    } else if (std::strcmp(argv[i], "--kbench_quick") == 0) {
      g_quick = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  omp_set_num_threads(1);  // oneDNN's OpenMP runtime and our drivers: one thread
  setenv("OMP_NUM_THREADS", "1", 1);

  const double min_time = g_quick ? 0.2 : 1.0;
  auto reg = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->Unit(benchmark::kMillisecond)->MinTime(min_time);
  };
  // sgemm families: per-call B (dnnl_sgemm) and prepacked weights (oneDNN matmul primitive).
  using SgemmFn = void (*)(benchmark::State&, size_t);
  const struct {
    const char* family;
    SgemmFn ours, onednn, paired;
  } sgemm_families[] = {
      {"sgemm", SgemmOurs<PlainSgemm>, SgemmOneDnn<PlainSgemm>, SgemmPaired<PlainSgemm>},
      {"sgemm_prepacked", SgemmOurs<PrepackedSgemm>, SgemmOneDnn<PrepackedSgemm>,
       SgemmPaired<PrepackedSgemm>},
  };
  for (const auto& f : sgemm_families)
    for (size_t n : {size_t{1024}, size_t{2048}}) {
      const std::string row = std::string(f.family) + "/" + std::to_string(n) + "^3";
      reg(row + "/ours", [n, fn = f.ours](benchmark::State& st) { fn(st, n); });
      reg(row + "/onednn", [n, fn = f.onednn](benchmark::State& st) { fn(st, n); });
      // Longer, so that the 2048^3 row still times a dozen pairs or more.
      benchmark::RegisterBenchmark((row + "/paired").c_str(),
                                   [n, fn = f.paired](benchmark::State& st) { fn(st, n); })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(3 * min_time);
    }
  for (size_t m : {size_t{1}, size_t{8}}) {
    const std::string row = "f32_decode/M=" + std::to_string(m) + "/K=N=4096";
    reg(row + "/ours", [m](benchmark::State& st) { DecodeOurs(st, m); });
    reg(row + "/onednn", [m](benchmark::State& st) { DecodeOneDnn(st, m); });
  }
  reg("int8/M=128/K=N=4096/ours", [](benchmark::State& st) { Int8Ours(st, 128, 4096); });
  reg("int8/M=128/K=N=4096/onednn", [](benchmark::State& st) { Int8OneDnn(st, 128, 4096); });
  benchmark::RegisterBenchmark("int8/M=128/K=N=4096/paired",
                               [](benchmark::State& st) { Int8Paired(st, 128, 4096); })
      ->Unit(benchmark::kMillisecond)
      ->MinTime(3 * min_time);
  for (const auto& [row, shape] : kConvShapes) {
    reg(std::string(row) + "/ours", [s = shape](benchmark::State& st) { Conv3x3Ours(st, s); });
    reg(std::string(row) + "/onednn", [s = shape](benchmark::State& st) { Conv3x3OneDnn(st, s); });
    benchmark::RegisterBenchmark((std::string(row) + "/paired").c_str(),
                                 [s = shape](benchmark::State& st) { Conv3x3Paired(st, s); })
        ->Unit(benchmark::kMillisecond)
        ->MinTime(3 * min_time);
  }
  reg("int4/M=1/K=N=4096/ours", [](benchmark::State& st) { Int4Ours(st, 1); });
  reg("nbits4/M=1/K=N=4096/ours", [](benchmark::State& st) { NBitsOurs(st, 1, false); });
  reg("nbits4_q8/M=1/K=N=4096/ours", [](benchmark::State& st) { NBitsOurs(st, 1, true); });
  for (size_t m : {size_t{2}, size_t{16}, size_t{32}, size_t{128}}) {
    const std::string row = "nbits4_q8/M=" + std::to_string(m) + "/K=N=4096";
    reg(row + "/ours", [m](benchmark::State& st) { NBitsOurs(st, m, true); });
    reg(row + "/rows", [m](benchmark::State& st) { NBitsOurs(st, m, true, false); });
  }
  for (auto [order, name] : {std::pair{vk::F32GemvOrder::kKn, "kn"}, std::pair{vk::F32GemvOrder::kNk, "nk"}})
    for (size_t m : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
      const std::string row =
          std::string("f32_in_place/") + name + "/M=" + std::to_string(m) + "/K=N=4096/paired";
      benchmark::RegisterBenchmark(row.c_str(), [m, order = order](benchmark::State& st) {
        InPlacePaired(st, m, order);
      })->Unit(benchmark::kMillisecond)->MinTime(3 * min_time);
    }
  const size_t q4_bytes =
      vk::Q4_0PackedBytes(kDecodeN, kDecodeK, vk::DefaultQ4_0GemmKernel().rows);
  for (size_t bytes : {kDecodeK * kDecodeN * 4, q4_bytes, NBitsBytes().total})
    reg("read/" + std::to_string(bytes), [bytes](benchmark::State& st) { ReadFloor(st, bytes); });

  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 1;
  std::printf("cold set per decode row: %zu MiB (L3 %ld MiB)\n", g_cold_bytes >> 20, l3 >> 20);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  PrintSummary(reporter.results);
  benchmark::Shutdown();
  return 0;
}
