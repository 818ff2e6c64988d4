// vtensor-gen-transformer: writes a synthetic transformer-like ONNX model with seeded random
// weights, in one of two forms:
//   plain (default): a stack of pre-norm decoder blocks, x -> y (tools/synthetic_transformer.h)
//   genai: a decoder-only language model as onnxruntime-genai's model builder writes it
//          (input_ids / attention_mask / KV cache -> logits / present; tools/genai_model.h)
//
// usage: vtensor-gen-transformer -o OUT.onnx [--hidden H] [--ffn F] [--heads A]
//          [--layers L | --target-bytes BYTES] [--seq S] [--batch B] [--dynamic-seq]
//          [--norm rms|layer] [--epsilon E] [--seed N] [--external | --inline] [--opset 13..17]
//          [--nbits-block BS [--nbits-zero-points] [--nbits-accuracy-level 0..4]]
//        vtensor-gen-transformer --form genai -o OUT.onnx [--preset 1b] [--hidden H] [--ffn F]
//          [--heads A] [--kv-heads KV] [--layers L] [--vocab V] [--max-length M]
//          [--nbits-block BS] [--nbits-zero-points] [--nbits-accuracy-level 0..4]
//          [--epsilon E] [--rope-theta T] [--seed N] [--external | --inline] [--genai-config]
// Plain defaults: llama-7B block shapes (H=4096, F=11008, A=32), L=1, S=128, B=1, RMS norm,
// seed 0, opset 17. Genai defaults (= --preset 1b): H=2048, 16 layers, 32 query / 8 KV heads,
// F=8192, vocab 32000, max length 2048, MatMulNBits block 32 symmetric, accuracy_level 4.
// Weights are external (OUT.data, 4096-aligned offsets) when they exceed 100 MiB.
// --genai-config also writes genai_config.json beside the model.
// Exit status: 0 written, 2 bad option or write failure (no file left behind).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>

#include <new>

#include "tools/genai_model.h"
#include "tools/synthetic_transformer.h"

namespace {

int Fail(const std::string& m) {
  fmt::print(stderr, "error: {}\n", m);
  return 2;
}

// --form genai: the preset, then every size flag given on the command line.
int WriteGenai(const CLI::App& app, const vt::TransformerConfig& c, const vt::GenaiModelConfig& extra,
               const std::string& out, vt::GenaiStorage storage, bool genai_config) {
  for (const char* plain_only : {"--seq", "--batch", "--dynamic-seq", "--norm", "--opset", "--target-bytes"})
    if (app.count(plain_only) > 0) return Fail(std::string(plain_only) + " does not apply to --form genai");
  vt::GenaiModelConfig g = vt::Genai1BPreset();
  g.kv_heads = extra.kv_heads;
  g.vocab = extra.vocab;
  g.max_length = extra.max_length;
  g.rope_theta = extra.rope_theta;
  if (app.count("--hidden")) g.hidden = c.hidden;
  if (app.count("--ffn")) g.ffn = c.ffn;
  if (app.count("--heads")) g.heads = c.heads;
  if (app.count("--layers")) g.layers = c.layers;
  if (app.count("--epsilon")) g.epsilon = c.epsilon;
  if (app.count("--nbits-block")) g.nbits_block = c.nbits_block;
  if (app.count("--nbits-accuracy-level")) g.accuracy_level = c.nbits_accuracy_level;
  g.zero_points = c.nbits_zero_points;
  g.seed = c.seed;
  auto r = vt::WriteGenaiModel(g, out, storage, genai_config);
  if (!r.ok()) return Fail(r.status().message());
  fmt::print("{}: onnxruntime-genai decoder, {} layers (H={} F={} heads={}/{} vocab={} max_length={}), "
             "int4 block {}{} accuracy_level {}, {} initializers, {:.1f} MiB{}{}\n",
             r->model_path, g.layers, g.hidden, g.ffn, g.heads, g.kv_heads, g.vocab, g.max_length,
             g.nbits_block, g.zero_points ? " with zero points" : "", g.accuracy_level, r->num_weights,
             static_cast<double>(r->weight_bytes) / (1 << 20),
             r->data_path.empty() ? " inline" : " in " + r->data_path,
             r->config_path.empty() ? "" : ", " + r->config_path);
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{"vtensor-gen-transformer: synthetic transformer-like ONNX models with random weights"};
  vt::TransformerConfig c;
  vt::GenaiModelConfig genai = vt::Genai1BPreset();
  std::string out, norm = "rms", form = "plain", preset;
  bool genai_config = false;
  int64_t target_bytes = 0;
  bool external = false, inline_weights = false;
  app.add_option("-o,--output", out, "output model file (.onnx)")->required();
  app.add_option("--form", form, "plain (default: x -> y blocks) or genai (onnxruntime-genai decoder)")
      ->check(CLI::IsMember({"plain", "genai"}));
  app.add_option("--preset", preset, "genai: 1b (the defaults of --form genai)")
      ->check(CLI::IsMember({"1b"}));
  app.add_option("--kv-heads", genai.kv_heads, "genai: KV heads dividing --heads (default 8)");
  app.add_option("--vocab", genai.vocab, "genai: vocabulary size (default 32000)");
  app.add_option("--max-length", genai.max_length, "genai: context length, rotary cache rows (default 2048)");
  app.add_option("--rope-theta", genai.rope_theta, "genai: rotary base (default 10000)");
  app.add_flag("--genai-config", genai_config, "genai: also write genai_config.json beside the model");
  app.add_option("--hidden", c.hidden, "model width H (default 4096)");
  app.add_option("--ffn", c.ffn, "FFN inner width F (default 11008)");
  app.add_option("--heads", c.heads, "attention heads A, dividing H (default 32)");
  auto* layers = app.add_option("--layers", c.layers, "decoder blocks L (default 1)");
  app.add_option("--target-bytes", target_bytes, "choose L so the f32 weights total about BYTES")
      ->excludes(layers);
  app.add_option("--seq", c.seq, "sequence length S (default 128)");
  app.add_option("--batch", c.batch, "batch size B (default 1)");
  app.add_flag("--dynamic-seq", c.dynamic_seq, "declare the sequence dim as symbolic 'seq'");
  app.add_option("--norm", norm, "rms (default; decomposed) or layer (LayerNormalization-17)")
      ->check(CLI::IsMember({"rms", "layer"}));
  app.add_option("--epsilon", c.epsilon, "norm epsilon (default 1e-5)");
  app.add_option("--seed", c.seed, "weight PRNG seed (default 0)");
  auto* ext = app.add_flag("--external", external, "weights in OUT.data (default above 100 MiB)");
  app.add_flag("--inline", inline_weights, "weights inside the model file")->excludes(ext);
  app.add_option("--opset", c.opset, "ONNX opset, 13..17 (default 17)");
  app.add_option("--nbits-block", c.nbits_block,
                 "projections as com.microsoft MatMulNBits, 4-bit, block size 16/32/64/128/256 "
                 "(0: MatMul, the default)");
  app.add_flag("--nbits-zero-points", c.nbits_zero_points,
               "MatMulNBits weights with uint8 zero points (asymmetric)");
  app.add_option("--nbits-accuracy-level", c.nbits_accuracy_level,
                 "MatMulNBits accuracy_level attribute, 0..4 (4: int8 activations allowed)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (form == "genai")
    return WriteGenai(app, c, genai, out,
                      external ? vt::GenaiStorage::kExternal
                      : inline_weights ? vt::GenaiStorage::kInline : vt::GenaiStorage::kAuto,
                      genai_config);
  for (const char* genai_only : {"--preset", "--kv-heads", "--vocab", "--max-length", "--rope-theta",
                                 "--genai-config"})
    if (app.count(genai_only) > 0) return Fail(std::string(genai_only) + " needs --form genai");
  c.norm = norm == "layer" ? vt::NormKind::kLayer : vt::NormKind::kRms;
  if (target_bytes != 0 || app.count("--target-bytes") > 0) {
    auto l = vt::LayersForTargetBytes(c, target_bytes);
    if (!l.ok()) {
      fmt::print(stderr, "error: {}\n", l.status().message());
      return 2;
    }
    c.layers = *l;
  }
  const vt::WeightStorage storage = external         ? vt::WeightStorage::kExternal
                                    : inline_weights ? vt::WeightStorage::kInline
                                                     : vt::WeightStorage::kAuto;
  try {
    auto r = vt::WriteSyntheticTransformer(c, out, storage);
    if (!r.ok()) {
      fmt::print(stderr, "error: {}\n", r.status().message());
      return 2;
    }
    fmt::print("{}: {} layers (H={} F={} heads={} {}), {} weights, {:.1f} MiB f32{}{}\n", r->model_path,
               c.layers, c.hidden, c.ffn, c.heads, norm == "layer" ? "LayerNorm" : "RMSNorm",
               r->num_weights, static_cast<double>(r->weight_bytes) / (1 << 20),
               c.nbits_block > 0 ? " before 4-bit MatMulNBits quantization" : "",
               r->data_path.empty() ? " inline" : " in " + r->data_path);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "error: out of memory while building the model\n");
    return 2;
  }
  return 0;
}

}  // namespace

// fmt and CLI11 may throw (a bad format argument, std::bad_alloc): an error line and exit 2,
// never an escaped exception.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fputs("error: ", stderr);
    std::fputs(e.what(), stderr);
    std::fputs("\n", stderr);
  } catch (...) {
    std::fputs("error: unexpected exception\n", stderr);
  }
  return 2;
}
