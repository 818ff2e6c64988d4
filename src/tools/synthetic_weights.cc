#include "tools/synthetic_weights.h"

#include <algorithm>
#include <cmath>

namespace vt::synth {

uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

WeightStream::WeightStream(uint64_t seed, uint64_t index)
    : base_(Mix64(Mix64(seed) ^ (index + 1) * 0xD1B54A32D192ED03ull)) {}

float WeightStream::Uniform(uint64_t i) const {
  const uint64_t z = Mix64(base_ + (i + 1) * 0x9E3779B97F4A7C15ull);
  return static_cast<float>(z >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

void FillWeights(const WeightInit& init, uint64_t seed, uint64_t index, int64_t first, float* out,
                 size_t n) {
  const WeightStream s(seed, index);
  const float a = init.kind == WeightInit::kMatrix
                      ? std::sqrt(3.0f / static_cast<float>(init.fan_in))
                      : 0.0f;
  for (size_t k = 0; k < n; ++k) {
    const float u = s.Uniform(static_cast<uint64_t>(first) + k);
    switch (init.kind) {
      case WeightInit::kMatrix: out[k] = a * u; break;
      case WeightInit::kScale: out[k] = 1.0f + 0.1f * u; break;
      case WeightInit::kBias: out[k] = 0.05f * u; break;
    }
  }
}

NBitsPlanes QuantizeNBits4(const float* w, int64_t in, int64_t out, int64_t bs, bool with_zp) {
  const int64_t kb = (in + bs - 1) / bs;
  NBitsPlanes p;
  p.codes.assign(static_cast<size_t>(out * kb * bs / 2), 0);
  p.scales.assign(static_cast<size_t>(out * kb), 0.0f);
  if (with_zp) p.zero_points.assign(static_cast<size_t>(out * ((kb + 1) / 2)), 0);
  std::vector<float> blk(static_cast<size_t>(bs));
  for (int64_t n = 0; n < out; ++n)
    for (int64_t b = 0; b < kb; ++b) {
      const int64_t len = std::min(bs, in - b * bs);
      float lo = 0.0f, hi = 0.0f, amax = 0.0f;
      for (int64_t j = 0; j < len; ++j) {
        const float v = w[static_cast<size_t>((b * bs + j) * out + n)];
        blk[static_cast<size_t>(j)] = v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        amax = std::max(amax, std::fabs(v));
      }
      float scale, zp = 8.0f;
      if (with_zp) {
        scale = (hi - lo) / 15.0f;
        if (scale == 0.0f) scale = 1.0f;
        zp = std::clamp(std::nearbyint(-lo / scale), 0.0f, 15.0f);
        uint8_t& z = p.zero_points[static_cast<size_t>(n * ((kb + 1) / 2) + b / 2)];
        z = static_cast<uint8_t>(z | (static_cast<uint8_t>(zp) << ((b % 2) * 4)));
      } else {
        scale = amax / 7.0f;
        if (scale == 0.0f) scale = 1.0f;
      }
      p.scales[static_cast<size_t>(n * kb + b)] = scale;
      uint8_t* q = &p.codes[static_cast<size_t>((n * kb + b) * (bs / 2))];
      for (int64_t j = 0; j < len; ++j) {
        const auto u = static_cast<uint8_t>(
            std::clamp(std::nearbyint(blk[static_cast<size_t>(j)] / scale) + zp, 0.0f, 15.0f));
        q[j / 2] = static_cast<uint8_t>(q[j / 2] | (u << ((j % 2) * 4)));
      }
    }
  return p;
}

}  // namespace vt::synth
