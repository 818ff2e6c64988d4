// vtensor: ONNX compiler and CPU runtime CLI. See README.md for the command reference.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "tools/commands.h"
#include "tools/version.h"

namespace {

// "vtensor 0.1.0 (git v0.1-12-gabc1234)"; the git part only when configured in a checkout.
std::string VersionString() {
  std::string v = std::string("vtensor ") + VTENSOR_VERSION;
  if (*VTENSOR_GIT_DESCRIBE) v += std::string(" (git ") + VTENSOR_GIT_DESCRIBE + ")";
  return v;
}

using vt::cli::AddInputFlags;
using vt::cli::AddSessionFlags;

// Each subcommand's arguments and flags; returns the subcommand.
CLI::App* AddRun(CLI::App& app, vt::cli::RunArgs& run) {
  auto* cmd = app.add_subcommand("run", "Run a model once; compare with DIR/output_N.pb");
  cmd->add_option("model", run.model, "ONNX model file")->required();
  AddInputFlags(cmd, &run.inputs);
  cmd->add_option("--rtol", run.rtol, "relative tolerance (default 1e-3)");
  cmd->add_option("--atol", run.atol, "absolute tolerance (default 1e-7)");
  cmd->add_option("--threads", run.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--print", run.print, "print output values (NumPy-like, long axes elided)");
  cmd->add_flag("--print-all", run.print_all, "print output values in full");
  cmd->add_option("--save-outputs", run.save_outputs, "write each output to a file in DIR");
  cmd->add_option("--save-format", run.save_format,
                  "pb (default: output_N.pb, TensorProto) or npy (output_N.npy)")
      ->check(CLI::IsMember({"pb", "npy"}));
  cmd->add_flag("--json", run.json, "the per-output report as JSON");
  cmd->add_option("--profile-ops", run.profile_ops,
                  "write a per-node timing trace (Chrome trace JSON) of the run to FILE");
  AddSessionFlags(cmd, &run.session);
  return cmd;
}

CLI::App* AddInfo(CLI::App& app, vt::cli::InfoArgs& info) {
  auto* cmd = app.add_subcommand("info", "Print model summary");
  cmd->add_option("model", info.model, "ONNX model file")->required();
  cmd->add_flag("--json", info.json, "as JSON");
  return cmd;
}

CLI::App* AddBench(CLI::App& app, vt::cli::BenchArgs& bench) {
  auto* cmd = app.add_subcommand("bench", "Time session creation and inference");
  cmd->add_option("model", bench.model, "ONNX model file")->required();
  AddInputFlags(cmd, &bench.inputs);
  cmd->add_option("--runs", bench.runs, "timed runs (default 20)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", bench.warmup, "untimed runs after the first run (default 2)");
  cmd->add_option("--threads", bench.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--json", bench.json, "the figures as JSON");
  cmd->add_option("--profile-ops", bench.profile_ops,
                  "write a per-node timing trace (Chrome trace JSON) of the timed runs to FILE");
  cmd->add_option("--top", bench.top,
                  "print the K op types with the most time in the timed runs, and those with the "
                  "most extra time in the first run")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--profile-first", bench.profile_first,
                  "write a per-node timing trace (Chrome trace JSON) of the first run to FILE");
  AddSessionFlags(cmd, &bench.session);
  return cmd;
}

CLI::App* AddGenerate(CLI::App& app, vt::cli::GenerateArgs& gen) {
  auto* cmd = app.add_subcommand(
      "generate", "Greedy generation (token ids) with an onnxruntime-genai decoder: TTFT, tokens/s");
  cmd->add_option("model", gen.model, "decoder model (input_ids, attention_mask, KV cache)")
      ->required();
  cmd->add_option("--prompt-len", gen.prompt_len, "prompt tokens, ids drawn from --seed (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--new-tokens", gen.new_tokens, "tokens to generate (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  cmd->add_option("--seed", gen.seed, "prompt seed (default 0)");
  cmd->add_option("--vocab", gen.vocab, "vocabulary size when logits' last dim is symbolic");
  cmd->add_option("--threads", gen.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--read-floor", gen.read_floor,
                "measure the sequential read bandwidth of the weight bytes per token");
  AddSessionFlags(cmd, &gen.session);
  return cmd;
}

CLI::App* AddDigest(CLI::App& app, vt::cli::DigestArgs& digest) {
  auto* cmd = app.add_subcommand("digest", "Print NAME ALGO HEX per weight compile may cache (initializers, Constant-node values, weights the passes make)");
  cmd->add_option("model", digest.model, "ONNX model file")->required();
  cmd->add_option("--tensor", digest.tensor, "only this initializer, Constant output or weight the passes make");
  cmd->add_option("--algo", digest.algo, "blake3 (default) or sha256")
      ->check(CLI::IsMember({"blake3", "sha256"}));
  cmd->add_flag("--json", digest.json, "as JSON");
  return cmd;
}

CLI::App* AddCheck(CLI::App& app, vt::cli::CheckArgs& check) {
  auto* cmd = app.add_subcommand("check", "Check a model and its compiled tensors");
  cmd->add_option("model", check.model, "ONNX model file")->required();
  cmd->add_flag("--json", check.json, "findings as JSON");
  cmd->add_flag("--decode", check.decode, "decode each payload and compare with its source");
  return cmd;
}

CLI::App* AddInspect(CLI::App& app, vt::cli::InspectArgs& inspect) {
  auto* cmd = app.add_subcommand("inspect", "List struct types, devices, compiled tensors");
  cmd->add_option("model", inspect.model, "ONNX model file")->required();
  cmd->add_flag("--json", inspect.json, "as JSON");
  cmd->add_flag("--cache", inspect.cache,
                "load the model and print HIT or MISS(reason) per entry for this machine");
  AddSessionFlags(cmd, &inspect.session);
  return cmd;
}

CLI::App* AddCompile(CLI::App& app, vt::cli::CompileArgs& compile) {
  auto* cmd = app.add_subcommand(
      "compile", "Write MODEL's weights prepacked for devices as compiled tensors (cache)");
  cmd->add_option("model", compile.model, "ONNX model file (never modified)")->required();
  cmd->add_option("-o,--output", compile.out, "output model")->required();
  cmd->add_option("--device", compile.devices,
                  "native (default), x86_64-avx512, x86_64-avx2, x86_64-baseline "
                  "(repeatable: one entry per device)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--profile", compile.profile, "exact (default) or compact")
      ->check(CLI::IsMember({"exact", "compact"}));
  cmd->add_option("--payload", compile.payload,
                  "external (default: OUT.vtpack, 4096-aligned) or inline")
      ->check(CLI::IsMember({"external", "inline"}));
  cmd->add_option("--algo", compile.algo, "source digest: blake3 (default) or sha256")
      ->check(CLI::IsMember({"blake3", "sha256"}));
  cmd->add_flag("!--no-progress", compile.progress, "no progress display");
  cmd->add_option("--data", compile.data,
                  "test data set DIR (input_N.pb): print each output's max abs difference "
                  "between the compiled model (under --profile) and the source model");
  cmd->add_flag("--quiet", compile.quiet,
                "no warning on stderr when --profile compact stored lossy forms");
  return cmd;
}

CLI::App* AddBenchLoad(CLI::App& app, vt::cli::BenchLoadArgs& bench_load) {
  auto* cmd = app.add_subcommand(
      "bench-load", "Time session-ready with and without compiled tensors, and ONNX Runtime's");
  cmd->add_option("model", bench_load.model, "a model compiled by vtensor compile")->required();
  cmd->add_option("--reps", bench_load.reps, "repetitions, best kept (default 3)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--threads", bench_load.threads,
                  "threads of the vtensor sessions, packing included (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--processes", bench_load.processes,
                  "instead of the timing rows: total PSS of N processes each holding a session "
                  "after one run, against one process's")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--verify", bench_load.verify,
                  "verify policy of the --processes sessions (default never)")
      ->check(CLI::IsMember({"always", "memo", "never"}));
  cmd->add_option("--ort", bench_load.ort,
                  "vtensor-ort-bench program (default: beside vtensor; 'none' skips ORT)");
  cmd->add_flag("--json", bench_load.json, "as JSON");
  cmd->add_flag("--phases", bench_load.phases,
                "also the time of each step of session creation, per row");
  return cmd;
}

CLI::App* AddPasses(CLI::App& app, vt::cli::PassesArgs& passes) {
  auto* cmd = app.add_subcommand("passes", "Run a target's passes; print the graph with layouts");
  cmd->add_option("model", passes.model, "ONNX model file")->required();
  cmd->add_option("--target", passes.target,
                  "x86_64-avx512, x86_64-avx2, x86_64-baseline, iree-llvm-cpu or native");
  cmd->add_flag("--print-after-all", passes.print_after_all, "print the graph after each pass");
  cmd->add_flag("--session", passes.session,
                "run the passes a session runs (folding, shape folding, fusions) instead of a "
                "target's; print one count line per pass, then the graph");
  cmd->add_flag("--json", passes.json, "each pass with its rewrite count, and the final graph");
  return cmd;
}

CLI::App* AddExport(CLI::App& app, vt::cli::ExportArgs& exp) {
  auto* cmd = app.add_subcommand("export", "Export a model as StableHLO MLIR or JSON");
  cmd->add_option("model", exp.model, "ONNX model file")->required();
  cmd->add_option("--format", exp.format, "stablehlo (default) or json")
      ->check(CLI::IsMember({"stablehlo", "json"}));
  cmd->add_option("--target", exp.target, "target whose layouts are exported (default none)");
  cmd->add_option("-o,--output", exp.out, "output file")->required();
  cmd->add_option("--params", exp.params, "IREE parameter archive (.irpa) for large weights");
  cmd->add_option("--param-scope", exp.param_scope, "parameter scope (default model)");
  cmd->add_option("--externalize-above", exp.externalize_above,
                  "with --params: weights larger than BYTES are external (default 1024)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--per-type-layouts", exp.per_type_layouts,
                "also attach #vt.layout<...> to the tensor types of laid-out weights");
  cmd->add_option("--input-shape", exp.input_shapes,
                  "shape of an input, NAME=D0xD1x... (repeatable); a dim given as ? and unbound dims stay dynamic")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--input-value", exp.input_values,
                  "bind a scalar/1-D input to constants, NAME=V[,V...] (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return cmd;
}

// The CLI proper; main() only keeps an exception thrown while the parser is built from
// escaping.
int Main(int argc, char** argv) {
  CLI::App app{"vtensor: ONNX compiler and CPU inference runtime with virtual tensor layouts"};
  app.require_subcommand(1);
  vt::cli::RunArgs run;
  vt::cli::InfoArgs info;
  vt::cli::BenchArgs bench;
  vt::cli::GenerateArgs gen;
  vt::cli::DigestArgs digest;
  vt::cli::CheckArgs check;
  vt::cli::InspectArgs inspect;
  vt::cli::CompileArgs compile;
  vt::cli::BenchLoadArgs bench_load;
  vt::cli::PassesArgs passes;
  vt::cli::ExportArgs exp;
  // Registered in this order so `vtensor --help` lists them as before.
  CLI::App* run_cmd = AddRun(app, run);
  CLI::App* info_cmd = AddInfo(app, info);
  CLI::App* bench_cmd = AddBench(app, bench);
  CLI::App* gen_cmd = AddGenerate(app, gen);
  CLI::App* digest_cmd = AddDigest(app, digest);
  CLI::App* check_cmd = AddCheck(app, check);
  CLI::App* inspect_cmd = AddInspect(app, inspect);
  CLI::App* compile_cmd = AddCompile(app, compile);
  CLI::App* bench_load_cmd = AddBenchLoad(app, bench_load);
  CLI::App* passes_cmd = AddPasses(app, passes);
  CLI::App* export_cmd = AddExport(app, exp);

  // --version on the binary and on every subcommand.
  const std::string version = VersionString();
  app.set_version_flag("--version", version);
  for (CLI::App* sub : app.get_subcommands({})) sub->set_version_flag("--version", version);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  // Last line of defence: a shape computed from untrusted model data can still ask for more
  // memory than exists; that is bad input (exit 2), not a crash.
  try {
    if (*run_cmd) return vt::cli::RunCommand(run);
    if (*info_cmd) return vt::cli::InfoCommand(info);
    if (*bench_cmd) return vt::cli::BenchCommand(bench);
    if (*gen_cmd) return vt::cli::GenerateCommand(gen);
    if (*digest_cmd) return vt::cli::DigestCommand(digest);
    if (*check_cmd) return vt::cli::CheckCommand(check);
    if (*inspect_cmd) return vt::cli::InspectCommand(inspect);
    if (*passes_cmd) return vt::cli::PassesCommand(passes);
    if (*export_cmd) return vt::cli::ExportCommand(exp);
    if (*compile_cmd) return vt::cli::CompileCommand(compile);
    if (*bench_load_cmd) return vt::cli::BenchLoadCommand(bench_load);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "error: out of memory: the model asked for a tensor larger than memory\n");
    return 2;
  }
  return 2;
}

}  // namespace

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
