// Synthetic transformer-like ONNX models: a stack of
// llama-style pre-norm decoder blocks with seeded random f32 weights, for benchmarks at
// realistic weight sizes (llama-7B shapes, ~1 GiB and beyond) and for the export/runtime tests.
//
// Graph (ONNX opset 13..17, default domain only), x: f32 [B, S, H] -> y: f32 [B, S, H]:
//   per layer l (D = H / A head size, all MatMul weights stored [in, out], y = x @ W):
//     n  = Norm(h)                                   (RMS: decomposed, or LayerNormalization-17)
//     q, k, v = n @ Wq, n @ Wk, n @ Wv               [H, H] each
//     q4, v4 = Transpose(Reshape(q|v, [0,-1,A,D]), [0,2,1,3])        [B, A, S, D]
//     kT = Transpose(Reshape(k, [0,-1,A,D]), [0,2,3,1])              [B, A, D, S]
//     p  = Softmax(MatMul(q4, kT) * (1/sqrt(D)), axis=-1)            [B, A, S, S] (no mask)
//     c  = Reshape(Transpose(MatMul(p, v4), [0,2,1,3]), [0,-1,H])    [B, S, H]
//     h  = h + c @ Wo                                 [H, H]
//     m  = Norm(h); g = m @ Wgate; u = m @ Wup        [H, F] each
//     h  = h + ((g * Sigmoid(g)) * u) @ Wdown          [F, H]
//   y = Norm(h) (final norm).
// RMS norm (opset <= 17 has no RMSNormalization): x / Sqrt(ReduceMean(x*x, axes=[-1]) + eps) * g.
// Layer norm: LayerNormalization(x, g, b, axis=-1, epsilon=eps).
//
// Weights: element i of weight tensor t (tensors numbered in graph order from 0) is a pure
// function of (seed, t, i) — a counter-based splitmix64 stream — so any chunking of the
// generation gives the same bytes. Matrices are uniform in [-a, a), a = sqrt(3 / fan_in)
// (variance 1/fan_in, keeping activations O(1)); norm scales 1 + U[-0.1, 0.1); norm biases
// U[-0.05, 0.05).
//
// MatMulNBits (nbits_block = bs > 0): weight W[in, out] becomes three initializers, W.q uint8
// [out, kb, bs/2] (kb = ceil(in / bs), codes low nibble first, padding codes 0), W.scales f32
// [out, kb] and, with zero points, W.zp uint8 [out, ceil(kb/2)] (block b of row n in nibble
// b % 2 of byte b / 2); node MatMulNBits(n, W.q, W.scales[, W.zp]) with K = in, N = out,
// bits = 4, block_size = bs (model opset_import adds com.microsoft 1). Per (n, block):
// symmetric scale = amax / 7, code = clamp(round(w / scale) + 8, 0, 15); with zero points
// scale = (max(0, max) - min(0, min)) / 15, zp = clamp(round(-min(0, min) / scale), 0, 15),
// code = clamp(round(w / scale) + zp, 0, 15) (scale 1 for an all-zero block).
//
// External data (ONNX external data spec, onnx/docs/ExternalData.md): every weight goes to one
// file next to the model (location = model file name + ".data"), each tensor's offset a multiple
// of kExternalAlignment, with keys location / offset / length. The weights are generated and
// written in chunks (memory use independent of the model size); the data file and the model are
// both written to temp files and fsync'ed before either is renamed (data first), so a failure
// while generating or writing leaves no new file behind.
#pragma once

#include <cstdint>
#include <string>

#include "vtensor/base/status.h"

namespace vt {

enum class NormKind { kRms, kLayer };

struct TransformerConfig {
  int64_t hidden = 4096;  // H (model width); multiple of heads
  int64_t ffn = 11008;    // F (FFN inner width)
  int64_t heads = 32;     // A (attention heads)
  int64_t layers = 1;     // L (decoder blocks)
  int64_t seq = 128;      // S (static sequence length; with dynamic_seq only the default feed)
  int64_t batch = 1;      // B
  bool dynamic_seq = false;  // input/output dim 1 is the symbolic "seq"
  NormKind norm = NormKind::kRms;
  float epsilon = 1e-5f;
  uint64_t seed = 0;
  int64_t opset = 17;  // 13..17; LayerNormalization needs 17
  // 0: MatMul projections. 16, 32, 64, 128 or 256: the seven projections are com.microsoft
  // MatMulNBits (bits 4, this block size) instead, quantized from the same f32 weights (below).
  int64_t nbits_block = 0;
  bool nbits_zero_points = false;  // MatMulNBits weights carry uint8 zero points (asymmetric)
  int64_t nbits_accuracy_level = 0;  // MatMulNBits accuracy_level attribute (0..4)
};

enum class WeightStorage {
  kAuto,      // external when the weights exceed kAutoExternalBytes, else inline
  kExternal,  // one external data file
  kInline,    // raw_data in the model (the protobuf limit of 2 GiB applies)
};
constexpr int64_t kAutoExternalBytes = int64_t{100} << 20;  // 100 MiB
constexpr int64_t kExternalAlignment = 4096;                // bytes, offset of every tensor

// The weight tensors of one block, and the final norm.
enum class WeightRole {
  kAttnNorm, kAttnNormBias, kWq, kWk, kWv, kWo,
  kFfnNorm, kFfnNormBias, kWgate, kWup, kWdown,
  kFinalNorm, kFinalNormBias,
};
// Initializer name of a weight, e.g. "layers.3.attn.wq", "final_norm.scale". `layer` is ignored
// for kFinalNorm / kFinalNormBias. Bias roles exist only with NormKind::kLayer.
std::string TransformerWeightName(int64_t layer, WeightRole role);

// Checks every field (dims >= 1, hidden % heads == 0, opset range, norm/opset combination,
// byte counts fit in int64). Errors: InvalidArgument naming the option ("--heads", ...).
Status ValidateTransformerConfig(const TransformerConfig& c);
// f32 weight bytes of one block, and of the whole model (blocks + final norm). Assumes a valid
// config.
int64_t TransformerLayerWeightBytes(const TransformerConfig& c);
int64_t TransformerWeightBytes(const TransformerConfig& c);
// The layer count whose total weight bytes are nearest `target_bytes` (at least 1).
// Errors: InvalidArgument when target_bytes < 1 or the config is invalid.
Expected<int64_t> LayersForTargetBytes(const TransformerConfig& c, int64_t target_bytes);

struct GeneratedTransformer {
  std::string model_path;
  std::string data_path;  // empty when the weights are inline
  int64_t weight_bytes = 0;   // f32 weight payload (without alignment padding)
  int64_t num_weights = 0;    // weight initializers (small shape/scalar constants excluded)
};

// Writes the model to `out_path` (and its external data to out_path + ".data").
// Errors: InvalidArgument for a bad config, or inline weights past the 2 GiB protobuf limit
// (names --inline); IoError naming the file. An error before the final renames creates or
// replaces no file.
Expected<GeneratedTransformer> WriteSyntheticTransformer(const TransformerConfig& c,
                                                         const std::string& out_path,
                                                         WeightStorage storage = WeightStorage::kAuto);

}  // namespace vt
