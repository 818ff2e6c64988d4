// Synthetic decoder-only language models in the form onnxruntime-genai's model builder writes
// (its src/python/py/models/builders/base.py, CPU execution provider, int4, GroupQueryAttention
// with the rotary embedding inside), with seeded random weights: what `vtensor generate` and the
// ONNX Runtime loop in bench/ort run token by token. The names of inputs, outputs, nodes and
// initializers are the builder's, MatMulNBits weights named as ONNX Runtime's MatMulNBits
// quantizer names them.
//
// Inputs:  input_ids int64 [batch_size, sequence_length]
//          attention_mask int64 [batch_size, total_sequence_length]
//          past_key_values.{i}.key / .value f32 [batch_size, kv_heads, past_sequence_length, D]
// Outputs: logits f32 [batch_size, sequence_length, vocab]
//          present.{i}.key / .value f32 [batch_size, kv_heads, total_sequence_length, D]
// (D = hidden / heads; opsets "" 21 and com.microsoft 1; ir_version 10.)
//
// Graph:
//   seqlens_k = Cast<int32>(ReduceSum(attention_mask, axes [1], keepdims 0) - 1)
//   total_sequence_length = Cast<int32>(Gather(Shape(attention_mask), 1))
//     (/model/attn_mask_reformat/attn_mask_subgraph/{ReduceSum,Sub,Sub/Cast,Shape,Gather,Gather/Cast})
//   e = Gather(model.embed_tokens.weight [vocab, hidden], input_ids)      /model/embed_tokens/Gather
//   per layer i (r: the residual stream, r = e before layer 0):
//     n = i == 0 ? SimplifiedLayerNormalization(e, w)                      (default domain)
//               : SkipSimplifiedLayerNormalization(r, mlp_out, w) with r = its output 3
//         w = model.layers.{i}.input_layernorm.weight; /model/layers.{i}/input_layernorm/{LayerNorm,SkipLayerNorm}
//     qkv = MatMulNBits(n, qkv_proj)                                       [.., (heads + 2 kv_heads) D]
//     a, present.{i}.* = GroupQueryAttention(qkv, "", "", past.{i}.key, past.{i}.value, seqlens_k,
//         total_sequence_length, cos_cache, sin_cache) with do_rotary 1, rotary_interleaved 0,
//         num_heads, kv_num_heads, scale 1/sqrt(D), local_window_size -1, softcap 0
//     o = MatMulNBits(a, o_proj)
//     m, r = SkipSimplifiedLayerNormalization(r, o, post_attention_layernorm.weight) (outputs 0, 3)
//     g = MatMulNBits(m, gate_proj); u = MatMulNBits(m, up_proj)
//     mlp_out = MatMulNBits((g * Sigmoid(g)) * u, down_proj)  /model/layers.{i}/mlp/{act_fn/Sigmoid,act_fn/Mul,Mul}
//   f = SkipSimplifiedLayerNormalization(r, mlp_out, model.layers.{L}.final_norm_layernorm.weight)
//   logits = MatMul(f, lm_head.MatMul.weight [hidden, vocab])              /lm_head/MatMul (f32)
// MatMulNBits node /model/layers.{i}/{attn,mlp}/{X}_proj/MatMul_Q4 reads
// model.layers.{i}.{attn,mlp}.{X}_proj.MatMul.weight_Q4 uint8 [N, kb, block/2], ..._scales f32
// [N * kb] and, with zero points, ..._zero_points uint8 [N * ceil(kb/2)]; attributes K, N,
// bits 4, block_size and accuracy_level. QKV is one packed weight: columns [0, heads D) are Q,
// then K, then V (the order GroupQueryAttention splits them in).
// cos_cache / sin_cache f32 [max_length, D/2]: cos / sin(p * theta^(-2j/D)) at row p, column j.
//
// Weights (synth::WeightStream, stream numbers in graph order): the embedding uniform in
// [-1, 1) * sqrt(3) (variance 1), norm weights 1 + 0.1 u, projection and lm_head matrices
// variance 1 / fan_in, each MatMulNBits weight quantized from its f32 matrix
// (synth::QuantizeNBits4). External data as in tools/synthetic_transformer.h: one file
// MODEL.data beside the model, every tensor at a 4096-byte aligned offset, both files written
// to temporary files and renamed (data first), nothing left behind on failure.
#pragma once

#include <cstdint>
#include <string>

#include "vtensor/base/status.h"

namespace vt {

struct GenaiModelConfig {
  int64_t hidden = 2048;      // model width; a multiple of heads
  int64_t heads = 32;         // query heads
  int64_t kv_heads = 8;       // KV heads; divides heads
  int64_t ffn = 8192;         // MLP inner width
  int64_t layers = 16;        // decoder layers
  int64_t vocab = 32000;      // vocabulary (embedding rows, logits width)
  int64_t max_length = 2048;  // rotary cache rows: the longest sequence (context length)
  int64_t nbits_block = 32;   // MatMulNBits block size: 16, 32, 64, 128 or 256
  bool zero_points = false;   // MatMulNBits with uint8 zero points (asymmetric)
  int64_t accuracy_level = 4; // MatMulNBits accuracy_level (0..4; the builder's CPU default 4)
  float epsilon = 1e-5f;      // RMS norm epsilon
  float rope_theta = 10000.0f;
  uint64_t seed = 0;
};

// The 1B-class preset: hidden 2048, 16 layers, 32 query / 8 KV heads (D 64), FFN 8192,
// vocab 32000, max_length 2048, int4 block 32 symmetric, accuracy_level 4 (= the defaults).
GenaiModelConfig Genai1BPreset();

// Errors: InvalidArgument naming the option ("--kv-heads", ...) for a dimension < 1, heads
// not a multiple of kv_heads, hidden not a multiple of heads, an odd head size, a bad block
// size or accuracy level, a non-positive epsilon / theta, or byte counts overflowing int64.
Status ValidateGenaiConfig(const GenaiModelConfig& c);

enum class GenaiStorage { kAuto, kExternal, kInline };  // kAuto: external above 100 MiB

struct GeneratedGenaiModel {
  std::string model_path;
  std::string data_path;    // empty when the weights are inline
  std::string config_path;  // genai_config.json beside the model; empty when not written
  int64_t weight_bytes = 0; // initializer payload bytes (without alignment padding)
  int64_t num_weights = 0;  // initializers
};

// Writes the model to `out_path` (external data to out_path + ".data") and, when
// `write_genai_config`, a genai_config.json in the model's directory describing it as the
// builder does (decoder input / output names, head counts, context length, greedy search).
// Errors: InvalidArgument for a bad config or inline weights past the 2 GiB protobuf limit;
// IoError naming the file. An error before the final renames creates or replaces no file.
Expected<GeneratedGenaiModel> WriteGenaiModel(const GenaiModelConfig& c,
                                              const std::string& out_path,
                                              GenaiStorage storage = GenaiStorage::kAuto,
                                              bool write_genai_config = false);

}  // namespace vt
