// Seeded weights of the synthetic model generators (tools/synthetic_transformer.h,
// tools/genai_model.h): a counter-based value stream, so that element i of a tensor is a pure
// function of (seed, stream, i) and any chunking of the generation gives the same bytes, and
// the 4-bit block quantization of a matrix into MatMulNBits planes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vt::synth {

// splitmix64 finalizer (Steele, Lea, Flood 2014): a bijective 64-bit mix.
uint64_t Mix64(uint64_t z);

// Element i of stream `index` under `seed`: uniform in [-1, 1) from the top 24 bits.
class WeightStream {
 public:
  WeightStream(uint64_t seed, uint64_t index);
  float Uniform(uint64_t i) const;

 private:
  uint64_t base_;
};

// How a weight's values are drawn from its stream (u uniform in [-1, 1)).
struct WeightInit {
  enum Kind {
    kMatrix,  // a * u, a = sqrt(3 / fan_in): variance 1 / fan_in, keeping activations O(1)
    kScale,   // 1 + 0.1 u (norm scales)
    kBias,    // 0.05 u (norm biases)
  } kind = kMatrix;
  int64_t fan_in = 1;
};

// Writes elements [first, first + n) of stream `index` drawn as `init` into out[0..n).
void FillWeights(const WeightInit& init, uint64_t seed, uint64_t index, int64_t first, float* out,
                 size_t n);

// The three planes of a MatMulNBits weight (4 bits, block size bs) quantized from f32 W[in, out]
// (row-major, y = x @ W): codes uint8 [out, kb, bs/2] (kb = ceil(in / bs), codes low nibble
// first along K, padding codes 0), scales f32 [out, kb] and, with zero points, uint8
// [out, ceil(kb/2)] (block b of row n in nibble b % 2 of byte b / 2). Per (n, block):
// symmetric scale = amax / 7, code = clamp(round(w / scale) + 8, 0, 15); with zero points
// scale = (max(0, max) - min(0, min)) / 15, zp = clamp(round(-min(0, min) / scale), 0, 15),
// code = clamp(round(w / scale) + zp, 0, 15) (scale 1 for an all-zero block).
struct NBitsPlanes {
  std::vector<uint8_t> codes;
  std::vector<float> scales;
  std::vector<uint8_t> zero_points;  // empty when symmetric
};
NBitsPlanes QuantizeNBits4(const float* w, int64_t in, int64_t out, int64_t bs, bool with_zp);

}  // namespace vt::synth
