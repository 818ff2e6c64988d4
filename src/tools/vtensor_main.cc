// vtensor: ONNX compiler and CPU runtime CLI. See README.md for the command reference.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

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

  std::string info_model;
  auto* info_cmd = app.add_subcommand("info", "Print model summary");
  info_cmd->add_option("model", info_model, "ONNX model file")->required();

  vt::cli::BenchArgs bench;
  auto* bench_cmd = app.add_subcommand("bench", "Time session creation and inference");
  bench_cmd->add_option("model", bench.model, "ONNX model file")->required();
  bench_cmd->add_option("--data", bench.data_dir, "directory with input_N.pb");
  bench_cmd->add_option("--runs", bench.runs, "timed runs (default 20)")->check(CLI::Range(1, 1000000));
  bench_cmd->add_option("--warmup", bench.warmup, "untimed runs first (default 2)");
  bench_cmd->add_option("--threads", bench.threads, "intra-op threads (default 1)")
      ->check(CLI::Range(1, 1024));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (*run_cmd) return vt::cli::RunCommand(run);
  if (*info_cmd) return vt::cli::InfoCommand(info_model);
  if (*bench_cmd) return vt::cli::BenchCommand(bench);
  return 2;
}
