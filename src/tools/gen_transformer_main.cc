// vtensor-gen-transformer: writes a synthetic transformer-like ONNX model with seeded random
// weights (the graph is described in
// tools/synthetic_transformer.h).
//
// usage: vtensor-gen-transformer -o OUT.onnx [--hidden H] [--ffn F] [--heads A]
//          [--layers L | --target-bytes BYTES] [--seq S] [--batch B] [--dynamic-seq]
//          [--norm rms|layer] [--epsilon E] [--seed N] [--external | --inline] [--opset 13..17]
//          [--nbits-block BS [--nbits-zero-points] [--nbits-accuracy-level 0..4]]
// Defaults: llama-7B block shapes (H=4096, F=11008, A=32), L=1, S=128, B=1, RMS norm, seed 0,
// opset 17; weights external (OUT.data, 4096-aligned offsets) when they exceed 100 MiB.
// Exit status: 0 written, 2 bad option or write failure (no file left behind).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <new>

#include "tools/synthetic_transformer.h"

int main(int argc, char** argv) {
  CLI::App app{"vtensor-gen-transformer: synthetic transformer-like ONNX models with random weights"};
  vt::TransformerConfig c;
  std::string out, norm = "rms";
  int64_t target_bytes = 0;
  bool external = false, inline_weights = false;
  app.add_option("-o,--output", out, "output model file (.onnx)")->required();
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
