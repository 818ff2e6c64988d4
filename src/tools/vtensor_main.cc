// vtensor: ONNX compiler and CPU runtime CLI. See README.md for the command reference.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <new>

#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"vtensor: ONNX compiler and CPU inference runtime with virtual tensor layouts"};
  app.require_subcommand(1);

  vt::cli::RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "Run a model once; compare with DIR/output_N.pb");
  run_cmd->add_option("model", run.model, "ONNX model file")->required();
  run_cmd->add_option("--data", run.data_dir, "directory with input_N.pb (and output_N.pb)");
  run_cmd->add_option("--rtol", run.rtol, "relative tolerance (default 1e-3)");
  run_cmd->add_option("--atol", run.atol, "absolute tolerance (default 1e-7)");
  run_cmd->add_option("--threads", run.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));
  run_cmd->add_option("--save-outputs", run.save_outputs, "write output_N.pb files to DIR");
  vt::cli::AddSessionFlags(run_cmd, &run.session);

  std::string info_model;
  auto* info_cmd = app.add_subcommand("info", "Print model summary");
  info_cmd->add_option("model", info_model, "ONNX model file")->required();

  vt::cli::BenchArgs bench;
  auto* bench_cmd = app.add_subcommand("bench", "Time session creation and inference");
  bench_cmd->add_option("model", bench.model, "ONNX model file")->required();
  bench_cmd->add_option("--data", bench.data_dir, "directory with input_N.pb");
  bench_cmd->add_option("--runs", bench.runs, "timed runs (default 20)")->check(CLI::Range(1, 1000000));
  bench_cmd->add_option("--warmup", bench.warmup, "untimed runs after the first run (default 2)");
  bench_cmd->add_option("--threads", bench.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));
  vt::cli::AddSessionFlags(bench_cmd, &bench.session);

  vt::cli::DigestArgs digest;
  auto* digest_cmd = app.add_subcommand("digest", "Print NAME ALGO HEX per initializer");
  digest_cmd->add_option("model", digest.model, "ONNX model file")->required();
  digest_cmd->add_option("--tensor", digest.tensor, "only this initializer");
  digest_cmd->add_option("--algo", digest.algo, "blake3 (default) or sha256")
      ->check(CLI::IsMember({"blake3", "sha256"}));

  vt::cli::CheckArgs check;
  auto* check_cmd = app.add_subcommand("check", "Check a model and its compiled tensors");
  check_cmd->add_option("model", check.model, "ONNX model file")->required();
  check_cmd->add_flag("--json", check.json, "findings as JSON");
  check_cmd->add_flag("--decode", check.decode, "decode each payload and compare with its source");

  vt::cli::InspectArgs inspect;
  auto* inspect_cmd = app.add_subcommand("inspect", "List struct types, devices, compiled tensors");
  inspect_cmd->add_option("model", inspect.model, "ONNX model file")->required();
  inspect_cmd->add_flag("--json", inspect.json, "as JSON");
  inspect_cmd->add_flag("--cache", inspect.cache,
                        "load the model and print HIT or MISS(reason) per entry for this machine");
  vt::cli::AddSessionFlags(inspect_cmd, &inspect.session);

  vt::cli::CompileArgs compile;
  auto* compile_cmd = app.add_subcommand(
      "compile", "Write MODEL's weights prepacked for devices as compiled tensors (cache)");
  compile_cmd->add_option("model", compile.model, "ONNX model file (never modified)")->required();
  compile_cmd->add_option("-o,--output", compile.out, "output model")->required();
  compile_cmd->add_option("--device", compile.devices,
                          "native (default), x86_64-avx512, x86_64-avx2, x86_64-baseline "
                          "(repeatable: one entry per device)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  compile_cmd->add_option("--profile", compile.profile, "exact (default) or compact")
      ->check(CLI::IsMember({"exact", "compact"}));
  compile_cmd->add_option("--payload", compile.payload,
                          "external (default: OUT.vtpack, 4096-aligned) or inline")
      ->check(CLI::IsMember({"external", "inline"}));
  compile_cmd->add_option("--algo", compile.algo, "source digest: blake3 (default) or sha256")
      ->check(CLI::IsMember({"blake3", "sha256"}));
  compile_cmd->add_flag("!--no-progress", compile.progress, "no progress display");

  vt::cli::BenchLoadArgs bench_load;
  auto* bench_load_cmd = app.add_subcommand(
      "bench-load", "Time session-ready with and without compiled tensors, and ONNX Runtime's");
  bench_load_cmd->add_option("model", bench_load.model, "a model compiled by vtensor compile")
      ->required();
  bench_load_cmd->add_option("--reps", bench_load.reps, "repetitions, best kept (default 3)")
      ->check(CLI::Range(1, 100));
  bench_load_cmd->add_option("--ort", bench_load.ort,
                             "vtensor-ort-bench program (default: beside vtensor; 'none' skips ORT)");
  bench_load_cmd->add_flag("--json", bench_load.json, "as JSON");

  vt::cli::PassesArgs passes;
  auto* passes_cmd = app.add_subcommand("passes", "Run a target's passes; print the graph with layouts");
  passes_cmd->add_option("model", passes.model, "ONNX model file")->required();
  passes_cmd->add_option("--target", passes.target,
                         "x86_64-avx512, x86_64-avx2, x86_64-baseline, iree-llvm-cpu or native");
  passes_cmd->add_flag("--print-after-all", passes.print_after_all, "print the graph after each pass");
  passes_cmd->add_flag("--session", passes.session,
                       "run the passes a session runs (folding, shape folding, fusions) instead of a "
                       "target's; print one count line per pass, then the graph");

  vt::cli::ExportArgs exp;
  auto* export_cmd = app.add_subcommand("export", "Export a model as StableHLO MLIR or JSON");
  export_cmd->add_option("model", exp.model, "ONNX model file")->required();
  export_cmd->add_option("--format", exp.format, "stablehlo (default) or json")
      ->check(CLI::IsMember({"stablehlo", "json"}));
  export_cmd->add_option("--target", exp.target, "target whose layouts are exported (default none)");
  export_cmd->add_option("-o,--output", exp.out, "output file")->required();
  export_cmd->add_option("--params", exp.params, "IREE parameter archive (.irpa) for large weights");
  export_cmd->add_option("--param-scope", exp.param_scope, "parameter scope (default model)");
  export_cmd->add_option("--externalize-above", exp.externalize_above,
                         "with --params: weights larger than BYTES are external (default 1024)")
      ->check(CLI::NonNegativeNumber);
  export_cmd->add_flag("--per-type-layouts", exp.per_type_layouts,
                       "also attach #vt.layout<...> to the tensor types of laid-out weights");
  export_cmd->add_option("--input-shape", exp.input_shapes,
                         "static shape of an input, NAME=D0xD1x... (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  export_cmd->add_option("--input-value", exp.input_values,
                         "bind a scalar/1-D input to constants, NAME=V[,V...] (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  // Last line of defence: a shape computed from untrusted model data can still ask for more
  // memory than exists; that is bad input (exit 2), not a crash.
  try {
    if (*run_cmd) return vt::cli::RunCommand(run);
    if (*info_cmd) return vt::cli::InfoCommand(info_model);
    if (*bench_cmd) return vt::cli::BenchCommand(bench);
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
