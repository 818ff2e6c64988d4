// Signal operators (ONNX opset 17): DFT, STFT, HannWindow, HammingWindow, BlackmanWindow,
// MelWeightMatrix. Transforms are computed in double precision: radix-2 FFT for power-of-two
// lengths, Bluestein's chirp-z algorithm (on a radix-2 FFT) for other long lengths, and the
// direct sum for short ones.
#include <cmath>
#include <complex>
#include <numbers>

#include "ops/common/op_util.h"

namespace vt::ops {
namespace {

using cd = std::complex<double>;

bool IsPow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// In-place iterative radix-2 FFT, sign -1 forward / +1 inverse (no 1/n scaling).
void Fft2(std::vector<cd>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double ang = sign * 2 * std::numbers::pi / static_cast<double>(len);
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        // Twiddles from the angle directly (not by repeated multiplication) keep the error
        // independent of the transform length.
        const cd w = std::polar(1.0, ang * static_cast<double>(k));
        const cd u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
    }
  }
}

// Unscaled DFT of `x` (size n), sign -1 forward / +1 inverse.
std::vector<cd> Dft(const std::vector<cd>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n == 0) return {};
  if (IsPow2(n)) {
    std::vector<cd> a = x;
    Fft2(a, sign);
    return a;
  }
  if (n <= 64) {
    std::vector<cd> out(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      cd s = 0;
      for (int64_t j = 0; j < n; ++j) {
        // (j*k) mod n keeps the angle small and exact.
        const double ang = sign * 2 * std::numbers::pi * static_cast<double>((j * k) % n) / n;
        s += x[static_cast<size_t>(j)] * std::polar(1.0, ang);
      }
      out[static_cast<size_t>(k)] = s;
    }
    return out;
  }
  // Bluestein: jk = (j^2 + k^2 - (k-j)^2) / 2 turns the DFT into a convolution with the chirp
  // w_j = exp(sign * i*pi*j^2/n), evaluated with power-of-two FFTs.
  size_t m = 1;
  while (m < static_cast<size_t>(2 * n - 1)) m <<= 1;
  std::vector<cd> chirp(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t j2 = (j * j) % (2 * n);
    chirp[static_cast<size_t>(j)] = std::polar(1.0, sign * std::numbers::pi * j2 / n);
  }
  std::vector<cd> a(m), b(m);
  for (int64_t j = 0; j < n; ++j) a[static_cast<size_t>(j)] = x[static_cast<size_t>(j)] * chirp[static_cast<size_t>(j)];
  b[0] = std::conj(chirp[0]);
  for (int64_t j = 1; j < n; ++j) b[static_cast<size_t>(j)] = b[m - static_cast<size_t>(j)] = std::conj(chirp[static_cast<size_t>(j)]);
  Fft2(a, -1);
  Fft2(b, -1);
  for (size_t i = 0; i < m; ++i) a[i] *= b[i];
  Fft2(a, +1);
  std::vector<cd> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    out[static_cast<size_t>(k)] = a[static_cast<size_t>(k)] / static_cast<double>(m) * chirp[static_cast<size_t>(k)];
  return out;
}

// Writes `v` (row-major) into a new output of `dt`. Errors: unsupported dtype.
Status WriteOutput(KernelContext& ctx, DType dt, const Shape& shape, const std::vector<double>& v) {
  if (dt == DType::kFloat16 || dt == DType::kBFloat16) {
    Tensor out = ctx.AllocOutput(0, dt, shape);
    uint16_t* o = out.mutable_data<uint16_t>();
    for (size_t i = 0; i < v.size(); ++i) {
      float f = static_cast<float>(v[i]);
      o[i] = dt == DType::kFloat16 ? FloatToHalf(f) : FloatToBFloat16(f);
    }
    return Status::Ok();
  }
  Status st = DispatchElem<kSetFloatInt>(dt, [&](auto tag) -> Status {
    using T = decltype(tag);
    Tensor out = ctx.AllocOutput(0, dt, shape);
    T* o = out.mutable_data<T>();
    for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Annotate(std::move(st));
  return Status::Ok();
}

Expected<int64_t> ReadIntScalar(KernelContext& ctx, size_t i, const char* name) {
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.numel() != 1 || !IsIntegerDType(t.dtype()))
    return ctx.Error(std::string(name) + " must be a one-element integer tensor");
  return t.GetInt64(0);
}

Expected<double> ReadFloatScalar(KernelContext& ctx, size_t i, const char* name) {
  VT_ASSIGN_OR_RETURN(Tensor t, ctx.RequireTensor(i));
  if (t.numel() != 1 || t.dtype() == DType::kString)
    return ctx.Error(std::string(name) + " must be a one-element numeric tensor");
  return t.GetDouble(0);
}

// Signals longer than this are refused: the transform's scratch would not fit in memory.
constexpr int64_t kMaxDftLength = int64_t{1} << 24;

// ---------------------------------------------------------------------------------------------
// DFT: input [batch, n1, ..., nk, 1|2] (real or complex as a trailing pair), dft_length?
// (pads with zeros or truncates the signal axis), axis (attribute up to opset 19, input 2 from
// opset 20; default 1 / -2). Output [..., n or n/2+1 (onesided), ..., 2]; inverse scales by 1/n.
// From opset 20, onesided=1 with inverse=1 is the IRFFT: output [..., n, ..., 1] (real).

Status DftCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor x0, ctx.RequireTensor(0));
  if (!IsFloatDType(x0.dtype())) return ctx.Error("input must be floating point");
  const int r = x0.rank();
  if (r < 2 || (x0.dim(r - 1) != 1 && x0.dim(r - 1) != 2))
    return ctx.Error("input must end in a dimension of 1 (real) or 2 (complex), got " +
                     ShapeToString(x0.shape()));
  int64_t axis = ctx.node().GetInt("axis", 1);
  if (ctx.opset() >= 20) {
    axis = -2;
    if (ctx.has_input(2) && !ctx.input_value(2)->is_none()) {
      VT_ASSIGN_OR_RETURN(axis, ReadIntScalar(ctx, 2, "axis"));
    }
  }
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r - 2)
    return ctx.Error("axis out of range for input " + ShapeToString(x0.shape()));
  const int64_t len_in = x0.dim(static_cast<int>(axis));
  const bool inverse = ctx.node().GetInt("inverse", 0) != 0;
  const bool onesided = ctx.node().GetInt("onesided", 0) != 0;
  const bool complex_in = x0.dim(r - 1) == 2;
  // Opset 20 IRFFT (onesided=1, inverse=1): the input is the one-sided spectrum, the output the
  // real signal [..., dft_length, 1], default dft_length 2 * (n - 1).
  const bool irfft = onesided && inverse && ctx.opset() >= 20;
  if (irfft && !complex_in)
    return ctx.Error("input " + ShapeToString(x0.shape()) +
                     " must be complex (last dim 2) for the inverse one-sided DFT (IRFFT)");
  int64_t n = irfft ? 2 * (len_in - 1) : len_in;
  if (ctx.has_input(1) && !ctx.input_value(1)->is_none()) {
    VT_ASSIGN_OR_RETURN(n, ReadIntScalar(ctx, 1, "dft_length"));
  }
  if (n <= 0 || n > kMaxDftLength) return ctx.Error("dft_length " + std::to_string(n) + " invalid");
  const int64_t n_out = irfft ? n : onesided ? n / 2 + 1 : n;
  const int64_t out_comps = irfft ? 1 : 2;

  Shape out_shape = x0.shape();
  out_shape[static_cast<size_t>(axis)] = n_out;
  out_shape[static_cast<size_t>(r - 1)] = out_comps;
  // Lines along `axis`: outer (dims before) x inner (dims between axis and the pair).
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x0.dim(d);
  for (int d = static_cast<int>(axis) + 1; d < r - 1; ++d) inner *= x0.dim(d);
  if (static_cast<double>(outer) * static_cast<double>(inner) * static_cast<double>(n) >
      static_cast<double>(kMaxDftLength) * 16)
    return ctx.Error("DFT output too large");
  Tensor x = x0.Contiguous();
  const int64_t comps = complex_in ? 2 : 1;
  std::vector<double> out(static_cast<size_t>(NumElements(out_shape)));
  std::vector<cd> line(static_cast<size_t>(n));
  const int sign = inverse ? +1 : -1;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      // IRFFT reads bins 0..n/2 and completes the spectrum by conjugate symmetry; the imaginary
      // parts of bin 0 and (n even) bin n/2 are dropped, as a real signal has none there.
      const int64_t read = irfft ? n / 2 + 1 : n;
      for (int64_t j = 0; j < read; ++j) {
        if (j >= len_in) {
          line[static_cast<size_t>(j)] = 0;
          continue;
        }
        const int64_t base = ((o * len_in + j) * inner + i) * comps;
        line[static_cast<size_t>(j)] = cd(x.GetDouble(base), complex_in ? x.GetDouble(base + 1) : 0.0);
      }
      if (irfft) {
        line[0] = line[0].real();
        if (n % 2 == 0) line[static_cast<size_t>(n / 2)] = line[static_cast<size_t>(n / 2)].real();
        for (int64_t j = read; j < n; ++j) line[static_cast<size_t>(j)] = std::conj(line[static_cast<size_t>(n - j)]);
      }
      std::vector<cd> y = Dft(line, sign);
      for (int64_t k = 0; k < n_out; ++k) {
        cd v = y[static_cast<size_t>(k)];
        if (inverse) v /= static_cast<double>(n);
        const size_t base = static_cast<size_t>(((o * n_out + k) * inner + i) * out_comps);
        out[base] = v.real();
        if (!irfft) out[base + 1] = v.imag();
      }
    }
  }
  return WriteOutput(ctx, x0.dtype(), out_shape, out);
}

// ---------------------------------------------------------------------------------------------
// STFT: signal [batch, length, 1|2], frame_step (scalar), window? [frame_length],
// frame_length? (scalar). Output [batch, frames, bins, 2] with
// frames = 1 + (length - frame_length) / frame_step and bins = frame_length/2 + 1 when
// onesided (default), else frame_length.

Status StftCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(Tensor sig0, ctx.RequireTensor(0));
  if (!IsFloatDType(sig0.dtype())) return ctx.Error("signal must be floating point");
  if (sig0.rank() != 3 || (sig0.dim(2) != 1 && sig0.dim(2) != 2))
    return ctx.Error("signal must be [batch, length, 1|2], got " + ShapeToString(sig0.shape()));
  VT_ASSIGN_OR_RETURN(int64_t step, ReadIntScalar(ctx, 1, "frame_step"));
  if (step <= 0) return ctx.Error("frame_step must be positive");
  Tensor window;
  int64_t flen = -1;
  if (ctx.has_input(2) && !ctx.input_value(2)->is_none()) {
    VT_ASSIGN_OR_RETURN(window, ctx.RequireTensor(2));
    if (window.rank() != 1) return ctx.Error("window must be 1-D");
    flen = window.dim(0);
  }
  if (ctx.has_input(3) && !ctx.input_value(3)->is_none()) {
    VT_ASSIGN_OR_RETURN(int64_t fl, ReadIntScalar(ctx, 3, "frame_length"));
    if (flen >= 0 && fl != flen)
      return ctx.Error("frame_length " + std::to_string(fl) + " differs from window length " +
                       std::to_string(flen));
    flen = fl;
  }
  if (flen < 0) return ctx.Error("either window or frame_length is required");
  const int64_t batch = sig0.dim(0), length = sig0.dim(1);
  if (flen <= 0 || flen > length)
    return ctx.Error("frame_length " + std::to_string(flen) + " must be in [1, " +
                     std::to_string(length) + "]");
  const bool onesided = ctx.node().GetInt("onesided", 1) != 0;
  const int64_t frames = 1 + (length - flen) / step;
  const int64_t bins = onesided ? flen / 2 + 1 : flen;
  if (static_cast<double>(batch) * static_cast<double>(frames) * static_cast<double>(bins) >
      static_cast<double>(kMaxDftLength) * 16)
    return ctx.Error("STFT output too large");
  const bool complex_in = sig0.dim(2) == 2;
  Tensor sig = sig0.Contiguous();
  std::vector<double> win(static_cast<size_t>(flen), 1.0);
  if (window.defined())
    for (int64_t j = 0; j < flen; ++j) win[static_cast<size_t>(j)] = window.GetDouble(j);
  std::vector<double> out(static_cast<size_t>(batch * frames * bins * 2));
  std::vector<cd> line(static_cast<size_t>(flen));
  const int64_t comps = complex_in ? 2 : 1;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t j = 0; j < flen; ++j) {
        const int64_t base = (b * length + f * step + j) * comps;
        const double w = win[static_cast<size_t>(j)];
        line[static_cast<size_t>(j)] =
            cd(sig.GetDouble(base) * w, complex_in ? sig.GetDouble(base + 1) * w : 0.0);
      }
      std::vector<cd> y = Dft(line, -1);
      for (int64_t k = 0; k < bins; ++k) {
        const size_t o = static_cast<size_t>(((b * frames + f) * bins + k) * 2);
        out[o] = y[static_cast<size_t>(k)].real();
        out[o + 1] = y[static_cast<size_t>(k)].imag();
      }
    }
  }
  return WriteOutput(ctx, sig0.dtype(), {batch, frames, bins, 2}, out);
}

// ---------------------------------------------------------------------------------------------
// Windows: size (int scalar) -> [size] of output_datatype (default float). periodic = 1 uses
// N = size in the cosine terms (for spectral analysis), periodic = 0 uses N = size - 1
// (symmetric). A symmetric window of size 1 is [1].

template <typename F>
Status WindowCompute(KernelContext& ctx, F shape_fn) {
  VT_ASSIGN_OR_RETURN(int64_t size, ReadIntScalar(ctx, 0, "size"));
  if (size < 0 || size > kMaxDftLength) return ctx.Error("window size " + std::to_string(size) + " invalid");
  const bool periodic = ctx.node().GetInt("periodic", 1) != 0;
  const int64_t dt = ctx.node().GetInt("output_datatype", static_cast<int64_t>(DType::kFloat32));
  if (!IsKnownDType(static_cast<int32_t>(dt))) return ctx.Error("unknown output_datatype");
  const double denom = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> v(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i)
    v[static_cast<size_t>(i)] = denom > 0 ? shape_fn(2 * std::numbers::pi * i / denom) : 1.0;
  return WriteOutput(ctx, static_cast<DType>(dt), {size}, v);
}

Status HannWindowCompute(KernelContext& ctx) {
  return WindowCompute(ctx, [](double a) { return 0.5 - 0.5 * std::cos(a); });
}
Status HammingWindowCompute(KernelContext& ctx) {
  constexpr double a0 = 25.0 / 46.0;
  return WindowCompute(ctx, [](double a) { return a0 - (1 - a0) * std::cos(a); });
}
Status BlackmanWindowCompute(KernelContext& ctx) {
  return WindowCompute(ctx, [](double a) { return 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a); });
}

// ---------------------------------------------------------------------------------------------
// MelWeightMatrix: (num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz)
// -> [dft_length/2 + 1, num_mel_bins] triangular filters with peak 1, mel(f) =
// 2595 log10(1 + f/700). The num_mel_bins + 2 band edges are spaced evenly in mel between the
// edges (step = span / (num_mel_bins + 2), as the ONNX reference does) and mapped to bins
// floor((dft_length + 1) * f / sample_rate).

Status MelWeightMatrixCompute(KernelContext& ctx) {
  VT_ASSIGN_OR_RETURN(int64_t mels, ReadIntScalar(ctx, 0, "num_mel_bins"));
  VT_ASSIGN_OR_RETURN(int64_t dft_len, ReadIntScalar(ctx, 1, "dft_length"));
  VT_ASSIGN_OR_RETURN(int64_t rate, ReadIntScalar(ctx, 2, "sample_rate"));
  VT_ASSIGN_OR_RETURN(double lo, ReadFloatScalar(ctx, 3, "lower_edge_hertz"));
  VT_ASSIGN_OR_RETURN(double hi, ReadFloatScalar(ctx, 4, "upper_edge_hertz"));
  if (mels <= 0 || dft_len <= 0 || rate <= 0)
    return ctx.Error("num_mel_bins, dft_length and sample_rate must be positive");
  if (mels > kMaxDftLength || dft_len > kMaxDftLength || (dft_len / 2 + 1) * mels > kMaxDftLength)
    return ctx.Error("MelWeightMatrix output too large");
  if (!(lo >= 0) || !(hi >= lo)) return ctx.Error("need 0 <= lower_edge_hertz <= upper_edge_hertz");
  const int64_t dt = ctx.node().GetInt("output_datatype", static_cast<int64_t>(DType::kFloat32));
  if (!IsKnownDType(static_cast<int32_t>(dt))) return ctx.Error("unknown output_datatype");
  const int64_t spec_bins = dft_len / 2 + 1;
  const double lo_mel = 2595.0 * std::log10(1.0 + lo / 700.0);
  const double hi_mel = 2595.0 * std::log10(1.0 + hi / 700.0);
  const double step = (hi_mel - lo_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double mel = static_cast<double>(i) * step + lo_mel;
    const double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
    edge[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft_len + 1) * hz / static_cast<double>(rate)));
  }
  std::vector<double> out(static_cast<size_t>(spec_bins * mels), 0.0);
  auto set = [&](int64_t bin, int64_t m, double v) {
    if (bin >= 0 && bin < spec_bins) out[static_cast<size_t>(bin * mels + m)] = v;
  };
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t left = edge[static_cast<size_t>(m)], center = edge[static_cast<size_t>(m + 1)],
                  right = edge[static_cast<size_t>(m + 2)];
    if (center == left) {
      set(center, m, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        set(j, m, static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    if (right > center)
      for (int64_t j = center; j < right; ++j)
        set(j, m, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  return WriteOutput(ctx, static_cast<DType>(dt), {spec_bins, mels}, out);
}

VT_REGISTER_OP("", "DFT", 17, kMaxOpset, DftCompute);
VT_REGISTER_OP("", "STFT", 17, kMaxOpset, StftCompute);
VT_REGISTER_OP("", "HannWindow", 17, kMaxOpset, HannWindowCompute);
VT_REGISTER_OP("", "HammingWindow", 17, kMaxOpset, HammingWindowCompute);
VT_REGISTER_OP("", "BlackmanWindow", 17, kMaxOpset, BlackmanWindowCompute);
VT_REGISTER_OP("", "MelWeightMatrix", 17, kMaxOpset, MelWeightMatrixCompute);

}  // namespace
}  // namespace vt::ops
